#pragma once
// The claims protocol for a command that makes the holder in one step (docs/write-side.md#claims):
// take the claim for the command's aggregate, run the command only while it holds it, and give a
// claim taken here back when the command fails. The person write use case needs more (an upsert
// follows the externalRef's holder; pipeline/persons/person_writes.h); a company's RFC, a flow's
// key and an origin's application need no more than this.

#include <string>

#include "commands/claims/claim_decider.h"
#include "commands/writer.h"

namespace svc::commands::claims {

// `take.holder` and `take.holder_type` are set from `then`. The claim's command carries no
// Idempotency-Key (the holder's id must be the same on a retry: a retry takes it again as held);
// `then` carries the request's. `done` gets `then`'s outcome, or the claim's conflict.
void RunWithClaim(Writer& writer, const std::string& claim_id, TakeClaim take, Command then, CommandCallback done);

}  // namespace svc::commands::claims
