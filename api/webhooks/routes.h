#pragma once
// The webhook area: endpoint management, deliveries and their log, signature checks
// (webhooks_api.cc), and its part of the OpenAPI document, with the `webhooks` section
// (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"
#include "pipeline/net/outbound_client.h"
#include "pipeline/webhooks/catalogue.h"

namespace svc::api {

struct Module;

// The area as a module (module.cc): its deciders, projector, routes, flags and dispatcher.
const Module& WebhooksModule();

// What the area's routes are given besides the shared context (filled by its module).
struct WebhooksOptions : ApiContext {
  // Development and tests only: allow http and private/loopback receivers.
  bool webhooks_allow_private_urls = false;
  pipeline::net::SendOptions webhook_send;  // the test operation's client settings (as the dispatcher's)
  pipeline::webhooks::DeliveryPolicy webhook_policy;
};

std::vector<ApiRoute> WebhookRoutes(Runtime* r, const WebhooksOptions& options);
OpenApiArea WebhooksOpenApi();

}  // namespace svc::api
