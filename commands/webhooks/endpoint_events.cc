#include "commands/webhooks/endpoint_events.h"

#include "commands/event_codec.h"

namespace svc::commands::webhooks {

namespace {

template <class Variant>
core::Result<Variant> DecodeAny(const eventstore::EventEnvelope& env, std::string_view what) {
  core::Json j = core::ParseJsonOrDiscarded(env.data);
  if (!j.is_object()) return core::DataLoss(std::string(what) + " event data is not an object");
  if (auto e = DecodeEventData<Variant>(env.type, j)) return std::move(*e);
  return core::InvalidArgument("not a " + std::string(what) + " event: " + env.type);
}

}  // namespace

std::string EncodeData(const EndpointEvent& event) { return EncodeEventData(event); }
std::string EncodeData(const DeliveryEvent& event) { return EncodeEventData(event); }
core::Result<EndpointEvent> DecodeEndpointEvent(const eventstore::EventEnvelope& env) {
  return DecodeAny<EndpointEvent>(env, "webhook endpoint");
}
core::Result<DeliveryEvent> DecodeDeliveryEvent(const eventstore::EventEnvelope& env) {
  return DecodeAny<DeliveryEvent>(env, "webhook delivery");
}

}  // namespace svc::commands::webhooks
