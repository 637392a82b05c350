#include "pipeline/persons/arco_manager.h"

#include "commands/writer.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/json.h"
#include "core/mx_calendar.h"
#include "eventstore/kv_store.h"
#include "projections/persons/arco_view.h"
#include "projections/projector.h"
#include "projections/runner.h"

namespace svc::pipeline::persons {

namespace ps = commands::persons;
using AV = projections::ArcoView;

ArcoManager::ArcoManager(const Options& options)
    : PeriodicManager("svc-arco", options.interval, "ARCO manager run failed",
                      [this] { return RunOnce().status(); }),
      options_(options) {
  if (options_.metrics != nullptr) {
    warned_ = &options_.metrics->GetCounter("svc_arco_deadlines_total", "ARCO deadlines warned or missed",
                                            "kind=\"approaching\"");
    missed_ = &options_.metrics->GetCounter("svc_arco_deadlines_total", "ARCO deadlines warned or missed",
                                            "kind=\"missed\"");
  }
}

ArcoManager::~ArcoManager() { Stop(); }

core::Result<int> ArcoManager::RunOnce() {
  std::lock_guard run_lock(mu_);
  if (options_.caught_up) SVC_RETURN_IF_ERROR(options_.caught_up());
  const core::Timestamp now = options_.clock->Now();
  std::set<core::mx::CivilDate> off;
  for (const auto& d : options_.calendar.days_off) {
    if (auto date = core::mx::ParseCivilDate(d); date.ok()) off.insert(*date);
  }
  const core::mx::BusinessCalendar calendar(std::move(off));
  const core::mx::CivilDate today = core::mx::MexicoCityDate(now.micros);
  // The queue is ordered by due time: what passed, and what ends within the warning window (a
  // month of calendar days holds any number of business days a window sensibly has).
  const int64_t horizon = now.micros + int64_t{31} * 86'400'000'000;
  const int cf = options_.store->Cf(projections::kViewsCf);
  const std::string prefix = AV::Abs(AV::DeadlinePrefix());
  std::string end = prefix;
  eventstore::PutFixed64BE(end, static_cast<uint64_t>(horizon));
  struct Due {
    std::string tenant, env, id;
    ps::ArcoCommand command;
    bool missed = false;  // counted as missed (else as a warning, or not at all: a fulfilment)
  };
  std::vector<Due> due;
  auto it = options_.store->NewIterator(cf, prefix, end);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    auto e = AV::ParseDeadline(it->key().substr(prefix.size()));
    if (!e || !options_.Owns(e->id.tenant)) continue;
    const std::string value(it->value());
    const std::string deadline = value.substr(0, value.find(':'));
    const bool warned = value.find(":warned") != std::string::npos;
    const bool passed = e->micros < now.micros;
    if (deadline == "information") {
      if (passed) due.push_back({e->id.tenant, e->id.environment, e->id.id, ps::LapseArcoRequest{}, true});
    } else if (passed) {
      due.push_back({e->id.tenant, e->id.environment, e->id.id, ps::WarnArcoDeadline{deadline, e->micros, true}, true});
    } else if (!warned && calendar.BusinessDaysBetween(today, core::mx::MexicoCityDate(e->micros)) <=
                              options_.warning_business_days) {
      due.push_back({e->id.tenant, e->id.environment, e->id.id, ps::WarnArcoDeadline{deadline, e->micros, false}, false});
    }
  }
  SVC_RETURN_IF_ERROR(it->status());
  // The fulfilments queued: ful/<ten>/<env>/<arc>/<evt>.
  const std::string ful = AV::Abs(AV::FulfilmentPrefix());
  auto f = options_.store->NewIterator(cf, ful, eventstore::PrefixEnd(ful));
  for (f->Seek(ful); f->Valid(); f->Next()) {
    auto scoped = projections::ParseScopedId(f->key().substr(ful.size()));
    if (!scoped || !options_.Owns(scoped->tenant)) continue;
    const size_t slash = scoped->id.find('/');
    if (slash == std::string::npos) continue;
    const core::Json row = core::ParseJsonOrDiscarded(f->value());
    ps::FulfilArcoRequest c;
    c.operation = core::StringOr(row, "operation");
    c.reference = core::StringOr(row, "reference");
    c.subject_id = core::StringOr(row, "subjectId");
    c.calendar = options_.calendar;
    c.record_refusal = true;
    c.source_event = scoped->id.substr(slash + 1);
    due.push_back({scoped->tenant, scoped->environment, scoped->id.substr(0, slash), std::move(c), false});
  }
  SVC_RETURN_IF_ERROR(f->status());
  std::vector<eventstore::LogPosition> positions;
  int recorded = 0;
  for (auto& d : due) {
    commands::CommandContext ctx = commands::SystemContext(now, options_.ids, "arco-manager", d.env);
    const bool deadline = !std::holds_alternative<ps::FulfilArcoRequest>(d.command);
    auto r = options_.writer->ExecuteAndWait(
        commands::MakeCommand<ps::ArcoDecider>(d.tenant, d.id, std::move(d.command), ctx));
    if (!r.ok()) {
      core::LogWarn("ARCO deadline command failed", {{"arcoRequestId", d.id}, {"error", r.status().ToString()}});
      continue;
    }
    if (r->positions.empty()) continue;
    ++recorded;
    if (auto* c = !deadline ? nullptr : d.missed ? missed_ : warned_) c->Add();
    positions.insert(positions.end(), r->positions.begin(), r->positions.end());
  }
  if (!positions.empty()) options_.projections->WaitApplied(positions, std::chrono::seconds(10));
  return recorded;
}

}  // namespace svc::pipeline::persons
