#pragma once
// Event types of the webhook endpoint aggregate (data: JSON objects, see endpoint_decider.cc).
// Secrets appear only sealed (base64 of XChaCha20-Poly1305 under the endpoint's data key).

#include <string_view>

namespace svc::commands::webhooks {

inline constexpr std::string_view kEndpointAggregate = "webhook_endpoint";
inline constexpr std::string_view kEndpointCreated = "webhook.endpoint_created";
inline constexpr std::string_view kEndpointUpdated = "webhook.endpoint_updated";
inline constexpr std::string_view kSecretRotated = "webhook.secret_rotated";

}  // namespace svc::commands::webhooks
