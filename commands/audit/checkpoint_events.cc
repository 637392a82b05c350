#include "commands/audit/checkpoint.h"
#include "commands/event_codec.h"

namespace svc::commands::audit {

core::Result<AuditLogEvent> DecodeAuditLog(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<AuditLogEvent>(envelope, "audit log");
}

}  // namespace svc::commands::audit
