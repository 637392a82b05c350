#include "api/server/routes.h"

#include "api/audit/routes.h"
#include "api/compliance/routes.h"
#include "api/embedded/routes.h"
#include "api/kyb/routes.h"
#include "api/persons/routes.h"
#include "api/review/routes.h"
#include "api/sessions/routes.h"
#include "api/webhooks/routes.h"

namespace svc::api {

std::vector<ApiRoute> AllRoutes(Runtime* rt, const PublicApiOptions& options) {
  std::vector<ApiRoute> routes;
  for (auto* area : {&SessionRoutes, &VerificationRoutes, &WebhookRoutes, &persons::PersonRoutes, &audit::AuditRoutes,
                     &compliance::ComplianceRoutes, &review::ReviewRoutes, &kyb::KybRoutes,
                     &embedded::EmbeddedRoutes}) {
    for (auto& r : (*area)(rt, options)) routes.push_back(std::move(r));
  }
  return routes;
}

core::Json OpenApiDocument(const std::vector<ApiRoute>& routes, const std::string& server_url) {
  return BuildOpenApi(routes, {SessionsOpenApi(), WebhooksOpenApi(), persons::PersonsOpenApi(), audit::AuditOpenApi(),
                                compliance::ComplianceOpenApi(), review::ReviewOpenApi(), kyb::KybOpenApi(),
                                embedded::EmbeddedOpenApi()},
                     server_url);
}

}  // namespace svc::api
