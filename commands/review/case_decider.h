#pragma once
// The review case aggregate (docs/review.md#case-states). Opening is idempotent: the pipeline
// derives the case id from the submission's tracking id, so a pipeline resumed after a crash opens
// the same case, once. Then:
//
//   open | escalated --claim--> in_progress --release--> open (escalated when it was)
//   any not finished --reassign (to a reviewer)--> in_progress
//   in_progress --resolve escalate--> escalated (priority one step up, back in the queue)
//   in_progress --resolve approve|decline--> resolved;  --resolve request_more_info--> closed
//   under double approval, the first such resolution is a proposal: the case goes back to the
//   queue (open) awaiting a second, different reviewer, whose same resolution finishes it
//
// A claim held by another is CASE_ALREADY_CLAIMED; what needs the claim is CASE_CLAIM_REQUIRED;
// anything but a note on a resolved or closed case is CASE_CLOSED.

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/review/case_events.h"

namespace svc::commands::review {

struct CaseState {
  bool exists = false;
  std::string status;  // open | in_progress | escalated | resolved | closed
  std::string session_id;
  std::string priority;
  // How the engine leaned when it opened the case (EngineLean of the opening priority): against,
  // for or neutral; an override of it needs a note (reason_codes.h).
  std::string engine_lean;
  int64_t escalation_level = 0;
  CaseActor assignee;  // empty type: nobody
  // A proposed resolution waiting for its second reviewer (double approval).
  std::string pending_action;
  std::vector<std::string> pending_reason_codes;
  CaseActor pending_by;
  std::string pending_applicant_message;  // sealed; the proposal's, confirmed with it unless replaced

  static constexpr auto Fields() {
    using T = CaseState;
    return std::tuple{
        core::Field("exists", &T::exists),
        core::Field("status", &T::status),
        core::Field("sessionId", &T::session_id),
        core::Field("priority", &T::priority, core::Empty::kOmit),
        core::Field("engineLean", &T::engine_lean, core::Empty::kOmit),
        core::Field("escalationLevel", &T::escalation_level, core::Empty::kOmit),
        core::Field("assignee", &T::assignee),
        core::Field("pendingAction", &T::pending_action, core::Empty::kOmit),
        core::Field("pendingReasonCodes", &T::pending_reason_codes, core::Empty::kOmit),
        core::Field("pendingBy", &T::pending_by),
        core::Field("pendingApplicantMessage", &T::pending_applicant_message, core::Empty::kOmit)};
  }
  bool Finished() const { return status == "resolved" || status == "closed"; }
};

struct OpenCase {
  CaseOpened opened;
  static constexpr std::string_view kCommand = "OpenCase";
  static constexpr auto Fields() {
    using T = OpenCase;
    return std::tuple{core::Field("opened", &T::opened)};
  }
};
struct ClaimCase {
  CaseActor by;
  bool by_supervisor = false;  // a supervisor or an API key: an escalated case is theirs to claim
  static constexpr std::string_view kCommand = "ClaimCase";
  static constexpr auto Fields() {
    using T = ClaimCase;
    return std::tuple{core::Field("by", &T::by), core::Field("bySupervisor", &T::by_supervisor, core::Empty::kOmit)};
  }
};
struct ReleaseCase {
  CaseActor by;
  static constexpr std::string_view kCommand = "ReleaseCase";
  static constexpr auto Fields() {
    using T = ReleaseCase;
    return std::tuple{core::Field("by", &T::by)};
  }
};
struct ReassignCase {
  std::string user_id;
  bool target_is_reviewer = false;  // checked by the caller against the tenant's reviewers
  CaseActor by;
  // The caller is a supervisor (or an integration's API key): it may reassign a case another
  // reviewer holds; a reviewer reassigns only a free case or their own (PERMISSION_DENIED).
  bool by_supervisor = false;
  static constexpr std::string_view kCommand = "ReassignCase";
  static constexpr auto Fields() {
    using T = ReassignCase;
    return std::tuple{core::Field("userId", &T::user_id),
                      core::Field("targetIsReviewer", &T::target_is_reviewer),
                      core::Field("by", &T::by),
                      core::Field("bySupervisor", &T::by_supervisor, core::Empty::kOmit)};
  }
};
struct AddCaseNote {
  CaseActor by;
  std::string note_sealed;
  static constexpr std::string_view kCommand = "AddCaseNote";
  static constexpr auto Fields() {
    using T = AddCaseNote;
    return std::tuple{core::Field("by", &T::by),
                      core::Field("noteSealed", &T::note_sealed)};
  }
};
struct ResolveCase {
  std::string action;  // approve | decline | request_more_info | escalate | note | assign
  std::vector<std::string> reason_codes;
  std::string note_sealed;
  // request_more_info only: the reviewer's words to the applicant, sealed under the session's key
  // (pipeline/verification/requested_input.h); shown on the applicant's page, the session and the
  // webhook, never in the log in clear.
  std::string applicant_message_sealed;
  CaseActor by;
  // The case's tenant: its review policy (the tenant aggregate) decides whether the resolution
  // needs a second reviewer, with the trust score of the session's latest verdict (the session
  // aggregate), both read in the tenant's strand (NeedsSecondApproval).
  std::string tenant_id;
  bool double_approval = false;  // set by the reading Decide; a test may set it directly
  bool by_supervisor = false;    // "assign" is a claim: an escalated case is a supervisor's (ClaimCase)
  static constexpr std::string_view kCommand = "ResolveCase";
  static constexpr auto Fields() {
    using T = ResolveCase;
    return std::tuple{core::Field("action", &T::action),
                      core::Field("reasonCodes", &T::reason_codes),
                      core::Field("noteSealed", &T::note_sealed),
                      core::Field("applicantMessageSealed", &T::applicant_message_sealed, core::Empty::kOmit),
                      core::Field("by", &T::by),
                      core::Field("tenantId", &T::tenant_id),
                      core::Field("doubleApproval", &T::double_approval),
                      core::Field("bySupervisor", &T::by_supervisor, core::Empty::kOmit)};
  }
};

// Whether the tenant's review policy asks a second reviewer for a resolution: `mode` none |
// declines | all; approvals of sessions whose trust score is under `trust_below` (0: off) too.
// Only approve, decline and request_more_info are ever doubled.
bool NeedsSecondApproval(std::string_view mode, double trust_below, std::string_view action, const core::Json& trust);
using CaseCommand = std::variant<OpenCase, ClaimCase, ReleaseCase, ReassignCase, AddCaseNote, ResolveCase>;

struct CaseDecider : FieldSnapshots<CaseDecider, CaseState> {
  using CommandType = CaseCommand;
  static constexpr std::string_view kName = "review_case";
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;
  static core::Result<Decision> Decide(const CaseState& s, const CaseCommand& c,
                                       const CommandContext& ctx);
  // The same, reading the tenant's review policy and the session's trust score for a resolution
  // (MakeReadingCommand).
  static core::Result<Decision> Decide(const CaseState& s, const CaseCommand& c, const StateReader& read,
                                       const CommandContext& ctx);
  static core::Status Evolve(CaseState& s, const eventstore::EventEnvelope& e);
};

// The case id the pipeline uses for a submission: cas_ + 32 hex of SHA-256(tracking id).
std::string CaseIdForTracking(std::string_view tracking_id);

// The priority policy (docs/review.md#priorities): from the verdict's reason codes.
std::string CasePriorityFor(const std::vector<std::string>& reason_codes);
// One step up: low -> medium -> high -> critical (critical stays).
std::string RaisedPriority(std::string_view priority);
// The priority a stored case states ("normal", from before the policy, reads as medium).
std::string CanonicalPriority(std::string_view priority);

}  // namespace svc::commands::review
