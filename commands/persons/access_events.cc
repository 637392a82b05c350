#include "commands/persons/access_events.h"

#include "commands/event_codec.h"

namespace svc::commands::persons {

core::Result<AccessEvent> DecodeAccess(const eventstore::EventEnvelope& env) {
  return DecodeEvent<AccessEvent>(env, "reveal budget");
}

std::string EncodeAccessData(const AccessEvent& event) { return EncodeEventData(event); }

}  // namespace svc::commands::persons
