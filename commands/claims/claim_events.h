#pragma once
// Events of the claim aggregate ("claim"): one value of a tenant that must be unique (a CURP, an
// RFC, an externalRef of an application) and the aggregate that holds it. The aggregate's id
// names the value without showing it: ClaimId(kind, environment, key), the key being a blind index
// or a hash of the value; no event carries a value (docs/write-side.md#claims).

#include <string>
#include <variant>

#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::claims {

inline constexpr std::string_view kClaimAggregate = "claim";

// The claim's aggregate id: "<kind>:<environment>:<key>" (kind: curp, rfc, external_ref, …; key:
// the value's blind index or hash, never the value).
inline std::string ClaimId(std::string_view kind, std::string_view environment, std::string_view key) {
  return std::string(kind) + ":" + std::string(environment) + ":" + std::string(key);
}

// The value is taken by `holder` (an aggregate of type `holder_type`). `replaces`: the holder it
// was taken from — one that never came to exist within the claim's time, or no longer holds the
// value ("" = the value was free).
struct ClaimTaken {
  static constexpr std::string_view kType = "claims.claim_taken";
  std::string holder;
  std::string holder_type;
  std::string replaces;
  static constexpr auto Fields() {
    using T = ClaimTaken;
    return std::tuple{core::Field("holder", &T::holder), core::Field("holderType", &T::holder_type),
                      core::Field("replaces", &T::replaces, core::Empty::kNull)};
  }
};

// The holder gave the value up (it changed, or the holder was erased or merged away).
struct ClaimReleased {
  static constexpr std::string_view kType = "claims.claim_released";
  std::string holder;
  static constexpr auto Fields() { return std::tuple{core::Field("holder", &ClaimReleased::holder)}; }
};

using ClaimEvent = std::variant<ClaimTaken, ClaimReleased>;

core::Result<ClaimEvent> DecodeClaim(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::claims
