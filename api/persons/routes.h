#pragma once
// The persons area (the vault): writes and masked reads (persons_api.cc), every reveal of
// plaintext — decrypt, batch decrypt, an expanded read, client tokens, integrity, export —
// (reveal_api.cc), and its part of the OpenAPI document (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::api::persons {

std::vector<ApiRoute> PersonRoutes(Runtime* rt, const PublicApiOptions& options);
OpenApiArea PersonsOpenApi();

}  // namespace svc::api::persons
