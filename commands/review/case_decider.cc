#include "commands/review/case_decider.h"

#include "commands/review/case_status.h"
#include "commands/review/reason_codes.h"

#include <algorithm>
#include <array>

#include "commands/event_codec.h"
#include "commands/tenancy/tenant_decider.h"
#include "commands/verification/session_decider.h"
#include "core/crypto.h"

namespace svc::commands::review {

std::string CaseIdForTracking(std::string_view tracking_id) {
  return "cas_" + core::Sha256Hex("svc/case/v1|" + std::string(tracking_id)).substr(0, 32);
}

namespace {

// "Requiere a un supervisor": an escalated case goes to a supervisor (or an API key), not back to
// any reviewer (issue 69, item 9).
core::Status MayTake(const CaseState& s, const CaseActor& by, bool by_supervisor) {
  if (s.status == "escalated" && !by_supervisor && !(s.assignee == by)) {
    return core::PermissionDenied("an escalated case is taken by a supervisor", "PERMISSION_DENIED");
  }
  return core::Status::Ok();
}

bool Among(std::string_view code, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), code) != set.end();
}

NewEvent Make(const CaseEvent& e) { return NewEventOf(e); }

core::Status MustExist(const CaseState& s) {
  if (!s.exists) return core::NotFound("no such review case", "CASE_NOT_FOUND");
  return core::Status::Ok();
}

core::Status MustBeOpen(const CaseState& s) {
  SVC_RETURN_IF_ERROR(MustExist(s));
  if (s.Finished()) return core::FailedPrecondition("the case is " + s.status, "CASE_CLOSED");
  return core::Status::Ok();
}

core::Status MustHold(const CaseState& s, const CaseActor& by) {
  SVC_RETURN_IF_ERROR(MustBeOpen(s));
  if (!(s.assignee == by)) {
    return core::FailedPrecondition("this needs the case's claim: claim it first", "CASE_CLAIM_REQUIRED");
  }
  return core::Status::Ok();
}

// The reviewer's reasons: each from the catalogue for the action; none gives the action's own.
core::Status CheckReasons(ResolveCase& c) {
  if (DefaultReason(c.action).empty()) return core::Status::Ok();  // note, assign: no reasons
  for (const auto& code : c.reason_codes) {
    if (FindReason(c.action, code) == nullptr) {
      return core::InvalidArgument("reasonCodes: " + code + " is not a reason of the catalogue for " + c.action +
                                       " (GET /v1/review/reason-codes)",
                                   "VALIDATION_ERROR");
    }
  }
  if (c.reason_codes.empty()) c.reason_codes.emplace_back(DefaultReason(c.action));
  return core::Status::Ok();
}

core::Result<Decision> DecideResolve(const CaseState& s, ResolveCase c) {
  Decision d;
  SVC_RETURN_IF_ERROR(CheckReasons(c));
  if (!c.applicant_message_sealed.empty() && c.action != "request_more_info") {
    return core::InvalidArgument("applicantMessage goes with request_more_info only", "VALIDATION_ERROR");
  }
  if (c.action == "note") {
    SVC_RETURN_IF_ERROR(MustHold(s, c.by));
    d.events.push_back(Make(CaseNoteAdded{c.by, c.note_sealed}));
    d.result = {{"outcome", nullptr}, {"awaitingSecondApproval", !s.pending_action.empty()}};
    return d;
  }
  if (c.action == "assign") {  // the caller takes the case: a claim from the resolve route
    SVC_RETURN_IF_ERROR(MustBeOpen(s));
    SVC_RETURN_IF_ERROR(MayTake(s, c.by, c.by_supervisor));
    if (!s.assignee.type.empty() && !(s.assignee == c.by)) {
      return core::FailedPrecondition("another reviewer holds the case", "CASE_ALREADY_CLAIMED");
    }
    if (s.assignee.type.empty()) d.events.push_back(Make(CaseClaimed{c.by}));
    d.result = {{"outcome", nullptr}, {"awaitingSecondApproval", !s.pending_action.empty()}};
    return d;
  }
  SVC_RETURN_IF_ERROR(MustHold(s, c.by));
  if (c.action == "escalate") {
    d.events.push_back(
        Make(CaseEscalated{s.session_id, s.escalation_level + 1, RaisedPriority(s.priority), c.by, c.note_sealed}));
    d.result = {{"outcome", nullptr}, {"awaitingSecondApproval", false}};
    return d;
  }
  if (c.action != "approve" && c.action != "decline" && c.action != "request_more_info") {
    return core::InvalidArgument("action must be approve, decline, request_more_info, escalate, note or assign",
                                 "VALIDATION_ERROR");
  }
  if (s.session_id.empty()) {
    return core::FailedPrecondition("the case has no verification session to resolve", "CASE_HAS_NO_SESSION");
  }
  if (IsOverride(s.engine_lean, c.action) && c.note_sealed.empty()) {
    return core::InvalidArgument(std::string(c.action == "approve" ? "approving a case the engine opened for a signal "
                                                                     "against the applicant"
                                                                   : "declining a case the engine found nothing against") +
                                     " overrides the engine: write a note saying why",
                                 "VALIDATION_ERROR");
  }
  const bool second = !s.pending_action.empty();
  if (second && s.pending_by == c.by) {
    return core::FailedPrecondition("a second, different reviewer must confirm this resolution",
                                    "SECOND_APPROVAL_REQUIRED");
  }
  if ((c.double_approval && !second) || (second && s.pending_action != c.action)) {
    // The first of two (or a second reviewer who disagrees: theirs becomes the proposal).
    d.events.push_back(Make(ResolutionProposed{c.action, c.reason_codes, c.by, c.note_sealed, c.applicant_message_sealed}));
    d.result = {{"outcome", nullptr}, {"awaitingSecondApproval", true}};
    return d;
  }
  // A confirmation without words for the applicant confirms the proposal's.
  CaseResolved r{c.action, c.reason_codes, c.by, {}, c.note_sealed,
                 !c.applicant_message_sealed.empty() || !second ? c.applicant_message_sealed : s.pending_applicant_message};
  if (second) r.approvers.push_back(s.pending_by);
  r.approvers.push_back(c.by);
  d.events.push_back(Make(r));
  core::Json approvers = core::Json::array();
  for (const auto& a : r.approvers) approvers.push_back({{"type", a.type}, {"id", a.id}});
  d.result = {{"outcome", c.action == "approve" ? "approved" : c.action == "decline" ? "declined" : "awaiting_input"},
              {"awaitingSecondApproval", false},
              {"approvers", approvers}};
  return d;
}

}  // namespace

std::string CasePriorityFor(const std::vector<std::string>& codes) {
  bool any = false, all_low = true, high = false;
  for (const auto& c : codes) {
    any = true;
    if (Among(c, {"GOV_CURP_DECEASED", "LIVENESS_FACE_MISMATCH"})) return "critical";
    high |= Among(c, {"FACE_MISMATCH", "GOV_DATA_MISMATCH", "DOCUMENT_DATA_INCONSISTENT", "DOCUMENT_MRZ_INVALID",
                      "DOCUMENT_CURP_INVALID", "DOCUMENT_EXPIRED", "LIVENESS_FAILED", "NOT_AN_INE", "INE_NOT_IN_LIST",
                      "INE_CREDENTIAL_NOT_VALID", "GOV_CURP_NOT_FOUND", "LIVENESS_FILE_UPLOAD",
                      // a suspected attack: a deepfake, a virtual camera, a re-encoded or edited video
                      "DEEPFAKE_SUSPECTED", "VIRTUAL_CAMERA", "CONTAINER_REENCODED", "CONTAINER_EDITED"});
    all_low &= Among(c, {"GOV_LOOKUP_UNAVAILABLE", "INE_LOOKUP_UNAVAILABLE", "DOCUMENT_READER_UNAVAILABLE",
                         "CAPTURE_ANALYSIS_ERROR", "DOCUMENT_ANALYSIS_ERROR", "IMAGE_QUALITY_LOW"});
  }
  if (high) return "high";
  if (any && all_low) return "low";
  return "medium";
}

std::string CanonicalPriority(std::string_view p) {
  if (p == "low" || p == "medium" || p == "high" || p == "critical") return std::string(p);
  return "medium";
}

std::string RaisedPriority(std::string_view p) {
  const std::string c = CanonicalPriority(p);
  if (c == "low") return "medium";
  if (c == "medium") return "high";
  return "critical";
}

core::Result<Decision> CaseDecider::Decide(const CaseState& s, const CaseCommand& command, const CommandContext&) {
  Decision d;
  return std::visit(
      [&](const auto& c) -> core::Result<Decision> {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, OpenCase>) {
          if (s.exists) return d;  // opened already: a resumed pipeline
          d.events.push_back(Make(c.opened));
        } else if constexpr (std::is_same_v<T, ClaimCase>) {
          SVC_RETURN_IF_ERROR(MustBeOpen(s));
          SVC_RETURN_IF_ERROR(MayTake(s, c.by, c.by_supervisor));
          if (!s.assignee.type.empty() && !(s.assignee == c.by)) {
            return core::FailedPrecondition("another reviewer holds the case", "CASE_ALREADY_CLAIMED");
          }
          if (s.assignee.type.empty()) d.events.push_back(Make(CaseClaimed{c.by}));  // a second claim: as the first
        } else if constexpr (std::is_same_v<T, ReleaseCase>) {
          SVC_RETURN_IF_ERROR(MustHold(s, c.by));
          d.events.push_back(Make(CaseReleased{c.by}));
        } else if constexpr (std::is_same_v<T, ReassignCase>) {
          SVC_RETURN_IF_ERROR(MustBeOpen(s));
          if (!c.target_is_reviewer) {
            return core::InvalidArgument("the assignee is not an active reviewer of the tenant", "NOT_A_REVIEWER");
          }
          if (!s.assignee.type.empty() && !(s.assignee == c.by) && !c.by_supervisor) {
            return core::PermissionDenied("another reviewer holds the case: only a supervisor reassigns it",
                                          "PERMISSION_DENIED");
          }
          if (!(s.assignee == CaseActor{"user", c.user_id})) d.events.push_back(Make(CaseReassigned{c.user_id, c.by}));
        } else if constexpr (std::is_same_v<T, AddCaseNote>) {
          SVC_RETURN_IF_ERROR(MustExist(s));  // no claim needed; a finished case takes notes too
          d.events.push_back(Make(CaseNoteAdded{c.by, c.note_sealed}));
        } else {
          return DecideResolve(s, c);
        }
        return d;
      },
      command);
}

core::Status CaseDecider::Evolve(CaseState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(CaseEvent ev, Decode(e));
  if (auto status = CaseStatusAfter(ev, s.escalation_level)) s.status = std::string(*status);
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, CaseOpened>) {
          s.exists = true;
          s.session_id = x.session_id;
          s.priority = CanonicalPriority(x.priority);
          s.engine_lean = std::string(EngineLean(s.priority));
        } else if constexpr (std::is_same_v<T, CaseClaimed>) {
          s.assignee = x.by;
        } else if constexpr (std::is_same_v<T, CaseReleased>) {
          s.assignee = {};
        } else if constexpr (std::is_same_v<T, CaseReassigned>) {
          s.assignee = CaseActor{"user", x.user_id};
        } else if constexpr (std::is_same_v<T, CaseEscalated>) {
          s.escalation_level = x.level;
          s.priority = x.priority;
          s.assignee = {};
        } else if constexpr (std::is_same_v<T, ResolutionProposed>) {
          s.pending_action = x.action;
          s.pending_reason_codes = x.reason_codes;
          s.pending_by = x.by;
          s.pending_applicant_message = x.applicant_message_sealed;
          s.assignee = {};
        } else if constexpr (std::is_same_v<T, CaseResolved>) {
          s.pending_action.clear();
          s.pending_reason_codes.clear();
          s.pending_by = {};
          s.pending_applicant_message.clear();
        }
      },
      ev);
  return core::Status::Ok();
}

bool NeedsSecondApproval(std::string_view mode, double trust_below, std::string_view action, const core::Json& trust) {
  if (action != "approve" && action != "decline" && action != "request_more_info") return false;
  if (mode == "all") return true;
  if (mode == "declines" && action == "decline") return true;
  return action == "approve" && trust_below > 0 && trust.is_number() && trust.get<double>() < trust_below;
}

core::Result<Decision> CaseDecider::Decide(const CaseState& s, const CaseCommand& c, const StateReader& read,
                                           const CommandContext& ctx) {
  const auto* resolve = std::get_if<ResolveCase>(&c);
  if (resolve == nullptr) return Decide(s, c, ctx);
  ResolveCase r = *resolve;
  SVC_ASSIGN_OR_RETURN(AggregateView tenant, read(tenancy::TenantDecider::kName, r.tenant_id));
  const auto& t = StateOf<tenancy::TenantDecider>(tenant);
  core::Json trust;
  if (!s.session_id.empty()) {
    SVC_ASSIGN_OR_RETURN(AggregateView session, read(verification::SessionDecider::kName, s.session_id));
    trust = StateOf<verification::SessionDecider>(session).trust_score;
  }
  r.double_approval = NeedsSecondApproval(t.review_double_approval, t.review_trust_below, r.action, trust);
  return Decide(s, CaseCommand(r), ctx);
}

}  // namespace svc::commands::review
