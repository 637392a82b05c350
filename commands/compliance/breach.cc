#include "commands/compliance/breach.h"

#include "commands/event_codec.h"

namespace svc::commands::compliance {

core::Result<Decision> BreachDecider::Decide(const BreachState& s, const NotifyBreach& c, const CommandContext&) {
  if (s.exists) return core::AlreadyExists("the breach notification exists", "CONFLICT");
  Decision d;
  d.events.push_back(NewEventOf(BreachEvent(c.notified)));
  // The answer (BreachNotificationResponse), kept with the idempotency record: a replay answers
  // the same.
  d.result = {{"object", "compliance.breach_notification"},
              {"breachId", c.breach_id},
              {"detectedAt", core::FormatRfc3339(core::Timestamp{c.notified.detected_micros})},
              {"scope", c.notified.scope},
              {"severity", c.notified.severity}};
  return d;
}

core::Status BreachDecider::Evolve(BreachState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(BreachEvent event, DecodeBreach(e));
  (void)event;
  s.exists = true;
  return core::Status::Ok();
}

core::Json BreachDecider::ResultOf(const std::vector<eventstore::EventEnvelope>& events) {
  for (const auto& e : events) {
    const core::Json d = core::ParseJsonOrDiscarded(e.data);
    if (e.type != BreachNotified::kType || !d.is_object()) continue;
    return {{"object", "compliance.breach_notification"},
            {"breachId", e.aggregate_id},
            {"detectedAt", core::FormatRfc3339(core::Timestamp{d.value("detected", int64_t{0})})},
            {"scope", d.value("scope", "")},
            {"severity", d.value("severity", "")}};
  }
  return nullptr;
}

}  // namespace svc::commands::compliance
