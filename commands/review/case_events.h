#pragma once
// Review case events (aggregate "review_case", id cas_…). This issue opens cases from the
// verification pipeline; the review API (claim, resolve, …) adds its events later.

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

  static constexpr auto Fields() {
    using core::Field;
    using T = CaseOpened;
    return std::tuple{Field("sessionId", &T::session_id),
                      Field("trackingId", &T::tracking_id),
                      Field("reason", &T::reason),
                      Field("reasonCodes", &T::reason_codes),
                      Field("priority", &T::priority)};
  }
};

using CaseEvent = std::variant<CaseOpened>;

std::string EncodeData(const CaseEvent& e);
core::Result<CaseEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::review
