#pragma once
// Review case events (aggregate "review_case", id cas_…): opened by the verification pipeline,
// then worked by reviewers — claimed, released, reassigned, annotated, escalated, resolved (with a
// proposal first when the tenant's double-approval policy applies). An actor is a reviewer user
// (usr_…) or an API key acting as an integration (key_…). A note is free text a reviewer wrote and
// may hold personal data: events carry it sealed under the case's session key, never in clear.

#include <string>
#include <variant>
#include <vector>

#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::review {

struct CaseOpened {
  static constexpr std::string_view kType = "review.case_opened";
  std::string session_id;
  std::string tracking_id;
  std::string reason;  // short, no personal data
  std::vector<std::string> reason_codes;
  std::string priority = "normal";
  std::string application_id;  // the session's application (absent from cases opened before it)

  static constexpr auto Fields() {
    using T = CaseOpened;
    return std::tuple{core::Field("sessionId", &T::session_id),
                      core::Field("trackingId", &T::tracking_id), core::Field("reason", &T::reason),
                      core::Field("reasonCodes", &T::reason_codes),
                      core::Field("priority", &T::priority),
                      core::Field("applicationId", &T::application_id, core::Empty::kOmit)};
  }
};

// Who acted: a reviewer user or an API key.
struct CaseActor {
  std::string type;  // user | api_key
  std::string id;    // usr_… | key_…
  static constexpr auto Fields() {
    return std::tuple{core::Field("type", &CaseActor::type), core::Field("id", &CaseActor::id)};
  }
  bool operator==(const CaseActor&) const = default;
};

struct CaseClaimed {
  static constexpr std::string_view kType = "review.case_claimed";
  CaseActor by;
  static constexpr auto Fields() { return std::tuple{core::Field("by", &CaseClaimed::by)}; }
};

struct CaseReleased {
  static constexpr std::string_view kType = "review.case_released";
  CaseActor by;
  static constexpr auto Fields() { return std::tuple{core::Field("by", &CaseReleased::by)}; }
};

struct CaseReassigned {
  static constexpr std::string_view kType = "review.case_reassigned";
  std::string user_id;  // the new assignee
  CaseActor by;
  static constexpr auto Fields() {
    return std::tuple{core::Field("userId", &CaseReassigned::user_id),
                      core::Field("by", &CaseReassigned::by)};
  }
};

struct CaseNoteAdded {
  static constexpr std::string_view kType = "review.note_added";
  CaseActor by;
  std::string note_sealed;  // base64, under the session's data key
  static constexpr auto Fields() {
    return std::tuple{core::Field("by", &CaseNoteAdded::by),
                      core::Field("noteSealed", &CaseNoteAdded::note_sealed)};
  }
};

struct CaseEscalated {
  static constexpr std::string_view kType = "review.case_escalated";
  std::string session_id;  // the case's session ("" none)
  int64_t level = 1;       // 1 for the first escalation
  std::string priority;    // after the escalation
  CaseActor by;
  std::string note_sealed;
  static constexpr auto Fields() {
    using T = CaseEscalated;
    return std::tuple{core::Field("sessionId", &T::session_id, core::Empty::kNull),
                      core::Field("level", &T::level), core::Field("priority", &T::priority),
                      core::Field("by", &T::by),
                      core::Field("noteSealed", &T::note_sealed, core::Empty::kNull)};
  }
};

// The first of two resolutions the double-approval policy asks for: recorded, not final.
struct ResolutionProposed {
  static constexpr std::string_view kType = "review.resolution_proposed";
  std::string action;  // approve | decline | request_more_info
  std::vector<std::string> reason_codes;
  CaseActor by;
  std::string note_sealed;
  std::string applicant_message_sealed;  // request_more_info: the words for the applicant, sealed
  static constexpr auto Fields() {
    using T = ResolutionProposed;
    return std::tuple{core::Field("action", &T::action),
                      core::Field("reasonCodes", &T::reason_codes), core::Field("by", &T::by),
                      core::Field("noteSealed", &T::note_sealed, core::Empty::kNull),
                      core::Field("applicantMessageSealed", &T::applicant_message_sealed, core::Empty::kOmit)};
  }
};

struct CaseResolved {
  static constexpr std::string_view kType = "review.case_resolved";
  std::string action;  // approve | decline (the case is resolved) | request_more_info (closed)
  std::vector<std::string> reason_codes;
  CaseActor by;
  std::vector<CaseActor> approvers;  // everyone whose resolution it is (two under double approval)
  std::string note_sealed;
  // request_more_info: the reviewer's words for the applicant, sealed under the session's key
  // (pipeline/verification/requested_input.h); carried to the session's verdict.
  std::string applicant_message_sealed;
  static constexpr auto Fields() {
    using T = CaseResolved;
    return std::tuple{core::Field("action", &T::action),
                      core::Field("reasonCodes", &T::reason_codes), core::Field("by", &T::by),
                      core::Field("approvers", &T::approvers),
                      core::Field("noteSealed", &T::note_sealed, core::Empty::kNull),
                      core::Field("applicantMessageSealed", &T::applicant_message_sealed, core::Empty::kOmit)};
  }
};

using CaseEvent = std::variant<CaseOpened, CaseClaimed, CaseReleased, CaseReassigned, CaseNoteAdded, CaseEscalated,
                               ResolutionProposed, CaseResolved>;

std::string EncodeData(const CaseEvent& e);
core::Result<CaseEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::review
