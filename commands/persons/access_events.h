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
  static constexpr int kSchema = 1;
  std::string person_id;
  std::string application_id;  // the actor's application ("" = none)
  std::string actor_type;      // api_key | client_token | media_link | user (a reviewer)
  std::string actor_id;        // key_… | ctok_…
  std::string channel;         // decrypt | batch_decrypt | expand | client_token | integrity | export | reauth
                               // | media_link | media_link_view | export_bulk | review_case | review_media
  std::vector<std::string> fields;
  std::string purpose;         // "" = none given
  std::string reason;          // the caller's justification ("" = none given)
  std::string redaction;       // plain | compared (integrity) | biometric (reauth)
  std::string case_id;         // review_case | review_media: the review case it was shown for
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = PiiAccessed;
    return std::tuple{Field("personId", &T::person_id),
                      Field("applicationId", &T::application_id, Empty::kNull),
                      Field("actorType", &T::actor_type), Field("actorId", &T::actor_id),
                      Field("channel", &T::channel), Field("fields", &T::fields),
                      Field("purpose", &T::purpose, Empty::kNull),
                      Field("reason", &T::reason, Empty::kNull),
                      Field("redaction", &T::redaction), Field("caseId", &T::case_id, Empty::kOmit)};
  }
};

using AccessEvent = std::variant<PiiAccessed>;

core::Result<AccessEvent> DecodeAccess(const eventstore::EventEnvelope& envelope);
std::string EncodeAccessData(const AccessEvent& event);

}  // namespace svc::commands::persons
