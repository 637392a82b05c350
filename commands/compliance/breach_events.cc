#include "commands/compliance/breach.h"
#include "commands/event_codec.h"

namespace svc::commands::compliance {

core::Result<BreachEvent> DecodeBreach(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<BreachEvent>(envelope, "breach notification");
}

}  // namespace svc::commands::compliance
