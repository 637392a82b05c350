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
  static constexpr int kSchema = 1;
  std::string session_id;
  std::string tracking_id;
  std::string reason;  // short, no personal data
  std::vector<std::string> reason_codes;
  std::string priority = "normal";
  std::string application_id;  // the session's application (absent from cases opened before it)

  static constexpr auto Fields() {
    using core::Field;
    using T = CaseOpened;
    return std::tuple{Field("sessionId", &T::session_id),
                      Field("trackingId", &T::tracking_id),
                      Field("reason", &T::reason),
                      Field("reasonCodes", &T::reason_codes),
                      Field("priority", &T::priority),
                      Field("applicationId", &T::application_id, core::Empty::kOmit)};
  }
};

// Who acted: a reviewer user or an API key.
struct CaseActor {
  std::string type;  // user | api_key
  std::string id;    // usr_… | key_…
  static constexpr auto Fields() {
    using core::Field;
    return std::tuple{Field("type", &CaseActor::type), Field("id", &CaseActor::id)};
  }
  bool operator==(const CaseActor&) const = default;
};

struct CaseClaimed {
  static constexpr std::string_view kType = "review.case_claimed";
  static constexpr int kSchema = 1;
  CaseActor by;
  static constexpr auto Fields() { return std::tuple{core::Field("by", &CaseClaimed::by)}; }
};

struct CaseReleased {
  static constexpr std::string_view kType = "review.case_released";
  static constexpr int kSchema = 1;
  CaseActor by;
  static constexpr auto Fields() { return std::tuple{core::Field("by", &CaseReleased::by)}; }
};

struct CaseReassigned {
  static constexpr std::string_view kType = "review.case_reassigned";
  static constexpr int kSchema = 1;
  std::string user_id;  // the new assignee
  CaseActor by;
  static constexpr auto Fields() {
    using core::Field;
    return std::tuple{Field("userId", &CaseReassigned::user_id), Field("by", &CaseReassigned::by)};
  }
};

struct CaseNoteAdded {
  static constexpr std::string_view kType = "review.note_added";
  static constexpr int kSchema = 1;
  CaseActor by;
  std::string note_sealed;  // base64, under the session's data key
  static constexpr auto Fields() {
    using core::Field;
    return std::tuple{Field("by", &CaseNoteAdded::by), Field("noteSealed", &CaseNoteAdded::note_sealed)};
  }
};

struct CaseEscalated {
  static constexpr std::string_view kType = "review.case_escalated";
  static constexpr int kSchema = 1;
  std::string session_id;  // the case's session ("" none)
  int64_t level = 1;       // 1 for the first escalation
  std::string priority;    // after the escalation
  CaseActor by;
  std::string note_sealed;
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = CaseEscalated;
    return std::tuple{Field("sessionId", &T::session_id, Empty::kNull), Field("level", &T::level),
                      Field("priority", &T::priority), Field("by", &T::by),
                      Field("noteSealed", &T::note_sealed, Empty::kNull)};
  }
};

// The first of two resolutions the double-approval policy asks for: recorded, not final.
struct ResolutionProposed {
  static constexpr std::string_view kType = "review.resolution_proposed";
  static constexpr int kSchema = 1;
  std::string action;  // approve | decline | request_more_info
  std::vector<std::string> reason_codes;
  CaseActor by;
  std::string note_sealed;
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = ResolutionProposed;
    return std::tuple{Field("action", &T::action), Field("reasonCodes", &T::reason_codes), Field("by", &T::by),
                      Field("noteSealed", &T::note_sealed, Empty::kNull)};
  }
};

struct CaseResolved {
  static constexpr std::string_view kType = "review.case_resolved";
  static constexpr int kSchema = 1;
  std::string action;  // approve | decline (the case is resolved) | request_more_info (closed)
  std::vector<std::string> reason_codes;
  CaseActor by;
  std::vector<CaseActor> approvers;  // everyone whose resolution it is (two under double approval)
  std::string note_sealed;
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = CaseResolved;
    return std::tuple{Field("action", &T::action), Field("reasonCodes", &T::reason_codes), Field("by", &T::by),
                      Field("approvers", &T::approvers), Field("noteSealed", &T::note_sealed, Empty::kNull)};
  }
};

using CaseEvent = std::variant<CaseOpened, CaseClaimed, CaseReleased, CaseReassigned, CaseNoteAdded, CaseEscalated,
                               ResolutionProposed, CaseResolved>;

std::string EncodeData(const CaseEvent& e);
core::Result<CaseEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::review
