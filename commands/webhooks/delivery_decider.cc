#include "commands/webhooks/delivery_decider.h"

namespace svc::commands::webhooks {

core::Result<Decision> DeliveryDecider::Decide(const DeliveryState& s, const DeliveryCommand& command,
                                               const CommandContext&) {
  Decision d;
  if (const auto* r = std::get_if<RetryDelivery>(&command)) {
    d.events.push_back(NewEvent{std::string(kDeliveryRetried), 1,
                                core::DumpJson({{"newDeliveryId", r->new_delivery_id},
                                                {"endpointId", r->endpoint_id}})});
    d.result = {{"deliveryId", r->new_delivery_id}};
    return d;
  }
  const auto& c = std::get<RecordAttempt>(command);
  if (s.status != "pending" || c.attempt != s.attempts + 1) return d;  // recorded before: no-op
  if (c.outcome != "delivered" && c.outcome != "retrying" && c.outcome != "failed") {
    return core::InvalidArgument("unknown delivery outcome: " + c.outcome);
  }
  core::Json data = {{"endpointId", c.endpoint_id},
                     {"attempt", c.attempt},
                     {"statusCode", c.status_code > 0 ? core::Json(c.status_code) : core::Json(nullptr)},
                     {"error", c.error.empty() ? core::Json(nullptr) : core::Json(c.error)},
                     {"latencyMs", c.latency_ms},
                     {"outcome", c.outcome},
                     {"nextRetryAtMicros", c.next_retry_at_micros}};
  d.events.push_back(NewEvent{std::string(kDeliveryAttempted), 1, core::DumpJson(data)});
  return d;
}

core::Status DeliveryDecider::Evolve(DeliveryState& s, const eventstore::EventEnvelope& e) {
  if (e.type != kDeliveryAttempted) return core::Status::Ok();
  core::Json j = core::ParseJsonOrDiscarded(e.data);
  s.attempts = j.value("attempt", s.attempts + 1);
  std::string outcome = j.value("outcome", "");
  s.status = outcome == "delivered" ? "sent" : outcome == "failed" ? "failed" : "pending";
  return core::Status::Ok();
}

core::Json DeliveryDecider::ToJson(const DeliveryState& s) {
  return {{"attempts", s.attempts}, {"status", s.status}};
}

core::Result<DeliveryState> DeliveryDecider::FromJson(std::string_view text) {
  core::Json j = core::ParseJsonOrDiscarded(text);
  if (!j.is_object()) return core::DataLoss("webhook delivery state is not a JSON object");
  DeliveryState s;
  s.attempts = j.value("attempts", 0);
  s.status = j.value("status", "pending");
  return s;
}

}  // namespace svc::commands::webhooks
