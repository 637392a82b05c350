#pragma once
// The compliance area: the limits in force (read from the same objects that enforce them), the
// datacenters and subprocessors of the operator's compliance file (compliance_api.cc), and its
// part of the OpenAPI document (schemas.cc). The access log is the audit area's (api/audit/).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::api::compliance {

std::vector<ApiRoute> ComplianceRoutes(Runtime* rt, const PublicApiOptions& options);
OpenApiArea ComplianceOpenApi();

// Checks a compliance file's content: {"datacenters": [DatacenterItem], "subprocessors":
// [SubprocessorItem]} (docs/compliance.md); InvalidArgument naming the first problem.
core::Status CheckComplianceConfig(const core::Json& config);

}  // namespace svc::api::compliance
