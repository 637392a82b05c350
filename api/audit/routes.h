#pragma once
// The audit area: the hash-chained log of personal-data accesses (projections/audit), read by
// compliance officers: the list of entries and the chain's verification (audit_api.cc), and its
// part of the OpenAPI document (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::api {
struct Module;
}

namespace svc::api::audit {

// The area as a module (module.cc): its decider, projector, routes, flags and checkpoint publisher.
const Module& AuditModule();

std::vector<ApiRoute> AuditRoutes(Runtime* r, const ApiContext& options);
OpenApiArea AuditOpenApi();

}  // namespace svc::api::audit

namespace svc::api::cli {
// `svc audit` (cli.cc): the module's command.
int Audit(const std::vector<const Module*>& modules, int argc, char** argv);
}  // namespace svc::api::cli
