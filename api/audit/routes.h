#pragma once
// The audit area: the hash-chained log of personal-data accesses (projections/audit), read by
// compliance officers: the list of entries and the chain's verification (audit_api.cc), and its
// part of the OpenAPI document (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::api::audit {

std::vector<ApiRoute> AuditRoutes(Runtime* rt, const PublicApiOptions& options);
OpenApiArea AuditOpenApi();

}  // namespace svc::api::audit
