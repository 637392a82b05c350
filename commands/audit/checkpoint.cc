#include "commands/audit/checkpoint.h"

#include "commands/event_codec.h"

namespace svc::commands::audit {

core::Result<Decision> AuditLogDecider::Decide(const AuditLogState& s, const PublishCheckpoint& c,
                                               const CommandContext&) {
  if (c.checkpoint.tree_size < 1 || c.checkpoint.root_hash.size() != 64 || c.checkpoint.checkpoint.empty()) {
    return core::InvalidArgument("a checkpoint needs a size, a root hash and the signed note");
  }
  Decision d;
  d.result = {{"published", c.checkpoint.tree_size > s.published_size}};
  if (c.checkpoint.tree_size > s.published_size) d.events.push_back(NewEventOf(AuditLogEvent(c.checkpoint)));
  return d;
}

core::Status AuditLogDecider::Evolve(AuditLogState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(AuditLogEvent event, DecodeAuditLog(e));
  s.published_size = std::get<CheckpointPublished>(event).tree_size;
  return core::Status::Ok();
}

}  // namespace svc::commands::audit
