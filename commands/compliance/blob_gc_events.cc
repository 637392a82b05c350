#include "commands/compliance/blob_gc.h"
#include "commands/event_codec.h"

namespace svc::commands::compliance {

core::Result<BlobGcEvent> DecodeBlobGc(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<BlobGcEvent>(envelope, "blob_gc");
}

}  // namespace svc::commands::compliance
