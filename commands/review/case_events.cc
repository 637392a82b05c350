#include "commands/review/case_events.h"

#include "core/json.h"

namespace svc::commands::review {

std::string EncodeData(const CaseEvent& event) {
  const auto& e = std::get<CaseOpened>(event);
  core::Json j = {{"sessionId", e.session_id},
                  {"trackingId", e.tracking_id},
                  {"reason", e.reason},
                  {"reasonCodes", e.reason_codes},
                  {"priority", e.priority}};
  return core::DumpJson(j);
}

core::Result<CaseEvent> Decode(const eventstore::EventEnvelope& env) {
  core::Json j = core::ParseJsonOrDiscarded(env.data);
  if (!j.is_object()) return core::DataLoss("case event data is not an object");
  if (env.type == CaseOpened::kType) {
    CaseOpened e;
    e.session_id = core::StringOr(j, "sessionId");
    e.tracking_id = core::StringOr(j, "trackingId");
    e.reason = core::StringOr(j, "reason");
    e.priority = core::StringOr(j, "priority", "normal");
    if (auto it = j.find("reasonCodes"); it != j.end() && it->is_array()) {
      for (const auto& v : *it) {
        if (v.is_string()) e.reason_codes.push_back(v.get<std::string>());
      }
    }
    return CaseEvent(std::move(e));
  }
  return core::InvalidArgument("not a review case event: " + env.type);
}

}  // namespace svc::commands::review
