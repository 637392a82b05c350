// The compliance area as a module (api/http/module.h): the breach and retention aggregates, its
// routes, the operator's compliance file (datacenters, subprocessors),
// read and checked at start: a server never runs with a file it cannot report truthfully; and the
// retention sweeper (pipeline/retention/sweeper.h) with the policies it enforces, which the
// reports and limits read.

#include <fstream>
#include <sstream>

#include "api/compliance/routes.h"
#include "api/http/admin_route.h"
#include "api/http/flag_file.h"
#include "api/http/module.h"
#include "commands/compliance/blob_gc.h"
#include "commands/compliance/breach.h"
#include "commands/compliance/retention.h"
#include "pipeline/retention/blob_collector.h"
#include "pipeline/retention/sweeper.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"compliance-file", "",
             "JSON file of the datacenters and subprocessors GET /v1/compliance/* report "
             "(docs/compliance.md); empty: both lists are empty"});
  f.Declare({"retention-media-days", "1825",
             "captures of a verification session are deleted this many days after it completed (their hashes stay "
             "on record); 0 keeps them"});
  f.Declare({"retention-webhook-delivery-days", "30",
             "finished webhook deliveries (bodies, attempts) are removed this many days after creation; 0 keeps them"});
  f.Declare({"retention-sweep-interval-seconds", "3600", "how often the retention sweeper runs"});
  f.Declare({"blob-gc-interval-hours", "6", "how often blobs no event refers to are collected; 0: never (svc blobs gc)"});
  f.Declare({"blob-gc-grace-hours", "24", "an unreferenced blob is deleted only when older than this"});
}

class ComplianceServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) override {
    SVC_RETURN_IF_ERROR(LoadComplianceFile(s));
    pipeline::retention::Sweeper::Options o;
    LendRuntime(s.rt, o);
    o.blobs = &s.rt.blobs();
    try {
      o.policies.media_days = std::stoll(s.flags.Get("retention-media-days"));
      o.policies.webhook_delivery_days = std::stoll(s.flags.Get("retention-webhook-delivery-days"));
      long long interval = std::stoll(s.flags.Get("retention-sweep-interval-seconds"));
      if (o.policies.media_days < 0 || o.policies.webhook_delivery_days < 0 || interval < 1) {
        throw std::invalid_argument("range");
      }
      o.policies.interval = std::chrono::seconds(interval);
    } catch (...) {
      return core::InvalidArgument(
          "--retention-media-days and --retention-webhook-delivery-days must be 0 or more days, "
          "--retention-sweep-interval-seconds at least 1");
    }
    o.policies.idempotency_hours = s.rt.writer().idempotency_retention_seconds() / 3600;
    sweeper_ = std::make_unique<pipeline::retention::Sweeper>(std::move(o));
    options_.retention = sweeper_.get();
    timers_ = s.Runs(Role::kTimers, "retention-sweep");
    if (timers_ && s.fake_clock == nullptr) sweeper_->Start();  // under a fake clock, it runs as the clock moves

    pipeline::retention::BlobCollector::Options co;
    LendRuntime(s.rt, co);
    co.blobs = &s.rt.blobs();
    co.caught_up = [&rt = s.rt] { return rt.CatchUpProjections(); };
    long long gc_hours = 0, grace_hours = 0;
    try {
      gc_hours = std::stoll(s.flags.Get("blob-gc-interval-hours"));
      grace_hours = std::stoll(s.flags.Get("blob-gc-grace-hours"));
      if (gc_hours < 0 || grace_hours < 1) throw std::invalid_argument("range");
    } catch (...) {
      return core::InvalidArgument("--blob-gc-interval-hours must be 0 or more, --blob-gc-grace-hours at least 1");
    }
    co.grace = std::chrono::hours(grace_hours);
    co.interval = std::chrono::hours(std::max<long long>(1, gc_hours));
    collector_ = std::make_unique<pipeline::retention::BlobCollector>(std::move(co));
    if (gc_hours > 0 && s.Runs(Role::kTimers, "blob-gc") && s.fake_clock == nullptr) collector_->Start();
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    auto* sweeper = sweeper_.get();
    // Operators and tests: sweep now, without waiting for the timer.
    admin.Add("POST", "/admin/retention/sweep", AdminRoute(sk, [sweeper](HttpRequest&) -> core::Result<core::Json> {
      SVC_ASSIGN_OR_RETURN(auto run, sweeper->RunOnce());
      return run.ToJson();
    }));
    // svc blobs gc while the server holds the data directory: {"dryRun", "graceSeconds"}. A
    // deletion is asked for in so many words: dryRun is required and a boolean, no other member is
    // taken (a misspelt "dryrun" was a real deletion), and a body that is not a JSON object is
    // BAD_REQUEST (issue 68, item 7).
    auto* collector = collector_.get();
    admin.Add("POST", "/admin/blobs/gc", AdminRoute(sk, [collector](HttpRequest& req) -> core::Result<core::Json> {
      SVC_ASSIGN_OR_RETURN(core::Json body, AdminBody(req));
      for (const auto& [name, value] : body.items()) {
        if (name != "dryRun" && name != "graceSeconds") {
          return core::InvalidArgument("unknown member " + name + " (dryRun, graceSeconds)", "VALIDATION_ERROR");
        }
      }
      if (!body.contains("dryRun") || !body["dryRun"].is_boolean()) {
        return core::InvalidArgument("dryRun is required: true (report only) or false (delete)", "VALIDATION_ERROR");
      }
      std::optional<std::chrono::seconds> grace;
      if (body.contains("graceSeconds")) {
        if (!body["graceSeconds"].is_number_integer() || body["graceSeconds"].get<int64_t>() < 0) {
          return core::InvalidArgument("graceSeconds must be 0 or more", "VALIDATION_ERROR");
        }
        grace = std::chrono::seconds(body["graceSeconds"].get<int64_t>());
      }
      SVC_ASSIGN_OR_RETURN(auto run, collector->RunOnce(body["dryRun"].get<bool>(), grace));
      return run.ToJson();
    }));
  }

  core::Result<core::Json> ClockAdvanced() override {
    if (!timers_) return core::Json::object();
    SVC_ASSIGN_OR_RETURN(auto run, sweeper_->RunOnce());
    return core::Json{{"retention", run.ToJson()}};
  }

  std::vector<ApiRoute> Routes(Runtime* rt, const ApiContext& api) override {
    return compliance::ComplianceRoutes(rt, WithContext(options_, api));
  }

  void Stop() override {
    if (sweeper_) sweeper_->Stop();
    if (collector_) collector_->Stop();
  }

 private:
  core::Status LoadComplianceFile(ServeSetup& s) {
    const std::string path = s.flags.Get("compliance-file");
    if (path.empty()) return core::Status::Ok();
    SVC_ASSIGN_OR_RETURN(std::string text, ReadFlagFile("--compliance-file", path));
    core::Json config = core::ParseJsonOrDiscarded(text);
    if (auto st = compliance::CheckComplianceConfig(config); !st.ok()) {
      return core::InvalidArgument("--compliance-file " + path + ": " + st.message());
    }
    options_.compliance_config = {{"datacenters", config.value("datacenters", core::Json::array())},
                                  {"subprocessors", config.value("subprocessors", core::Json::array())}};
    return core::Status::Ok();
  }

  compliance::ComplianceOptions options_;
  std::unique_ptr<pipeline::retention::Sweeper> sweeper_;
  std::unique_ptr<pipeline::retention::BlobCollector> collector_;
  bool timers_ = false;
};

}  // namespace

extern const std::string_view kCompliance_operations_md;  // operations.md, compiled in (api/CMakeLists.txt)

const Module& compliance::ComplianceModule() {
  static const Module m{.name = "compliance",
                        .deciders = &RegisterDeciders<commands::compliance::BreachDecider,
                                                      commands::compliance::RetentionDecider,
                                                      commands::compliance::BlobGcDecider>,
                        .openapi = &compliance::ComplianceOpenApi,
                        .operations = &kCompliance_operations_md,
                        .declare_flags = &DeclareFlags,
                        .services = &MakeServices<ComplianceServices>};
  return m;
}

}  // namespace svc::api
