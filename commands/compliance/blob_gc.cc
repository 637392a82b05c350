#include "commands/compliance/blob_gc.h"

#include "commands/event_codec.h"
#include "eventstore/blob_store.h"

namespace svc::commands::compliance {

core::Result<Decision> BlobGcDecider::Decide(const BlobGcState& s, const RecordCollected& c, const CommandContext&) {
  const auto& a = c.collected.addresses;
  if (a.empty()) return core::InvalidArgument("a collection record names no object");
  if (a.size() > kMaxCollectedPerEvent) return core::InvalidArgument("a collection record names over 1,000 objects");
  for (const auto& address : a) {
    if (!eventstore::ValidBlobAddress(address)) return core::InvalidArgument("not a blob address");
  }
  if (c.collected.bytes < 0 || c.collected.grace_seconds < 0) return core::InvalidArgument("negative size or grace");
  Decision d;
  d.result = {{"deleted", s.deleted + static_cast<int64_t>(a.size())}};
  d.events.push_back(NewEventOf(BlobGcEvent(c.collected)));
  return d;
}

core::Status BlobGcDecider::Evolve(BlobGcState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(BlobGcEvent event, DecodeBlobGc(e));
  s.deleted += static_cast<int64_t>(std::get<BlobsCollected>(event).addresses.size());
  return core::Status::Ok();
}

}  // namespace svc::commands::compliance
