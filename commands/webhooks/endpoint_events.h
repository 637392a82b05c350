#pragma once
// Event types of the webhook endpoint aggregate (data: JSON objects, see endpoint_decider.cc).
// Secrets appear only sealed (base64 of XChaCha20-Poly1305 under the endpoint's data key).

#include <string_view>

#include "core/json.h"

namespace svc::commands::webhooks {

inline constexpr std::string_view kEndpointAggregate = "webhook_endpoint";
inline constexpr std::string_view kEndpointCreated = "webhook.endpoint_created";
inline constexpr std::string_view kEndpointUpdated = "webhook.endpoint_updated";
inline constexpr std::string_view kSecretRotated = "webhook.secret_rotated";

inline constexpr std::string_view kDeliveryAggregate = "webhook_delivery";
inline constexpr std::string_view kDeliveryAttempted = "webhook.delivery_attempted";
// A retry by hand: a NEW delivery (id in the data) of the same event, current URL and secret.
inline constexpr std::string_view kDeliveryRetried = "webhook.delivery_retried";

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
