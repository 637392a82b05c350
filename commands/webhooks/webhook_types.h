#pragma once
// Every webhook type, declared once: what it means, the body's OpenAPI component, and the
// domain event it is derived from. The catalogue served to integrators and the subscription
// check (pipeline/webhooks/catalogue.h), the webhooks projector's fan-out, and the OpenAPI
// `webhooks` section all read this table. tests/commands/webhook_types_test.cc proves that every
// source event is one its aggregate records, so a type that nothing emits cannot sit here
// silently: it says `emitted = false`, and the served catalogue says so too.
//
// Adding a webhook type: one row here, and its data in WebhooksProjector (webhooks_projector.cc,
// by payload schema) when the schema is new.

#include <string_view>
#include <vector>

namespace svc::commands::webhooks {

struct WebhookType {
  std::string_view type;
  std::string_view description;
  std::string_view payload_schema;    // the OpenAPI component of the delivered body
  bool carries_report;                // `data.report` present
  std::string_view source_aggregate;  // the aggregate whose event it is derived from
  std::string_view source_event;      // that event's type
  // False: catalogued because the spec names it, but no aggregate records its source event yet.
  bool emitted = true;
};

const std::vector<WebhookType>& WebhookTypes();
// The emitted webhook type derived from a domain event; nullptr for most events.
const WebhookType* WebhookTypeFor(std::string_view aggregate_type, std::string_view event_type);

}  // namespace svc::commands::webhooks
