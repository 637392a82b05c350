#pragma once
// The webhook endpoint aggregate (aggregate id = whe_…): registration, edits (PATCH, including
// deactivation — there is no delete: history stays), and secret rotation.
//
// Secrets never appear in events in plaintext: the API layer seals each one under the endpoint's
// data key (key store) before the command; events carry the sealed bytes (base64).

#include <string>
#include <variant>

#include "commands/command.h"
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

  // The snapshot's members (EndpointDecider::ToJson / FromJson).
  static constexpr auto Fields() {
    using core::Field;
    using T = EndpointState;
    return std::tuple{Field("exists", &T::exists), Field("environment", &T::environment),
                      Field("url", &T::url), Field("description", &T::description),
                      Field("applicationId", &T::application_id), Field("events", &T::events),
                      Field("active", &T::active), Field("secretSealed", &T::secret_sealed),
                      Field("previousSecretSealed", &T::previous_secret_sealed),
                      Field("previousValidUntil", &T::previous_valid_until_micros),
                      Field("rotations", &T::rotations)};
  }
};

struct CreateEndpoint {
  std::string environment;
  std::string url;
  core::Json description = nullptr;
  core::Json application_id = nullptr;
  core::Json events = nullptr;
  std::string secret_sealed;
};
// Only the members present in `changes` change: url, description, applicationId, events, isActive.
struct UpdateEndpoint {
  core::Json changes = core::Json::object();
  std::string reason;  // "api" | "gone" (410 from the receiver)
};
struct RotateSecret {
  std::string secret_sealed;
};

using EndpointCommand = std::variant<CreateEndpoint, UpdateEndpoint, RotateSecret>;

struct EndpointDecider {
  using State = EndpointState;
  static constexpr std::string_view kName = kEndpointAggregate;

  static core::Result<Decision> Decide(const EndpointState& state, const EndpointCommand& command,
                                       const CommandContext& ctx);
  static core::Status Evolve(EndpointState& state, const eventstore::EventEnvelope& event);
  static core::Json ToJson(const EndpointState& state);
  static core::Result<EndpointState> FromJson(std::string_view text);
};

}  // namespace svc::commands::webhooks
