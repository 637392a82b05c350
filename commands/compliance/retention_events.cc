#include "commands/compliance/retention.h"
#include "commands/event_codec.h"

namespace svc::commands::compliance {

core::Result<RetentionEvent> DecodeRetention(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<RetentionEvent>(envelope, "retention");
}

}  // namespace svc::commands::compliance
