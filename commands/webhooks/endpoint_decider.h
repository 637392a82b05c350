#pragma once
// The webhook endpoint aggregate (aggregate id = whe_…): registration, edits (PATCH, including
// deactivation — there is no delete: history stays), and secret rotation.
//
// Secrets never appear in events in plaintext: the API layer seals each one under the endpoint's
// data key (key store) before the command; events carry the sealed bytes (base64).

#include <string>
#include <variant>

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/webhooks/endpoint_events.h"
#include "core/json.h"

namespace svc::commands::webhooks {


// After a rotation the previous secret keeps signing (second signature) for this long.
inline constexpr int64_t kRotationOverlapMicros = 24LL * 3600 * 1'000'000;

struct EndpointState {
  bool exists = false;
  std::string environment;
  std::string url;
  core::Json description;     // string or null
  core::Json application_id;  // string or null
  core::Json events;          // array of types/patterns, or null (= every type)
  bool active = true;
  std::string secret_sealed;           // base64
  std::string previous_secret_sealed;  // base64, "" = none
  int64_t previous_valid_until_micros = 0;
  int rotations = 0;
  std::string public_key;  // v1a: the signing key's public key in force; "" = a v1 endpoint

  // The snapshot's members (EndpointDecider::ToJson / FromJson).
  static constexpr auto Fields() {
    using T = EndpointState;
    return std::tuple{core::Field("exists", &T::exists),
                      core::Field("environment", &T::environment), core::Field("url", &T::url),
                      core::Field("description", &T::description),
                      core::Field("applicationId", &T::application_id),
                      core::Field("events", &T::events), core::Field("active", &T::active),
                      core::Field("secretSealed", &T::secret_sealed),
                      core::Field("previousSecretSealed", &T::previous_secret_sealed),
                      core::Field("previousValidUntil", &T::previous_valid_until_micros),
                      core::Field("rotations", &T::rotations),
                      core::Field("publicKey", &T::public_key, core::Empty::kOmit)};
  }
};

struct CreateEndpoint {
  std::string environment;
  std::string url;
  core::Json description = nullptr;
  core::Json application_id = nullptr;
  core::Json events = nullptr;
  std::string secret_sealed;
  std::string public_key;  // v1a (Ed25519): the sealed signing key's public key; "" = v1 (HMAC)
  std::string tenant_id;   // the reading Decide's: whose applications applicationId must be among
  static constexpr std::string_view kCommand = "CreateEndpoint";
  static constexpr auto Fields() {
    using T = CreateEndpoint;
    return std::tuple{core::Field("environment", &T::environment),
                      core::Field("url", &T::url),
                      core::Field("description", &T::description),
                      core::Field("applicationId", &T::application_id),
                      core::Field("events", &T::events),
                      core::Field("secretSealed", &T::secret_sealed),
                      core::Field("publicKey", &T::public_key, core::Empty::kOmit),
                      core::Field("tenantId", &T::tenant_id, core::Empty::kOmit)};
  }
};
// Only the members present in `changes` change: url, description, applicationId, events, isActive.
struct UpdateEndpoint {
  core::Json changes = core::Json::object();
  std::string reason;  // "api" | "gone" (410 from the receiver)
  std::string tenant_id;  // the reading Decide's: whose applications applicationId must be among
  static constexpr std::string_view kCommand = "UpdateEndpoint";
  static constexpr auto Fields() {
    using T = UpdateEndpoint;
    return std::tuple{core::Field("changes", &T::changes),
                      core::Field("reason", &T::reason),
                      core::Field("tenantId", &T::tenant_id, core::Empty::kOmit)};
  }
};
struct RotateSecret {
  std::string secret_sealed;
  std::string public_key;  // v1a: the new signing key's public key; "" for v1. The scheme is kept.
  static constexpr std::string_view kCommand = "RotateSecret";
  static constexpr auto Fields() {
    using T = RotateSecret;
    return std::tuple{core::Field("secretSealed", &T::secret_sealed),
                      core::Field("publicKey", &T::public_key, core::Empty::kOmit)};
  }
};

using EndpointCommand = std::variant<CreateEndpoint, UpdateEndpoint, RotateSecret>;

struct EndpointDecider : FieldSnapshots<EndpointDecider, EndpointState> {
  using CommandType = EndpointCommand;
  static constexpr std::string_view kName = kEndpointAggregate;

  static core::Result<Decision> Decide(const EndpointState& state, const EndpointCommand& command,
                                       const CommandContext& ctx);
  // The API's create and PATCH: an applicationId named must be one of the tenant's applications
  // (read from the tenant aggregate, in the writer's strand), else APPLICATION_NOT_FOUND (issue 68:
  // another tenant's or a made-up id was taken); then as above.
  static core::Result<Decision> Decide(const EndpointState& state, const EndpointCommand& command,
                                       const StateReader& read, const CommandContext& ctx);
  static core::Status Evolve(EndpointState& state, const eventstore::EventEnvelope& event);
};

}  // namespace svc::commands::webhooks
