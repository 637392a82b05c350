#pragma once
// Access events: the record of every plaintext reveal of the vault (decrypt, batch decrypt, an
// expanded read, a client token's use, integrity, export, reauth), one per person revealed,
// appended before any plaintext leaves. They belong to the reveal-budget aggregate of the tenant,
// environment and UTC day ("reveal_budget", id "<env>-<YYYYMMDD>"), so the budget check and the
// record are one atomic decision. They carry who, how, which fields, why — never a value. The
// audit chain (issue 15) is derived from them.

#include <string>
#include <variant>
#include <vector>

#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::persons {

inline constexpr std::string_view kRevealBudgetAggregate = "reveal_budget";

struct PiiAccessed {
  static constexpr std::string_view kType = "persons.pii_accessed";
  std::string person_id;
  std::string application_id;  // the actor's application ("" = none)
  std::string actor_type;      // api_key | client_token | media_link | user (a reviewer)
  std::string actor_id;        // key_… | ctok_…
  std::string channel;         // decrypt | batch_decrypt | expand | client_token | integrity | export | reauth
                               // | media_link | media_link_view | export_bulk | review_case | review_media
  std::vector<std::string> fields;
  std::string purpose;         // "" = none given
  std::string reason;          // the caller's justification ("" = none given, or sealed below)
  // The caller's words sealed under the person's data key with a random commitment key
  // (pipeline/persons/vault_keys.h SealAccessReason), `reason` then empty; and the commitment,
  // HMAC-SHA-256 of the words under that key (hex). In the access log's entry as `reasonSealed`
  // and `reasonCommitment`: served opened with the key, so an auditor checks the words against
  // the chain; once the person is forgotten neither opens. Events before issue 71 hold the reason
  // in clear.
  std::string reason_sealed;
  std::string reason_commitment;
  std::string redaction;       // plain | compared (integrity) | biometric (reauth)
  std::string case_id;         // review_case | review_media: the review case it was shown for
  static constexpr auto Fields() {
    using T = PiiAccessed;
    return std::tuple{core::Field("personId", &T::person_id),
                      core::Field("applicationId", &T::application_id, core::Empty::kNull),
                      core::Field("actorType", &T::actor_type),
                      core::Field("actorId", &T::actor_id), core::Field("channel", &T::channel),
                      core::Field("fields", &T::fields),
                      core::Field("purpose", &T::purpose, core::Empty::kNull),
                      core::Field("reason", &T::reason, core::Empty::kNull),
                      core::Field("redaction", &T::redaction),
                      core::Field("caseId", &T::case_id, core::Empty::kOmit),
                      core::Field("reasonSealed", &T::reason_sealed, core::Empty::kOmit),
                      core::Field("reasonCommitment", &T::reason_commitment, core::Empty::kOmit)};
  }
};

using AccessEvent = std::variant<PiiAccessed>;

core::Result<AccessEvent> DecodeAccess(const eventstore::EventEnvelope& envelope);
std::string EncodeAccessData(const AccessEvent& event);

}  // namespace svc::commands::persons
