#pragma once
// Events of the webhook endpoint aggregate ("webhook_endpoint", id whe_…) and the webhook
// delivery aggregate ("webhook_delivery", id whd_…), each with its field list (encode and decode:
// core/json_fields.h; stored form pinned by tests/commands/event_codecs.golden). Secrets appear
// only sealed (base64 of XChaCha20-Poly1305 under the endpoint's data key).

#include <string>
#include <string_view>
#include <variant>

#include "core/json.h"
#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::webhooks {

inline constexpr std::string_view kEndpointAggregate = "webhook_endpoint";
inline constexpr std::string_view kEndpointCreated = "webhook.endpoint_created";
inline constexpr std::string_view kEndpointUpdated = "webhook.endpoint_updated";
inline constexpr std::string_view kSecretRotated = "webhook.secret_rotated";

inline constexpr std::string_view kDeliveryAggregate = "webhook_delivery";
inline constexpr std::string_view kDeliveryAttempted = "webhook.delivery_attempted";
// An attempt about to be posted: appended before the post, so each attempt is posted at most once
// (a second start of the same attempt is refused); an attempt started and never recorded is
// recorded as interrupted once its lease has passed.
inline constexpr std::string_view kDeliveryAttemptStarted = "webhook.delivery_attempt_started";
// A retry by hand: a NEW delivery (id in the data) of the same event, current URL and secret.
inline constexpr std::string_view kDeliveryRetried = "webhook.delivery_retried";

struct EndpointCreated {
  static constexpr std::string_view kType = kEndpointCreated;
  std::string environment;
  std::string url;
  core::Json description;     // string or null
  core::Json application_id;  // string or null
  core::Json events;          // array of types/patterns, or null (= every type)
  std::string secret_sealed;
  // v1a (Ed25519) endpoints: the public key of the sealed signing key ("whpk_…", not a secret);
  // "" for a v1 (HMAC) endpoint. Absent from events older than v1a.
  std::string public_key;
  static constexpr auto Fields() {
    using T = EndpointCreated;
    return std::tuple{core::Field("environment", &T::environment), core::Field("url", &T::url),
                      core::Field("description", &T::description),
                      core::Field("applicationId", &T::application_id),
                      core::Field("events", &T::events),
                      core::Field("secretSealed", &T::secret_sealed),
                      core::Field("publicKey", &T::public_key, core::Empty::kOmit)};
  }
};

// Only the members present in `changes` changed: url, description, applicationId, events,
// isActive.
struct EndpointUpdated {
  static constexpr std::string_view kType = kEndpointUpdated;
  core::Json changes = core::Json::object();
  std::string reason;  // "api" | "gone" (410 from the receiver)
  static constexpr auto Fields() {
    using T = EndpointUpdated;
    return std::tuple{core::Field("changes", &T::changes), core::Field("reason", &T::reason)};
  }
};

struct SecretRotated {
  static constexpr std::string_view kType = kSecretRotated;
  std::string secret_sealed;
  std::string previous_secret_sealed;
  int64_t previous_valid_until_micros = 0;
  std::string public_key;           // v1a: the new signing key's public key; "" for v1
  std::string previous_public_key;  // v1a: the previous one's (it signs too until the overlap ends)
  static constexpr auto Fields() {
    using T = SecretRotated;
    return std::tuple{core::Field("secretSealed", &T::secret_sealed),
                      core::Field("previousSecretSealed", &T::previous_secret_sealed),
                      core::Field("previousValidUntilMicros", &T::previous_valid_until_micros),
                      core::Field("publicKey", &T::public_key, core::Empty::kOmit),
                      core::Field("previousPublicKey", &T::previous_public_key, core::Empty::kOmit)};
  }
};

using EndpointEvent = std::variant<EndpointCreated, EndpointUpdated, SecretRotated>;

struct DeliveryAttempted {
  static constexpr std::string_view kType = kDeliveryAttempted;
  std::string endpoint_id;
  int attempt = 0;           // 1, 2, …
  int status_code = 0;       // 0 = no HTTP answer (null)
  std::string error;         // "" = none (null)
  int64_t latency_ms = 0;
  std::string outcome;       // delivered | retrying | failed
  int64_t next_retry_at_micros = 0;  // retrying only
  static constexpr auto Fields() {
    using T = DeliveryAttempted;
    return std::tuple{core::Field("endpointId", &T::endpoint_id),
                      core::Field("attempt", &T::attempt),
                      core::Field("statusCode", &T::status_code, core::Empty::kNull),
                      core::Field("error", &T::error, core::Empty::kNull),
                      core::Field("latencyMs", &T::latency_ms), core::Field("outcome", &T::outcome),
                      core::Field("nextRetryAtMicros", &T::next_retry_at_micros)};
  }
};

struct DeliveryAttemptStarted {
  static constexpr std::string_view kType = kDeliveryAttemptStarted;
  std::string endpoint_id;
  int attempt = 0;                  // the attempt about to be posted: 1, 2, …
  int64_t lease_until_micros = 0;   // not recorded by then: recorded as interrupted
  static constexpr auto Fields() {
    using T = DeliveryAttemptStarted;
    return std::tuple{core::Field("endpointId", &T::endpoint_id), core::Field("attempt", &T::attempt),
                      core::Field("leaseUntilMicros", &T::lease_until_micros)};
  }
};

struct DeliveryRetried {
  static constexpr std::string_view kType = kDeliveryRetried;
  std::string new_delivery_id;
  std::string endpoint_id;
  static constexpr auto Fields() {
    using T = DeliveryRetried;
    return std::tuple{core::Field("newDeliveryId", &T::new_delivery_id),
                      core::Field("endpointId", &T::endpoint_id)};
  }
};

using DeliveryEvent = std::variant<DeliveryAttempted, DeliveryRetried, DeliveryAttemptStarted>;

std::string EncodeData(const EndpointEvent& e);
std::string EncodeData(const DeliveryEvent& e);
core::Result<EndpointEvent> DecodeEndpointEvent(const eventstore::EventEnvelope& envelope);
core::Result<DeliveryEvent> DecodeDeliveryEvent(const eventstore::EventEnvelope& envelope);

// Whether an endpoint subscribed to `events` (null = every type) receives `type`: exact types,
// "*", and family patterns such as "verification.*".
inline bool Subscribed(const core::Json& events, std::string_view type) {
  if (!events.is_array()) return true;
  for (const auto& e : events) {
    if (!e.is_string()) continue;
    std::string_view s = e.get_ref<const std::string&>();
    if (s == "*" || s == type) return true;
    if (s.size() > 2 && s.substr(s.size() - 2) == ".*" && type.substr(0, s.size() - 1) == s.substr(0, s.size() - 1)) {
      return true;
    }
  }
  return false;
}

// The body's apiVersion (the payload shapes of docs/webhooks.md).
inline constexpr std::string_view kWebhookApiVersion = "2026-01-01";

}  // namespace svc::commands::webhooks
