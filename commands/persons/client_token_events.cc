// The client token's event codec (in the events library: projectors read these events).
#include "commands/event_codec.h"
#include "commands/persons/client_token.h"

namespace svc::commands::persons {

core::Result<ClientTokenEvent> DecodeClientToken(const eventstore::EventEnvelope& env) {
  return DecodeEvent<ClientTokenEvent>(env, "client token");
}

std::string EncodeClientTokenData(const ClientTokenEvent& event) { return EncodeEventData(event); }

}  // namespace svc::commands::persons
