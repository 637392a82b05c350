#pragma once
// Client tokens ("client_token", id ctok_…): a short-lived, single-use permission to reveal
// declared fields of one person, for a browser that must never hold the secret API key. The
// backend issues one (persons:read_pii; the token's secret is shown once and only its SHA-256 is
// kept); the browser spends it on POST /v1/persons/{id}/decrypt. One aggregate per token, so the
// spend is decided once: of any number of concurrent uses exactly one succeeds.

#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "core/json_fields.h"

namespace svc::commands::persons {

inline constexpr std::string_view kClientTokenAggregate = "client_token";
// At most 15 minutes (spec, Authentication).
inline constexpr int64_t kMaxClientTokenSeconds = 15 * 60;

struct ClientTokenIssued {
  static constexpr std::string_view kType = "persons.client_token_issued";
  std::string person_id;
  std::string application_id;
  std::string issued_by;  // the API key
  std::vector<std::string> fields;
  std::string purpose;  // "" = none
  // The caller's words, sealed under the person's data key (pipeline/persons/vault_keys.h,
  // SealPersonText, what "reason"): they leave with the key when the person is forgotten.
  // `reason` in clear only in events written before it was sealed (null in new ones).
  std::string reason;
  std::string reason_sealed;
  std::string secret_hash;  // SHA-256 hex of the token's secret part
  int64_t expires_micros = 0;
  static constexpr auto Fields() {
    using T = ClientTokenIssued;
    return std::tuple{core::Field("personId", &T::person_id),
                      core::Field("applicationId", &T::application_id, core::Empty::kNull),
                      core::Field("issuedBy", &T::issued_by), core::Field("fields", &T::fields),
                      core::Field("purpose", &T::purpose, core::Empty::kNull),
                      core::Field("reason", &T::reason, core::Empty::kNull), core::Field("secretHash", &T::secret_hash),
                      core::Field("expires", &T::expires_micros),
                      core::Field("reasonSealed", &T::reason_sealed, core::Empty::kOmit)};
  }
};

struct ClientTokenUsed {
  static constexpr std::string_view kType = "persons.client_token_used";
  std::vector<std::string> fields;
  static constexpr auto Fields() { return std::tuple{core::Field("fields", &ClientTokenUsed::fields)}; }
};

struct ClientTokenRevoked {
  static constexpr std::string_view kType = "persons.client_token_revoked";
  static constexpr auto Fields() { return std::tuple{}; }
};

using ClientTokenEvent = std::variant<ClientTokenIssued, ClientTokenUsed, ClientTokenRevoked>;
core::Result<ClientTokenEvent> DecodeClientToken(const eventstore::EventEnvelope& envelope);
std::string EncodeClientTokenData(const ClientTokenEvent& event);

struct ClientTokenState {
  bool exists = false;
  std::string environment;
  std::string person_id;
  std::vector<std::string> fields;
  std::string purpose;
  std::string reason;         // events before the reason was sealed
  std::string reason_sealed;  // under the person's data key
  std::string secret_hash;
  int64_t created_micros = 0;
  int64_t expires_micros = 0;
  int64_t used_micros = 0;
  int64_t revoked_micros = 0;
  static constexpr auto Fields() {
    using T = ClientTokenState;
    return std::tuple{
        core::Field("exists", &T::exists),          core::Field("environment", &T::environment),
        core::Field("personId", &T::person_id),     core::Field("fields", &T::fields),
        core::Field("purpose", &T::purpose),        core::Field("reason", &T::reason),
        core::Field("secretHash", &T::secret_hash), core::Field("created", &T::created_micros),
        core::Field("expires", &T::expires_micros), core::Field("used", &T::used_micros),
        core::Field("revoked", &T::revoked_micros), core::Field("reasonSealed", &T::reason_sealed, core::Empty::kOmit)};
  }
};

struct IssueClientToken {
  ClientTokenIssued issued;
  static constexpr std::string_view kCommand = "IssueClientToken";
  static constexpr auto Fields() {
    using T = IssueClientToken;
    return std::tuple{core::Field("issued", &T::issued)};
  }
};
// Spends the token on `person_id`'s `fields` (a subset of the declared ones).
struct UseClientToken {
  std::string secret_hash;
  std::string person_id;
  std::vector<std::string> fields;
  static constexpr std::string_view kCommand = "UseClientToken";
  static constexpr auto Fields() {
    using T = UseClientToken;
    return std::tuple{core::Field("secretHash", &T::secret_hash),
                      core::Field("personId", &T::person_id),
                      core::Field("fields", &T::fields)};
  }
};
struct RevokeClientToken {
  std::string person_id;
  static constexpr std::string_view kCommand = "RevokeClientToken";
  static constexpr auto Fields() {
    using T = RevokeClientToken;
    return std::tuple{core::Field("personId", &T::person_id)};
  }
};
using ClientTokenCommand = std::variant<IssueClientToken, UseClientToken, RevokeClientToken>;

struct ClientTokenDecider : FieldSnapshots<ClientTokenDecider, ClientTokenState> {
  using CommandType = ClientTokenCommand;
  static constexpr std::string_view kName = kClientTokenAggregate;
  static core::Result<Decision> Decide(const ClientTokenState& s, const ClientTokenCommand& c,
                                       const CommandContext& ctx);
  static core::Status Evolve(ClientTokenState& s, const eventstore::EventEnvelope& e);
  // The answer told again from the events a command appended (AggregateType::ResultOf).
  static core::Json ResultOf(const std::vector<eventstore::EventEnvelope>& events);
};

}  // namespace svc::commands::persons
