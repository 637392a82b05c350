#pragma once
// One mechanism for every value that must be unique in a tenant (a CURP, an RFC, an externalRef of
// an application): the value is an aggregate of its own, "claim", decided in the tenant's strand
// like everything of the tenant, so it holds across processes and nodes, and across a crash.
//
// The protocol (docs/write-side.md#claims):
//  1. the use case takes the claim for the aggregate that will hold the value (TakeClaim);
//  2. the holder's own command checks, in the same strand, that it holds the claim (RequireClaims) before
//     it records the value — so a holder whose claim was taken over in between records nothing;
//  3. the holder releases it when the value leaves it (ReleaseClaim), and needs not: a claim is
//     checked against its holder when another asks for it.
// A claim held by another is refused (the caller's conflict code, naming the holder) unless
//  - its holder exists and no longer holds the value (`holds` says so: erased, merged, changed), or
//  - its holder never came to exist within `ttl_seconds` of the taking (a crash between steps 1
//    and 2): then it is taken over.
// Nothing else expires: a claim whose holder exists and holds the value is the holder's for good.

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "commands/claims/claim_events.h"
#include "commands/command.h"
#include "commands/decider.h"

namespace svc::commands::claims {

struct ClaimState {
  std::string holder;       // "" = never taken
  std::string holder_type;
  int64_t taken_micros = 0;
  bool released = false;
  static constexpr auto Fields() {
    using T = ClaimState;
    return std::tuple{core::Field("holder", &T::holder), core::Field("holderType", &T::holder_type),
                      core::Field("takenMicros", &T::taken_micros),
                      core::Field("released", &T::released)};
  }
};

// Whether an existing holder (an aggregate of the claim's holder_type) still holds the value: one
// of a closed set of rules over the holder's state, named as data so that a take decoded on
// another node decides the same (docs/decisions.md, issue 34).
struct HoldsRule {
  static constexpr std::string_view kCompanyExists = "company_exists";          // an RFC's company
  static constexpr std::string_view kPersonCurp = "person_curp";                // key: the CURP's blind key
  static constexpr std::string_view kPersonExternalRef = "person_external_ref";  // key: app id, ref: the reference
  std::string kind;  // "" = a holder that exists holds it
  std::string key;
  std::string ref;
  static constexpr auto Fields() {
    using T = HoldsRule;
    return std::tuple{core::Field("kind", &T::kind), core::Field("key", &T::key), core::Field("ref", &T::ref)};
  }
};
// Whether `holder_state` still holds the value under `rule`.
bool Holds(const HoldsRule& rule, const std::any& holder_state);

// Answers {"holder": who holds the value now, "taken": whether `holder` does}. A value held by
// another is refused with `conflict_code` (naming the holder in `conflict_member`) or, with no
// conflict code, answered as not taken (the caller decides: an upsert writes to the holder).
struct TakeClaim {
  std::string holder;
  std::string holder_type;
  int64_t ttl_seconds = 60;     // how long a holder that does not exist yet keeps the claim
  std::string conflict_code;    // a catalogue code, e.g. CURP_CONFLICT; "" = not an error
  std::string conflict_member;  // e.g. conflictingPersonId: the holder, in the problem
  HoldsRule holds;
  static constexpr std::string_view kCommand = "TakeClaim";
  static constexpr auto Fields() {
    using T = TakeClaim;
    return std::tuple{core::Field("holder", &T::holder),
                      core::Field("holderType", &T::holder_type),
                      core::Field("ttlSeconds", &T::ttl_seconds),
                      core::Field("conflictCode", &T::conflict_code),
                      core::Field("conflictMember", &T::conflict_member),
                      core::Field("holds", &T::holds)};
  }
};
// A take's answer as its caller reads it (the person writes, the consolidator, RunWithClaim). An
// answer that is not one (a result the write model could not tell again) is INTERNAL, never a
// throw inside the caller's continuation.
struct TakeAnswer {
  std::string holder;
  bool taken = false;
  bool already_held = false;
};
core::Result<TakeAnswer> ReadTake(const core::Json& result);

struct ReleaseClaim {
  std::string holder;
  static constexpr std::string_view kCommand = "ReleaseClaim";
  static constexpr auto Fields() {
    using T = ReleaseClaim;
    return std::tuple{core::Field("holder", &T::holder)};
  }
};
using ClaimCommand = std::variant<TakeClaim, ReleaseClaim>;

struct ClaimDecider : FieldSnapshots<ClaimDecider, ClaimState> {
  using CommandType = ClaimCommand;
  static constexpr std::string_view kName = kClaimAggregate;
  static core::Result<Decision> Decide(const ClaimState& s, const ClaimCommand& c, const StateReader& read,
                                       const CommandContext& ctx);
  static core::Status Evolve(ClaimState& s, const eventstore::EventEnvelope& e);
  // The answer told again from the events a command appended (AggregateType::ResultOf): a take
  // that recorded claims.claim_taken answered {"holder", "taken": true}. A retry of a keyed take
  // after a crash that lost the idempotency record's result reads it (issue 67).
  static core::Json ResultOf(const std::vector<eventstore::EventEnvelope>& events);
};

// Step 2 for a command of the holder: it decides only while its aggregate holds each claim; else
// the claim's conflict code, naming the holder in `conflict_member` (when one holds it).
struct RequiredClaim {
  std::string claim_id;
  std::string_view conflict_code;  // a catalogue code (static)
  std::string conflict_member;
};
// Wraps a command bound with MakeCommand (not a reading one) so that it first checks `claims`;
// records them in command.required_claims, for its wire form (command_codec.h).
void RequireClaims(Command& command, std::vector<RequiredClaim> claims);


}  // namespace svc::commands::claims
