#include "commands/audit/timestamps.h"
#include "commands/event_codec.h"

namespace svc::commands::audit {

core::Result<TimestampsEvent> DecodeTimestamps(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<TimestampsEvent>(envelope, "evidence timestamps");
}

}  // namespace svc::commands::audit
