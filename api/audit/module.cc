// The audit area as a module (api/http/module.h): the access log's aggregate and read model, its
// routes, and the checkpoint publisher (pipeline/audit/checkpoint_publisher.h),
// which records a signed checkpoint of every access log that grew, every interval; and its
// operator route (publish now).

#include "api/audit/routes.h"
#include "api/http/admin_route.h"
#include "api/http/catch_up.h"
#include "api/http/flag_file.h"
#include "api/http/module.h"
#include "commands/audit/checkpoint.h"
#include "commands/audit/timestamps.h"
#include "pipeline/adapters/tsa_http.h"
#include "pipeline/audit/checkpoint_publisher.h"
#include "pipeline/audit/timestamper.h"
#include "projections/audit/audit_projector.h"
#include "projections/audit/timestamps_projector.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"audit-checkpoint-interval-seconds", "60",
             "how often a signed checkpoint of each access log that grew is recorded in the log (and sent as the "
             "webhook audit.checkpoint_published)"});
  // Trusted timestamps (RFC 3161; docs/audit.md#trusted-timestamps).
  f.Declare({"tsa-url", "",
             "a time-stamping authority (RFC 3161 over HTTP): verdict and deletion certificates and published "
             "checkpoints get its tokens (empty: none)"});
  f.Declare({"tsa-roots", "", "the TSA's root certificates (PEM file) its tokens must chain to (with --tsa-url)"});
  f.Declare({"tsa-policy", "", "the TSA policy OID to ask for and require (empty: the TSA's default)"});
  f.Declare({"tsa-credentials-file", "", "a file with one line user:password, sent as HTTP Basic to the TSA"});
  f.Declare({"tsa-ca-file", "", "an extra CA certificate (PEM) trusted for an https TSA, besides the system store"});
  f.Declare({"tsa-timeout-ms", "10000", "how long one request to the TSA may take"});
}

// The TSA client of --tsa-url, or null when none is configured.
core::Result<std::unique_ptr<pipeline::adapters::HttpTsa>> TsaFromFlags(const Flags& f, const core::Clock* clock) {
  pipeline::adapters::HttpTsa::Options o;
  o.url = f.Get("tsa-url");
  if (o.url.empty()) return std::unique_ptr<pipeline::adapters::HttpTsa>();
  if (f.Get("tsa-roots").empty()) return core::InvalidArgument("--tsa-url needs --tsa-roots (the TSA's root certificates)");
  SVC_ASSIGN_OR_RETURN(o.roots_pem, ReadFlagFile("--tsa-roots", f.Get("tsa-roots")));
  o.policy_oid = f.Get("tsa-policy");
  if (std::string path = f.Get("tsa-credentials-file"); !path.empty()) {
    SVC_ASSIGN_OR_RETURN(o.user_password, ReadFlagFile("--tsa-credentials-file", path));
    while (!o.user_password.empty() && (o.user_password.back() == '\n' || o.user_password.back() == '\r')) {
      o.user_password.pop_back();
    }
    if (o.user_password.find(':') == std::string::npos) {
      return core::InvalidArgument("--tsa-credentials-file holds one line user:password");
    }
  }
  o.ca_file = f.Get("tsa-ca-file");
  try {
    const long long ms = std::stoll(f.Get("tsa-timeout-ms"));
    if (ms < 100 || ms > 120000) throw std::out_of_range("timeout");
    o.timeout = std::chrono::milliseconds(ms);
  } catch (const std::exception&) {
    return core::InvalidArgument("--tsa-timeout-ms is 100..120000");
  }
  o.clock = clock;
  return pipeline::adapters::HttpTsa::Create(std::move(o));
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

    SVC_ASSIGN_OR_RETURN(tsa_, TsaFromFlags(s.flags, &s.rt.clock()));
    if (tsa_ != nullptr) {
      s.api.evidence_timestamps = true;
      pipeline::audit::Timestamper::Options t;
      LendRuntime(s.rt, t);
      t.projector = s.rt.projector<projections::TimestampsProjector>();
      t.tsa = tsa_.get();
      timestamper_ = std::make_unique<pipeline::audit::Timestamper>(std::move(t));
      timestamps_running_ = s.Runs(Role::kPipeline, "timestamps");
      if (timestamps_running_) timestamper_->Start();
      rt_ = &s.rt;
    }
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    if (timestamper_ != nullptr && timestamps_running_) {
      auto* t = timestamper_.get();
      Runtime* rt = rt_;
      // Tests and operators: once the tenant's events are applied (body {"tenantId"}), wait until
      // every queued piece of evidence has its token or waits for its next attempt.
      admin.Add("POST", "/admin/timestamps/wait-idle", AdminRoute(sk, [t, rt](HttpRequest& req) -> core::Result<core::Json> {
        const std::string tenant = core::StringOr(core::ParseJsonOrDiscarded(req.body), "tenantId");
        if (!tenant.empty()) SVC_RETURN_IF_ERROR(CatchUpTenant(*rt, tenant));
        if (!t->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("timestamps are still being obtained");
        return core::Json{{"idle", true}};
      }));
    }
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
    if (timestamper_) timestamper_->Stop();
  }

 private:
  ApiContext options_;
  int64_t interval_seconds_ = 60;
  bool timers_ = false;
  std::unique_ptr<pipeline::audit::CheckpointPublisher> publisher_;
  std::unique_ptr<pipeline::adapters::HttpTsa> tsa_;
  std::unique_ptr<pipeline::audit::Timestamper> timestamper_;
  bool timestamps_running_ = false;
  Runtime* rt_ = nullptr;
};

}  // namespace

extern const std::string_view kAudit_operations_md;  // operations.md, compiled in (api/CMakeLists.txt)

const Module& audit::AuditModule() {
  static const Module m{.name = "audit",
                        .deciders = &RegisterDeciders<commands::audit::AuditLogDecider,
                                                      commands::audit::TimestampsDecider>,
                        .projectors = &AddProjectors<projections::AuditProjector, projections::TimestampsProjector>,
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
