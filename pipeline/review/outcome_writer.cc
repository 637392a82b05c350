#include "pipeline/review/outcome_writer.h"

#include "commands/verification/session_decider.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/log.h"
#include "eventstore/kv_store.h"
#include "projections/projector.h"
#include "projections/runner.h"
#include "projections/verification_view.h"
#include "projections/view_rows.h"

namespace svc::pipeline::review {

namespace vs = commands::verification;
using RV = projections::ReviewView;
using VV = projections::VerificationView;

vs::VerdictReached ReviewVerdict(const core::Json& pipeline_verdict, const std::string& case_id,
                                 const std::string& action, const std::vector<std::string>& reasons,
                                 const core::Json& approvers) {
  vs::VerdictReached v;
  v.type = action == "approve"   ? "verification.approved"
           : action == "decline" ? "verification.declined"
                                 : "verification.more_info_requested";
  v.outcome = action == "approve" ? "approved" : action == "decline" ? "declined" : "more_info";
  v.tracking_id = core::StringOr(pipeline_verdict, "trackingId");
  v.reason_codes = reasons;
  if (reasons.empty()) {
    for (const auto& r : pipeline_verdict.value("reasonCodes", core::Json::array())) {
      if (r.is_string()) v.reason_codes.push_back(r.get<std::string>());
    }
  }
  v.trust_score = pipeline_verdict.value("trustScore", core::Json(nullptr));
  v.case_id = case_id;
  core::Json decision = pipeline_verdict.value("decision", core::Json::object());
  if (!decision.is_object()) decision = core::Json::object();
  decision["outcome"] = v.outcome;
  decision["reasonCodes"] = v.reason_codes;
  decision["caseId"] = case_id;
  decision["decidedBy"] = "review";
  decision["reviewers"] = approvers;
  v.decision = decision;
  v.report = pipeline_verdict.value("report", core::Json(nullptr));
  if (v.report.is_object()) v.report["decision"] = decision;
  return v;
}

OutcomeWriter::OutcomeWriter(Options options)
    : QueueManager("svc-review-out", options.projector), options_(std::move(options)) {}

OutcomeWriter::~OutcomeWriter() { Stop(); }

core::Result<std::vector<OutcomeWriter::Move>> OutcomeWriter::Pending() const {
  SVC_ASSIGN_OR_RETURN(auto rows, projections::ScanRows(*options_.store, RV::Abs(RV::MovesPrefix())));
  std::vector<Move> out;
  for (auto& row : rows) {
    if (!options_.Owns(core::StringOr(row, "tenantId"))) continue;  // another node's partition
    out.push_back({core::StringOr(row, "tenantId"), core::StringOr(row, "environment"), core::StringOr(row, "caseId"), row});
  }
  return out;
}

bool OutcomeWriter::NothingDue() {
  if (options_.paused) return true;
  auto due = Pending();
  if (!due.ok()) return false;
  std::lock_guard l(done_mu_);
  for (const auto& m : *due) {
    if (done_.count(m.case_id) == 0) return false;
  }
  return true;
}

core::Status OutcomeWriter::Settle(const std::string& tenant, const std::string& environment,
                                   const std::string& case_id) {
  if (options_.paused) return core::Status::Ok();
  const std::string te = projections::TenantEnv(tenant, environment);
  std::lock_guard lock(process_mu_);
  SVC_ASSIGN_OR_RETURN(auto row,
                       options_.store->Get(options_.store->Cf(projections::kViewsCf), RV::Abs(RV::Move(te, case_id))));
  if (!row.has_value()) return core::Status::Ok();  // made already (the loop was first) or never final
  return Process({tenant, environment, case_id, core::ParseJsonOrDiscarded(*row)});
}

void OutcomeWriter::Pass() {
  if (options_.paused) return;
  auto due = Pending();
  if (!due.ok()) {
    core::LogWarn("review outcomes: cannot read the queue", {{"error", due.status().ToString()}});
    return;
  }
  for (const auto& m : *due) {
    if (Stopping()) return;
    {
      std::lock_guard l(done_mu_);
      if (done_.count(m.case_id) > 0) continue;
    }
    std::lock_guard lock(process_mu_);
    if (auto st = Process(m); !st.ok()) {
      core::LogWarn("review outcomes: the session's move stopped; it is retried",
                    {{"caseId", m.case_id}, {"error", st.ToString()}});
    }
  }
}

// Called with process_mu_ held.
core::Status OutcomeWriter::Process(const Move& m) {
  const std::string te = projections::TenantEnv(m.tenant, m.env);
  const std::string session = core::StringOr(m.row, "sessionId");
  SVC_ASSIGN_OR_RETURN(auto verdict, options_.store->Get(options_.store->Cf(projections::kViewsCf),
                                                         VV::Abs(VV::Verdict(te, session))));
  std::vector<std::string> reasons;
  for (const auto& r : m.row.value("reasonCodes", core::Json::array())) {
    if (r.is_string()) reasons.push_back(r.get<std::string>());
  }
  vs::ResolveReview cmd{ReviewVerdict(core::ParseJsonOrDiscarded(verdict.value_or("{}")), m.case_id,
                                      core::StringOr(m.row, "action"), reasons,
                                      m.row.value("approvers", core::Json::array()))};
  cmd.verdict.applicant_message_sealed = core::StringOr(m.row, "applicantMessageSealed");
  SVC_ASSIGN_OR_RETURN(auto outcome,
                       options_.writer->ExecuteAndWait(commands::MakeCommand<vs::SessionDecider>(
                           m.tenant, session, vs::SessionCommand(cmd),
                           commands::SystemContext(options_.clock->Now(), options_.ids, "review-outcomes", m.env))));
  if (!outcome.result.value("moved", false)) {
    // Not in review any more (moved already, or taken elsewhere): nothing to retry.
    std::lock_guard l(done_mu_);
    done_.insert(m.case_id);
    return core::Status::Ok();
  }
  if (!outcome.positions.empty()) options_.projections->WaitApplied(outcome.positions, std::chrono::seconds(30));
  core::Log(core::LogLevel::kDebug, "review outcome recorded on its session", {{"caseId", m.case_id}});
  return core::Status::Ok();
}

}  // namespace svc::pipeline::review
