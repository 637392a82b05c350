#include "commands/persons/access_events.h"

#include "commands/event_codec.h"

namespace svc::commands::persons {

core::Result<AccessEvent> DecodeAccess(const eventstore::EventEnvelope& env) {
  return DecodeEvent<AccessEvent>(env, "reveal budget");
}

}  // namespace svc::commands::persons
