#include "commands/webhooks/endpoint_events.h"

#include "commands/event_codec.h"

namespace svc::commands::webhooks {


std::string EncodeData(const EndpointEvent& event) { return EncodeEventData(event); }
std::string EncodeData(const DeliveryEvent& event) { return EncodeEventData(event); }
core::Result<EndpointEvent> DecodeEndpointEvent(const eventstore::EventEnvelope& env) {
  return DecodeEvent<EndpointEvent>(env, "webhook endpoint");
}
core::Result<DeliveryEvent> DecodeDeliveryEvent(const eventstore::EventEnvelope& env) {
  return DecodeEvent<DeliveryEvent>(env, "webhook delivery");
}

}  // namespace svc::commands::webhooks
