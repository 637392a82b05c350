#pragma once
// The webhook area: endpoint management, deliveries and their log, signature checks
// (webhooks_api.cc), and its part of the OpenAPI document, with the `webhooks` section
// (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::api {

std::vector<ApiRoute> WebhookRoutes(Runtime* rt, const PublicApiOptions& options);
OpenApiArea WebhooksOpenApi();

}  // namespace svc::api
