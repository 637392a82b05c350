#pragma once
// The OpenAPI 3.1 document of the public API, generated from the route table (so it cannot
// drift from what the server does) plus hand-written component schemas. Served at
// GET /v1/openapi.json and printed by `svc openapi`.

#include <string>
#include <vector>

#include "api/api_context.h"
#include "core/json.h"

namespace svc::api {

core::Json BuildOpenApi(const std::vector<ApiRoute>& routes, const std::string& server_url);

}  // namespace svc::api
