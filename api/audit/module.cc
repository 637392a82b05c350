// The audit area as a module (api/http/module.h): the access log's aggregate and read model, its
// routes, and the checkpoint publisher (pipeline/audit/checkpoint_publisher.h),
// which records a signed checkpoint of every access log that grew, every interval; and its
// operator route (publish now).

#include "api/audit/routes.h"
#include "api/http/admin_route.h"
#include "api/http/module.h"
#include "commands/audit/checkpoint.h"
#include "pipeline/audit/checkpoint_publisher.h"
#include "projections/audit/audit_projector.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"audit-checkpoint-interval-seconds", "60",
             "how often a signed checkpoint of each access log that grew is recorded in the log (and sent as the "
             "webhook audit.checkpoint_published)"});
}

class AuditServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) override {
    pipeline::audit::CheckpointPublisher::Options o;
    LendRuntime(s.rt, o);
    o.log = &s.rt.log();
    o.root_key = s.rt.audit_checkpoint_root_key();
    try {
      long long seconds = std::stoll(s.flags.Get("audit-checkpoint-interval-seconds"));
      if (seconds < 1 || seconds > 3600) throw std::invalid_argument("range");
      o.interval = std::chrono::seconds(seconds);
    } catch (...) {
      return core::InvalidArgument("--audit-checkpoint-interval-seconds must be 1-3600");
    }
    interval_seconds_ = o.interval.count();
    s.api.limits.audit_checkpoint_interval_seconds = interval_seconds_;
    publisher_ = std::make_unique<pipeline::audit::CheckpointPublisher>(std::move(o));
    timers_ = s.Runs(Role::kTimers, "audit-checkpoints");
    if (timers_ && s.fake_clock == nullptr) publisher_->Start();  // under a fake clock, it runs as the clock moves
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    auto* p = publisher_.get();
    // Operators and tests: publish the checkpoints that are due now, without waiting for the timer.
    admin.Add("POST", "/admin/audit/publish-checkpoints", AdminRoute(sk, [p](HttpRequest&) -> core::Result<core::Json> {
      SVC_ASSIGN_OR_RETURN(int published, p->RunOnce());
      return core::Json{{"checkpointsPublished", published}};
    }));
  }

  core::Result<core::Json> ClockAdvanced() override {
    if (!timers_) return core::Json::object();
    SVC_ASSIGN_OR_RETURN(int published, publisher_->RunOnce());
    return core::Json{{"checkpointsPublished", published}};
  }

  std::vector<ApiRoute> Routes(Runtime* rt, const ApiContext& api) override {
    options_ = api;
    return audit::AuditRoutes(rt, options_);
  }

  void Stop() override {
    if (publisher_) publisher_->Stop();
  }

 private:
  ApiContext options_;
  int64_t interval_seconds_ = 60;
  bool timers_ = false;
  std::unique_ptr<pipeline::audit::CheckpointPublisher> publisher_;
};

}  // namespace

extern const std::string_view kAudit_operations_md;  // operations.md, compiled in (api/CMakeLists.txt)

const Module& audit::AuditModule() {
  static const Module m{.name = "audit",
                        .deciders = &RegisterDeciders<commands::audit::AuditLogDecider>,
                        .projectors = &AddProjectors<projections::AuditProjector>,
                        .openapi = &audit::AuditOpenApi,
                        .operations = &kAudit_operations_md,
                        .declare_flags = &DeclareFlags,
                        .services = &MakeServices<AuditServices>,
                        .verbs = {{"audit",
                                   "  audit export              --url http://host:port --key KEY [--out FILE]: the access log and\n"
                                   "                            its signed checkpoint, through the API (compliance:read)\n"
                                   "  audit verify FILE         [--verifier-key VKEY]: recompute an export's chain, tree and\n"
                                   "                            checkpoint signature, without the service\n",
                                   &cli::Audit}}};
  return m;
}

}  // namespace svc::api
