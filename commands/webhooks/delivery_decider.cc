#include "commands/webhooks/delivery_decider.h"

#include <algorithm>

#include "commands/event_codec.h"

namespace svc::commands::webhooks {

core::Result<Decision> DeliveryDecider::Decide(const DeliveryState& s, const DeliveryCommand& command,
                                               const CommandContext&) {
  Decision d;
  if (const auto* r = std::get_if<RetryDelivery>(&command)) {
    d.events.push_back(NewEventOf(DeliveryEvent(DeliveryRetried{r->new_delivery_id, r->endpoint_id})));
    d.result = {{"deliveryId", r->new_delivery_id}};
    return d;
  }
  if (const auto* st = std::get_if<StartAttempt>(&command)) {
    // Only the next attempt, only once: a start that is not appended is not posted.
    if (s.status != "pending" || st->attempt != s.attempts + 1 || s.started >= st->attempt) return d;
    d.events.push_back(
        NewEventOf(DeliveryEvent(DeliveryAttemptStarted{st->endpoint_id, st->attempt, st->lease_until_micros})));
    return d;
  }
  const auto& c = std::get<RecordAttempt>(command);
  if (s.status != "pending" || c.attempt != s.attempts + 1) return d;  // recorded before: no-op
  if (c.outcome != "delivered" && c.outcome != "retrying" && c.outcome != "failed") {
    return core::InvalidArgument("unknown delivery outcome: " + c.outcome);
  }
  DeliveryAttempted e{c.endpoint_id, c.attempt,   c.status_code > 0 ? c.status_code : 0,
                      c.error,       c.latency_ms, c.outcome,
                      c.next_retry_at_micros};
  d.events.push_back(NewEventOf(DeliveryEvent(e)));
  return d;
}

core::Status DeliveryDecider::Evolve(DeliveryState& s, const eventstore::EventEnvelope& e) {
  if (e.type == kDeliveryAttemptStarted) {
    SVC_ASSIGN_OR_RETURN(DeliveryEvent event, DecodeDeliveryEvent(e));
    s.started = std::max(s.started, std::get<DeliveryAttemptStarted>(event).attempt);
    return core::Status::Ok();
  }
  if (e.type != kDeliveryAttempted) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(DeliveryEvent event, DecodeDeliveryEvent(e));
  const auto& a = std::get<DeliveryAttempted>(event);
  s.attempts = a.attempt;
  s.started = std::max(s.started, a.attempt);
  s.status = a.outcome == "delivered" ? "sent" : a.outcome == "failed" ? "failed" : "pending";
  return core::Status::Ok();
}

core::Json DeliveryDecider::ResultOf(const std::vector<eventstore::EventEnvelope>& events) {
  for (const auto& e : events) {
    const core::Json d = core::ParseJsonOrDiscarded(e.data);
    if (e.type == kDeliveryRetried && d.is_object()) return {{"deliveryId", d.value("newDeliveryId", "")}};
  }
  return nullptr;
}

}  // namespace svc::commands::webhooks
