#include "pipeline/persons/consolidator.h"

#include <signal.h>

#include "commands/claims/claim_decider.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/executor.h"
#include "core/log.h"
#include "eventstore/kv_store.h"
#include "pipeline/persons/person_writes.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/runner.h"
#include "projections/view_rows.h"

namespace svc::pipeline::persons {

namespace ps = commands::persons;
using PV = projections::PersonsView;

namespace {

// A source the consolidator cannot merge any more: recorded as the merge's failure, not retried.
bool IsRefusal(std::string_view code) {
  return code == "PERSON_ALREADY_MERGED" || code == "PERSON_PURGED" || code == "PERSON_FORGET_PENDING" ||
         code == "PERSON_NOT_FOUND" || code == "INVALID_STATE_TRANSITION";
}

}  // namespace

Consolidator::Consolidator(Options options)
    : QueueManager("svc-consolidate", options.projector), options_(std::move(options)) {
  if (options_.metrics != nullptr) {
    merged_ = &options_.metrics->GetCounter("svc_persons_merged_total", "Persons merged into a survivor by consolidation");
  }
}

Consolidator::~Consolidator() { Stop(); }

bool Consolidator::NothingDue() {
  auto due = Pending();
  return due.ok() && due->empty();
}

core::Result<std::vector<Consolidator::Queued>> Consolidator::Pending() const {
  SVC_ASSIGN_OR_RETURN(auto rows, projections::ScanRows(*options_.store, PV::Abs(PV::ConsolidatingPrefix())));
  std::vector<Queued> out;
  for (auto& row : rows) {
    if (!options_.Owns(core::StringOr(row, "tenantId"))) continue;  // another node's partition
    out.push_back({core::StringOr(row, "tenantId"), core::StringOr(row, "environment"), core::StringOr(row, "survivorId"),
                   core::StringOr(row, "consolidationId")});
  }
  return out;
}

void Consolidator::Pass() {
  auto due = Pending();
  if (!due.ok()) {
    core::LogWarn("consolidation: cannot read the queue", {{"error", due.status().ToString()}});
    return;
  }
  for (const auto& q : *due) {
    if (Stopping()) return;
    if (auto st = Process(q); !st.ok()) {
      core::LogWarn("consolidation stopped; it is retried",
                    {{"consolidationId", q.consolidation}, {"error", st.ToString()}});
    }
  }
}

core::Result<commands::CommandOutcome> Consolidator::Run(commands::Command command) {
  SVC_ASSIGN_OR_RETURN(auto outcome, options_.writer->ExecuteAndWait(std::move(command)));
  if (!outcome.positions.empty()) options_.projections->WaitApplied(outcome.positions, std::chrono::seconds(30));
  return outcome;
}

core::Result<commands::CommandOutcome> Consolidator::RunPerson(const Queued& q, const std::string& person,
                                                               ps::PersonCommand command) {
  return Run(commands::MakeCommand<ps::PersonDecider>(
      q.tenant, person, std::move(command),
      commands::SystemContext(options_.clock->Now(), options_.ids, "consolidator", q.env)));
}

void Consolidator::Fault(const std::string& step) const {
  if (options_.fault_kill_after != step) return;
  core::LogWarn("fault injection: killing the process after a consolidation step", {{"step", step}});
  ::raise(SIGKILL);
}

core::Status Consolidator::Process(const Queued& q) {
  const std::string te = projections::TenantEnv(q.tenant, q.env);
  const int cf = options_.store->Cf(projections::kViewsCf);
  SVC_ASSIGN_OR_RETURN(auto stored, options_.store->Get(cf, PV::Abs(PV::Consolidation(te, q.survivor, q.consolidation))));
  if (!stored.has_value()) return core::Status::Ok();  // not projected yet: the next batch wakes us
  const core::Json row = core::ParseJsonOrDiscarded(*stored);
  const core::Json resolutions = row.value("fieldResolutions", core::Json::object());
  for (const auto& m : row.value("merges", core::Json::array())) {
    SVC_RETURN_IF_ERROR(MergeOne(q, core::StringOr(m, "sourcePersonId"), core::StringOr(m, "status"), resolutions));
  }
  SVC_RETURN_IF_ERROR(RunPerson(q, q.survivor, ps::CompleteConsolidation{q.consolidation}).status());
  return core::Status::Ok();
}

core::Status Consolidator::MergeOne(const Queued& q, const std::string& source, const std::string& status,
                                    const core::Json& resolutions) {
  if (status == "merged" || status == "failed") return core::Status::Ok();
  const PersonRef survivor{q.tenant, q.env, q.survivor};
  auto refuse = [&](std::string code) -> core::Status {
    ps::RevisePerson r;
    r.absorbing = ps::RevisePerson::Absorbing{q.consolidation, source, std::move(code)};
    return RunPerson(q, q.survivor, std::move(r)).status();
  };
  // 1. Frozen.
  auto started = RunPerson(q, source, ps::StartMerge{q.consolidation, q.survivor});
  if (!started.ok()) {
    const std::string code(started.status().api_code());
    if (!IsRefusal(code)) return started.status();
    return refuse(code);
  }
  Fault("merge_started");
  // 2. Absorbed: the source's values, opened with its key. A source merged already (a crash after
  // step 3) has none left in the read model; the survivor absorbed them before, and decides nothing.
  const std::string te = projections::TenantEnv(q.tenant, q.env);
  const int cf = options_.store->Cf(projections::kViewsCf);
  std::map<std::string, std::string> values;
  SVC_ASSIGN_OR_RETURN(auto sealed, options_.store->Get(cf, PV::Abs(PV::Sealed(te, source))));
  if (sealed.has_value()) {
    SVC_ASSIGN_OR_RETURN(auto key, options_.keys->Get(PersonKeyName(q.tenant, q.env, source)));
    if (!key.has_value()) return refuse("PERSON_PURGED");
    const core::Json rows = core::ParseJsonOrDiscarded(*sealed);
    for (auto it = rows.begin(); it != rows.end(); ++it) {
      if (!it->is_object()) continue;
      SVC_ASSIGN_OR_RETURN(std::string value, OpenPii(*key, q.tenant, q.env, source, it.key(), it->value("version", 0),
                                                      core::StringOr(*it, "sealed")));
      values[it.key()] = std::move(value);
    }
    core::SecureZero(*key);
  }
  std::map<std::string, std::string> resolved;
  for (auto it = resolutions.begin(); it != resolutions.end(); ++it) {
    if (it->is_string()) resolved[it.key()] = it->get<std::string>();
  }
  commands::CommandContext ctx = commands::SystemContext(options_.clock->Now(), options_.ids, "consolidator", q.env);
  // The survivor takes the source's CURP only with its claim (docs/write-side.md#claims): the
  // source, being merged, holds it no more; another active person that holds it keeps it, and the
  // survivor absorbs the rest.
  if (auto curp = values.find("curp"); curp != values.end() && (!resolved.count("curp") || resolved["curp"] == source)) {
    SVC_ASSIGN_OR_RETURN(std::string index_key, IndexKey(*options_.keys, q.tenant, q.env));
    const auto blind = BlindKeys(index_key, "curp", curp->second);
    if (!blind.empty()) {
      commands::claims::TakeClaim take;
      take.holder = survivor.person;
      take.holder_type = std::string(ps::kPersonAggregate);
      take.holds = {std::string(commands::claims::HoldsRule::kPersonCurp), blind[0], ""};
      SVC_ASSIGN_OR_RETURN(auto claim, options_.writer->ExecuteAndWait(commands::MakeReadingCommand<commands::claims::ClaimDecider>(
                                           q.tenant, ps::CurpClaimId(q.env, blind[0]), commands::claims::ClaimCommand(take), ctx)));
      SVC_ASSIGN_OR_RETURN(auto answer, commands::claims::ReadTake(claim.result));
      if (!answer.taken) {
        core::SecureZero(curp->second);
        values.erase(curp);
      }
    }
  }
  auto absorb = AbsorbSourceCommand(*options_.keys, survivor, q.consolidation, source, values, resolved, std::move(ctx));
  for (auto& [field, value] : values) core::SecureZero(value);
  if (!absorb.ok()) return absorb.status();
  SVC_RETURN_IF_ERROR(Run(std::move(*absorb)).status());
  Fault("absorbed");
  // 3. Merged.
  auto merged = RunPerson(q, source, ps::CompleteMerge{q.consolidation, q.survivor});
  if (!merged.ok()) return merged.status();
  if (!merged->positions.empty() && merged_ != nullptr) merged_->Add();
  Fault("merged");
  return core::Status::Ok();
}

}  // namespace svc::pipeline::persons
