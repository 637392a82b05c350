#pragma once
// Event types of the webhook endpoint aggregate (data: JSON objects, see endpoint_decider.cc).
// Secrets appear only sealed (base64 of XChaCha20-Poly1305 under the endpoint's data key).

#include <string_view>

namespace svc::commands::webhooks {

inline constexpr std::string_view kEndpointAggregate = "webhook_endpoint";
inline constexpr std::string_view kEndpointCreated = "webhook.endpoint_created";
inline constexpr std::string_view kEndpointUpdated = "webhook.endpoint_updated";
inline constexpr std::string_view kSecretRotated = "webhook.secret_rotated";

inline constexpr std::string_view kDeliveryAggregate = "webhook_delivery";
inline constexpr std::string_view kDeliveryAttempted = "webhook.delivery_attempted";
// A retry by hand: a NEW delivery (id in the data) of the same event, current URL and secret.
inline constexpr std::string_view kDeliveryRetried = "webhook.delivery_retried";

// The body's apiVersion (the payload shapes of docs/webhooks.md).
inline constexpr std::string_view kWebhookApiVersion = "2026-01-01";

}  // namespace svc::commands::webhooks
