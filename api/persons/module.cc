// The persons area (the vault) as a module (api/http/module.h): the person, reveal-budget,
// client-token, import and export aggregates and the persons read model, its routes, the daily
// reveal budget, the per-key reveal rate, and its process managers — the writer of approved
// verifications' data into persons (pipeline/persons/verified_data.h), the purger, the
// consolidator and the bulk exporter — with their operator routes.

#include "api/http/admin_route.h"
#include "api/http/module.h"
#include "core/log.h"
#include "api/persons/routes.h"
#include "commands/persons/arco_request.h"
#include "commands/persons/client_token.h"
#include "commands/persons/export_job.h"
#include "commands/persons/import_job.h"
#include "commands/persons/person_decider.h"
#include "commands/persons/reveal_budget.h"
#include "core/mx_calendar.h"
#include "pipeline/persons/arco_manager.h"
#include "pipeline/persons/consolidator.h"
#include "pipeline/persons/exporter.h"
#include "pipeline/persons/purger.h"
#include "pipeline/persons/verified_data.h"
#include "projections/persons/arco_projector.h"
#include "projections/persons/persons_projector.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"reveal-budget-per-day", "10000",
             "persons whose plaintext may be revealed per tenant, environment and UTC day (decrypt, batch "
             "decrypt, expand, client tokens, integrity, export, reauth); beyond it 429 PII_DECRYPT_CAP_REACHED"});
  f.Declare({"rate-reveals", "5", "reveal requests per second per API key (burst: twice that); 0 = off"});
  f.Declare({"forget-grace-days", "30",
             "a forget with mode block keeps the person's data, inaccessible, this many days before the purge "
             "(docs/persons.md#forget)"});
  f.Declare({"purge-interval-seconds", "60", "how often the purger looks for persons whose purge is due"});
  f.Declare({"export-dump-ttl-hours", "24",
             "a bulk export's sealed dump stays downloadable this many hours after it is written, then it is "
             "deleted (docs/persons.md#bulk-export)"});
  f.Declare({"arco-days-off", "",
             "days that are no business days for the ARCO deadlines besides weekends and the official rest days of "
             "LFT art. 74: YYYY-MM-DD,… (a decree, the controller's own closing days; docs/persons.md#arco-requests)"});
  f.Declare({"arco-warning-business-days", "3",
             "an ARCO response or effect deadline this many business days away is warned once "
             "(arco.deadline_approaching)"});
  f.Declare({"arco-interval-seconds", "60", "how often the ARCO manager looks at the deadlines"});
  f.Declare({"fault-kill-consolidation-after", "",
             "TESTS ONLY: the process kills itself (SIGKILL) right after this consolidation step is durable "
             "(merge_started, absorbed, merged): a crash at a chosen point"});
}

class PersonsServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) override {
    persons::PersonsOptions& po = options_;
    try {
      long long budget = std::stoll(s.flags.Get("reveal-budget-per-day"));
      double rate = std::stod(s.flags.Get("rate-reveals"));
      if (budget < 0 || rate < 0) throw std::invalid_argument("negative");
      s.api.limits.reveal_budget_per_day = budget;
      s.api.limits.reveals.per_second = rate;
      s.api.limits.reveals.burst = rate * 2;
      long long grace = std::stoll(s.flags.Get("forget-grace-days"));
      long long interval = std::stoll(s.flags.Get("purge-interval-seconds"));
      long long ttl = std::stoll(s.flags.Get("export-dump-ttl-hours"));
      if (grace < 0 || interval < 1 || ttl < 1) throw std::invalid_argument("range");
      po.export_ttl_seconds = ttl * 3600;
      po.forget_grace_seconds = grace * 86400;
      purge_interval_ = std::chrono::seconds(interval);
    } catch (...) {
      return core::InvalidArgument(
          "bad --reveal-budget-per-day, --rate-reveals or --forget-grace-days (non-negative numbers) or "
          "--purge-interval-seconds or --export-dump-ttl-hours (at least 1)");
    }
    SVC_RETURN_IF_ERROR(StartArco(s));
    // A bulk import carries up to 1,000 person bodies (each at most ~20 KiB with its metadata).
    s.http.body_limit_by_suffix.emplace_back("/persons/import", 16u << 20);
    pipeline::persons::VerifiedDataWriter::Options vo;
    LendRuntime(s.rt, vo);
    vo.keys = &s.rt.key_store();
    vo.projector = s.rt.projector<projections::PersonsProjector>();
    verified_ = std::make_unique<pipeline::persons::VerifiedDataWriter>(vo);
    if (s.Runs(Role::kPipeline, "verified-data")) verified_->Start();

    pipeline::persons::Purger::Options pu;
    LendRuntime(s.rt, pu);
    pu.keys = &s.rt.key_store();
    pu.blobs = &s.rt.blobs();
    pu.interval = purge_interval_;
    purger_ = std::make_unique<pipeline::persons::Purger>(pu);
    po.purger = purger_.get();
    timers_ = s.Runs(Role::kTimers, "purge");
    if (timers_ && s.fake_clock == nullptr) purger_->Start();  // under a fake clock, it runs as the clock moves

    pipeline::persons::Consolidator::Options co;
    LendRuntime(s.rt, co);
    co.keys = &s.rt.key_store();
    co.projector = s.rt.projector<projections::PersonsProjector>();
    co.fault_kill_after = s.flags.Get("fault-kill-consolidation-after");
    consolidator_ = std::make_unique<pipeline::persons::Consolidator>(co);
    po.consolidator = consolidator_.get();
    if (s.Runs(Role::kPipeline, "consolidation")) consolidator_->Start();

    pipeline::persons::BulkExporter::Options eo;
    LendRuntime(s.rt, eo);
    eo.keys = &s.rt.key_store();
    eo.projector = s.rt.projector<projections::PersonsProjector>();
    eo.blobs = &s.rt.blobs();
    eo.exports_dir = pipeline::persons::BulkExporter::ExportsDir(s.rt.data_dir());
    eo.event_seal_key = s.rt.seal_key();
    exporter_ = std::make_unique<pipeline::persons::BulkExporter>(eo);
    po.exporter = exporter_.get();
    // Dumps written as files before they went into the blob store: moved before the API serves
    // (a download of one would otherwise find no object); a store not reachable yet is retried.
    if (s.Runs(Role::kTimers, "bulk-export")) {
      if (auto st = exporter_->AdoptLegacy(); !st.ok()) {
        core::LogWarn("export: dumps kept as files could not be moved into the blob store yet", {{"error", st.ToString()}});
      }
      exporter_->Start();
    }
    return core::Status::Ok();
  }

  // The ARCO requests' calendar and manager (pipeline/persons/arco_manager.h): fulfilments as the
  // operations that name a request are projected; deadlines on its timer, or as a fake clock moves.
  core::Status StartArco(ServeSetup& s) {
    persons::PersonsOptions& po = options_;
    pipeline::persons::ArcoManager::Options ao;
    LendRuntime(s.rt, ao);
    const std::string list = s.flags.Get("arco-days-off");
    for (size_t at = 0; at < list.size();) {
      const size_t comma = std::min(list.find(',', at), list.size());
      const std::string day = list.substr(at, comma - at);
      if (!core::mx::ParseCivilDate(day).ok()) return core::InvalidArgument("--arco-days-off: " + day + " is not YYYY-MM-DD");
      ao.calendar.days_off.push_back(day);
      at = comma + 1;
    }
    try {
      ao.warning_business_days = std::stoi(s.flags.Get("arco-warning-business-days"));
      const long long interval = std::stoll(s.flags.Get("arco-interval-seconds"));
      if (ao.warning_business_days < 0 || ao.warning_business_days > 20 || interval < 1) throw std::invalid_argument("range");
      ao.interval = std::chrono::seconds(interval);
    } catch (...) {
      return core::InvalidArgument("--arco-warning-business-days is 0 to 20, --arco-interval-seconds at least 1");
    }
    po.arco_calendar = ao.calendar;
    ao.caught_up = [&rt = s.rt] { return rt.CatchUpProjections(); };
    arco_ = std::make_unique<pipeline::persons::ArcoManager>(ao);
    if (s.Runs(Role::kTimers, "arco")) {
      arco_timers_ = true;
      // Woken as fulfilments are queued (under a fake clock too: they wait for no time); the
      // deadlines on its interval, or as the fake clock moves (ClockAdvanced).
      auto* projector = s.rt.projector<projections::ArcoProjector>();
      arco_listener_ = projector->AddListener([m = arco_.get()] { m->Wake(); });
      arco_->Start();
    }
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    auto* v = verified_.get();
    // Tests and tools: wait until every approved verification's data is in the vault.
    auto* c = consolidator_.get();
    auto* e = exporter_.get();
    auto* arco = arco_timers_ ? arco_.get() : nullptr;
    admin.Add("POST", "/admin/persons/wait-idle", AdminRoute(sk, [v, c, e, arco](HttpRequest&) -> core::Result<core::Json> {
      if (!v->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("verified data is still being written");
      if (arco != nullptr) SVC_RETURN_IF_ERROR(arco->RunOnce().status());  // the fulfilments queued (and deadlines due)
      if (!c->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("a consolidation is still under way");
      if (!e->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("a bulk export is still being written");
      return core::Json{{"idle", true}};
    }));
    // Operators and tests: hold new bulk exports back (they stay queued), and let them go again.
    admin.Add("POST", "/admin/persons/exports/pause", AdminRoute(sk, [e](HttpRequest&) -> core::Result<core::Json> {
      e->Pause();
      return core::Json{{"paused", true}};
    }));
    admin.Add("POST", "/admin/persons/exports/resume", AdminRoute(sk, [e](HttpRequest&) -> core::Result<core::Json> {
      e->Resume();
      return core::Json{{"paused", false}};
    }));
    auto* p = purger_.get();
    // Operators and tests: carry out the purges that are due now, without waiting for the timer.
    admin.Add("POST", "/admin/persons/purge",
              AdminRoute(sk, [p](HttpRequest&) -> core::Result<core::Json> { return p->RunOnce(); }));
  }

  std::vector<ApiRoute> Routes(Runtime* rt, const ApiContext& api) override {
    return persons::PersonRoutes(rt, WithContext(options_, api));
  }

  core::Result<core::Json> ClockAdvanced() override {
    if (!timers_) return core::Json::object();
    SVC_ASSIGN_OR_RETURN(auto run, purger_->RunOnce());
    core::Json arco = nullptr;
    if (arco_timers_) {
      SVC_ASSIGN_OR_RETURN(int recorded, arco_->RunOnce());
      arco = recorded;
    }
    // Dumps past their expiry on the moved clock are deleted before the clock's answer.
    exporter_->Wake();
    if (!exporter_->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("bulk exports are still being written");
    return core::Json{{"purge", std::move(run)}, {"arco", arco}};
  }

  void Stop() override {
    arco_listener_.Reset();
    if (arco_) arco_->Stop();
    if (exporter_) exporter_->Stop();
    if (consolidator_) consolidator_->Stop();
    if (purger_) purger_->Stop();
    if (verified_) verified_->Stop();
  }

 private:
  persons::PersonsOptions options_;
  std::unique_ptr<pipeline::persons::VerifiedDataWriter> verified_;
  std::unique_ptr<pipeline::persons::Purger> purger_;
  std::unique_ptr<pipeline::persons::Consolidator> consolidator_;
  std::unique_ptr<pipeline::persons::BulkExporter> exporter_;
  std::unique_ptr<pipeline::persons::ArcoManager> arco_;
  projections::Listeners::Subscription arco_listener_;
  bool arco_timers_ = false;
  std::chrono::seconds purge_interval_{60};
  bool timers_ = false;
};

}  // namespace

extern const std::string_view kPersons_operations_md;  // operations.md, compiled in (api/CMakeLists.txt)

const Module& persons::PersonsModule() {
  namespace cp = commands::persons;
  static const Module m{.name = "persons",
                        .deciders = &RegisterDeciders<cp::PersonDecider, cp::RevealBudgetDecider, cp::ClientTokenDecider,
                                                      cp::ImportDecider, cp::ExportDecider, cp::ArcoDecider>,
                        .projectors = &AddProjectors<projections::PersonsProjector, projections::ArcoProjector>,
                        .openapi = &persons::PersonsOpenApi,
                        .operations = &kPersons_operations_md,
                        .declare_flags = &DeclareFlags,
                        .services = &MakeServices<PersonsServices>,
                        .verbs = {{"export-bulk",
                                   "  export-bulk keygen        --secret-key-file FILE: an export key pair (the secret stays with you)\n"
                                   "  export-bulk open DUMP     --secret-key-file FILE [--out OUT]: check a bulk export dump and\n"
                                   "                            write its persons as JSON lines\n",
                                   &cli::ExportBulk}}};
  return m;
}

}  // namespace svc::api
