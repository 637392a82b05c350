#pragma once
// The compliance area: the limits in force (read from the same objects that enforce them), the
// datacenters and subprocessors of the operator's compliance file (compliance_api.cc), and its
// part of the OpenAPI document (schemas.cc). The access log is the audit area's (api/audit/).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::pipeline::retention {
class Sweeper;
}

namespace svc::api {
struct Module;
}

namespace svc::api::compliance {

// The area as a module (module.cc): its deciders, routes, flags, the compliance file and the
// retention sweeper.
const Module& ComplianceModule();

// What the area's routes are given besides the shared context (filled by its module).
struct ComplianceOptions : ApiContext {
  // Where the data is kept and who processes it, from the operator's compliance file
  // (--compliance-file, docs/compliance.md): {"datacenters": [...], "subprocessors": [...]}.
  core::Json compliance_config = {{"datacenters", core::Json::array()}, {"subprocessors", core::Json::array()}};
  // The retention policies in force and what the sweeper's last run did (reports, limits); null:
  // no sweeper (tools that build routes without serving).
  const pipeline::retention::Sweeper* retention = nullptr;
};

std::vector<ApiRoute> ComplianceRoutes(Runtime* r, const ComplianceOptions& options);
OpenApiArea ComplianceOpenApi();

// Checks a compliance file's content: {"datacenters": [DatacenterItem], "subprocessors":
// [SubprocessorItem]} (docs/compliance.md); InvalidArgument naming the first problem.
core::Status CheckComplianceConfig(const core::Json& config);

}  // namespace svc::api::compliance
