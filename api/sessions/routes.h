#pragma once
// The verification-session area: its routes (sessions_api.cc: create, consent, get, list;
// verification_api.cc: captures, challenges, submit, evidence, report, certificate and its keys,
// the progress stream) and its part of the OpenAPI document (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"
#include "api/http/sessions_port.h"

namespace svc::api {

// `rt` may be null when only the declarations are wanted (documentation).
std::vector<ApiRoute> SessionRoutes(Runtime* rt, const PublicApiOptions& options);
std::vector<ApiRoute> VerificationRoutes(Runtime* rt, const PublicApiOptions& options);
OpenApiArea SessionsOpenApi();
// What the embedded channel uses of this area (api/http/sessions_port.h), lent by the composition
// root through PublicApiOptions::sessions.
const SessionsPort& SessionsPortOf();

}  // namespace svc::api
