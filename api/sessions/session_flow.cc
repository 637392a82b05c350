// How a new session follows its flow (docs/embedded.md#flows): the flow named or defaulted, the
// guards of the application and the key, and the checks and policy it gives the session.
#include <algorithm>

#include "api/sessions/sessions_common.h"
#include "commands/embedded/flow_decider.h"
#include "projections/embedded/embedded_view.h"

namespace svc::api {

using EmV = projections::EmbeddedView;

namespace {

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The `check` extension's name of a check (the spec's examples are snake_case).
std::string CheckName(const std::string& camel) {
  std::string out;
  for (char c : camel) {
    if (c >= 'A' && c <= 'Z') {
      out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

core::Status NotEnabled(const std::string& check, const std::string& why) {
  core::Status st = core::InvalidArgument(why, "CHECK_NOT_ENABLED_FOR_FLOW");
  st.WithExtension("check", check);
  return st;
}

}  // namespace

core::Result<ResolvedFlow> ResolveFlow(Runtime& rt, const AuthContext& auth, const core::Json& application_row,
                                       const std::string& flow_id_in, const std::string& flow_key,
                                       const core::Json* request_checks, const core::Json* request_policy) {
  ResolvedFlow r;
  const auto app_flows = application_row.value("allowedFlows", std::vector<std::string>{});
  std::string flow_id = flow_id_in;
  if (flow_id.empty() && !flow_key.empty()) {
    if (!commands::embedded::ValidFlowKey(flow_key)) return core::NotFound("no flow with this key", "FLOW_NOT_FOUND");
    flow_id = commands::embedded::FlowIdFor(auth.tenant_id, flow_key);
  }
  if (flow_id.empty()) flow_id = core::StringOr(application_row, "defaultFlow");
  if (flow_id.empty()) {
    if (!auth.key_flows.empty() || !app_flows.empty()) {
      return core::InvalidArgument(
          std::string(!auth.key_flows.empty() ? "the key" : "the application") +
              " is restricted to flows: name one with flowId (or flow, its key)",
          "FLOW_REQUIRED");
    }
    return r;
  }
  SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, EmV::Abs(EmV::Flow(auth.tenant_id, flow_id))));
  if (!row.has_value()) return core::NotFound("no such flow", "FLOW_NOT_FOUND");
  const std::string status = core::StringOr(*row, "status");
  const int64_t version = row->value("version", int64_t{0});
  if (status == "archived") return core::FailedPrecondition("the flow is archived", "FLOW_NOT_PUBLISHABLE");
  if (version <= 0) return core::FailedPrecondition("the flow has no published version yet", "FLOW_NOT_PUBLISHABLE");
  if (!app_flows.empty() && !Contains(app_flows, flow_id)) {
    return core::PermissionDenied("the application does not allow this flow", "FLOW_NOT_ALLOWED_FOR_APPLICATION");
  }
  if (!auth.key_flows.empty() && !Contains(auth.key_flows, flow_id)) {
    return core::PermissionDenied("the key is not allowed to use this flow", "FLOW_NOT_ALLOWED_FOR_KEY");
  }
  SVC_ASSIGN_OR_RETURN(auto published, ReadView(rt, EmV::Abs(EmV::FlowVersion(auth.tenant_id, flow_id, version))));
  if (!published.has_value()) return core::Unavailable("the flow's version is not readable yet; retry");
  r.found = true;
  r.flow_id = flow_id;
  r.key = core::StringOr(*row, "key");
  r.version = version;
  r.settings = commands::embedded::SessionSettingsOf(published->value("definition", core::Json::object()));
  r.checks = r.settings.checks;
  r.policy = r.settings.policy.is_object() ? r.settings.policy : core::Json::object();
  if (request_checks != nullptr) {
    for (auto it = request_checks->begin(); it != request_checks->end(); ++it) {
      if (it.key() == "livenessMode") {
        const std::string want = it->is_string() ? it->get<std::string>() : "";
        if (want != r.checks.value("livenessMode", "passive")) {
          return NotEnabled(want == "active" ? "active_liveness" : "passive_liveness",
                            "the flow's liveness mode is " + r.checks.value("livenessMode", std::string("passive")) +
                                "; a session of it cannot change it");
        }
      } else if (it->is_boolean()) {
        if (it->get<bool>() && !r.checks.value(it.key(), false)) {
          return NotEnabled(CheckName(it.key()), "the flow does not run " + it.key());
        }
        if (!it->get<bool>()) r.checks[it.key()] = false;  // a session may run less than its flow
      }
    }
  }
  if (request_policy != nullptr) {
    for (auto it = request_policy->begin(); it != request_policy->end(); ++it) r.policy[it.key()] = *it;
  }
  if (r.policy.empty()) r.policy = nullptr;
  return r;
}

}  // namespace svc::api
