#include "api/http/roles.h"

namespace svc::api {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kApi: return "api";
    case Role::kWriter: return "writer";
    case Role::kProjector: return "projector";
    case Role::kPipeline: return "pipeline";
    case Role::kWebhooks: return "webhooks";
    case Role::kTimers: return "timers";
    case Role::kWorker: return "worker";
  }
  return "?";
}

Roles Roles::All() {
  Roles r;
  for (Role role : kAllRoles) r.bits_ |= Bit(role);
  return r;
}

core::Result<Roles> Roles::Parse(const std::vector<std::string>& names, std::string_view backend,
                                 std::string_view writers) {
  Roles r;
  for (const std::string& name : names) {
    if (name == "all") {
      r = All();
      continue;
    }
    bool known = false;
    for (Role role : kAllRoles) {
      if (name == RoleName(role)) {
        r.bits_ |= Bit(role);
        known = true;
      }
    }
    if (!known) {
      return core::InvalidArgument("--roles: unknown role '" + name +
                                   "' (api, writer, projector, pipeline, webhooks, timers, worker or all)");
    }
  }
  if (r.bits_ == 0) return core::InvalidArgument("--roles: name at least one role (or all)");
  if (r.IsAll()) return r;
  if (backend != "kafka") {
    return core::InvalidArgument(
        "--roles: on the embedded log every role runs in the one process that holds the data directory; "
        "splitting roles over processes needs --log-backend kafka (docs/operations.md#roles)");
  }
  for (Role role : {Role::kApi, Role::kPipeline, Role::kWebhooks, Role::kTimers, Role::kWorker}) {
    if (!r.Has(role)) continue;
    if (!r.Has(Role::kProjector)) {
      return core::InvalidArgument("--roles: " + std::string(RoleName(role)) +
                                   " reads the read models this process builds: add projector");
    }
    if (role == Role::kWorker) {
      if (writers != "group") {
        return core::InvalidArgument(
            "--roles: worker takes verification jobs from a cluster's jobs topic: it needs --kafka-writers group "
            "(with one writer, the pipeline role runs them; docs/operations.md#roles)");
      }
      continue;  // its commands travel to their partition's writer
    }
    if (r.Has(Role::kWriter)) continue;
    if (writers != "group") {
      return core::InvalidArgument("--roles: " + std::string(RoleName(role)) +
                                   " issues commands, which one writer (--kafka-writers single) decides in its own "
                                   "process: add writer, or share the partitions among writers (--kafka-writers group)");
    }
    if (role != Role::kApi) {
      return core::InvalidArgument("--roles: " + std::string(RoleName(role)) +
                                   " acts for the partitions its own process writes: add writer");
    }
  }
  return r;
}

std::vector<std::string> Roles::Names() const {
  std::vector<std::string> out;
  for (Role role : kAllRoles) {
    if (Has(role)) out.emplace_back(RoleName(role));
  }
  return out;
}

}  // namespace svc::api
