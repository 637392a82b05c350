#include "commands/claims/claim_events.h"

#include "commands/event_codec.h"

namespace svc::commands::claims {

core::Result<ClaimEvent> DecodeClaim(const eventstore::EventEnvelope& env) { return DecodeEvent<ClaimEvent>(env, "claim"); }

}  // namespace svc::commands::claims
