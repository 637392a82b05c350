#pragma once
// The webhook event catalogue: the types an endpoint can subscribe to, and the patterns.
//
// Subscriptions (`events` of an endpoint): null or absent = every type; otherwise a list of
// exact types (`verification.approved`) and family patterns (`verification.*`, `case.*`,
// `service.*`) — `*` alone means every type. Anything else is 422 UNKNOWN_EVENT_TYPE.

#include <string>
#include <string_view>
#include <vector>

#include "commands/webhooks/webhook_types.h"
#include "core/json.h"

namespace svc::pipeline::webhooks {

// The delivery policy in force (reported by GET /v1/developer/webhooks/delivery-policy and
// applied by the dispatcher).
struct DeliveryPolicy {
  int backoff_base_seconds = 30;
  int max_backoff_seconds = 6 * 3600;
  int http_timeout_seconds = 15;
  int rate_limit_default_rpm = 600;
  int retry_budget_hours = 72;
};

// The types themselves are declared once, with what emits them: commands/webhooks/webhook_types.h.
using EventType = commands::webhooks::WebhookType;

const std::vector<EventType>& EventTypes();
const std::vector<std::string>& EventPatterns();

// A subscription entry is a known type or a known pattern.
bool IsKnownSubscription(std::string_view entry);
// Whether an endpoint receives a type: commands::webhooks::Subscribed (endpoint_events.h).

// The catalogue as served by GET /v1/developer/webhooks/event-types (with `emitted`: false for a
// type the spec names that nothing sends yet).
core::Json CatalogueJson();

}  // namespace svc::pipeline::webhooks
