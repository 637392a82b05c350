#include "commands/webhooks/delivery_decider.h"

namespace svc::commands::webhooks {

core::Result<Decision> DeliveryDecider::Decide(const DeliveryState& s, const DeliveryCommand& command,
                                               const CommandContext&) {
  Decision d;
  if (const auto* r = std::get_if<RetryDelivery>(&command)) {
    DeliveryRetried e{r->new_delivery_id, r->endpoint_id};
    d.events.push_back(NewEvent{std::string(DeliveryRetried::kType), DeliveryRetried::kSchema,
                                EncodeData(DeliveryEvent(e))});
    d.result = {{"deliveryId", r->new_delivery_id}};
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
  d.events.push_back(NewEvent{std::string(DeliveryAttempted::kType), DeliveryAttempted::kSchema,
                              EncodeData(DeliveryEvent(e))});
  return d;
}

core::Status DeliveryDecider::Evolve(DeliveryState& s, const eventstore::EventEnvelope& e) {
  if (e.type != kDeliveryAttempted) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(DeliveryEvent event, DecodeDeliveryEvent(e));
  const auto& a = std::get<DeliveryAttempted>(event);
  s.attempts = a.attempt;
  s.status = a.outcome == "delivered" ? "sent" : a.outcome == "failed" ? "failed" : "pending";
  return core::Status::Ok();
}

core::Json DeliveryDecider::ToJson(const DeliveryState& s) { return core::EncodeFields(s); }

core::Result<DeliveryState> DeliveryDecider::FromJson(std::string_view text) {
  core::Json j = core::ParseJsonOrDiscarded(text);
  if (!j.is_object()) return core::DataLoss("webhook delivery state is not a JSON object");
  DeliveryState s;
  core::DecodeFields(j, s);
  return s;
}

}  // namespace svc::commands::webhooks
