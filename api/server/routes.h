#pragma once
// The one route table of the public API: every area's routes, and the OpenAPI document built
// from them and the areas' schemas. A new area adds one line to each function.

#include <string>
#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::api {

// `rt` may be null when only the declarations are wanted (documentation).
std::vector<ApiRoute> AllRoutes(Runtime* rt, const PublicApiOptions& options);
core::Json OpenApiDocument(const std::vector<ApiRoute>& routes, const std::string& server_url);

}  // namespace svc::api
