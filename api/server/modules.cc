#include "api/server/modules.h"

#include "api/audit/routes.h"
#include "api/compliance/routes.h"
#include "api/embedded/routes.h"
#include "api/events/routes.h"
#include "api/kyb/routes.h"
#include "api/persons/routes.h"
#include "api/review/routes.h"
#include "api/sessions/routes.h"
#include "api/webhooks/routes.h"

namespace svc::api {

const std::vector<const Module*>& AllModules() {
  static const std::vector<const Module*> kModules = {
      &SessionsModule(),         &WebhooksModule(),     &persons::PersonsModule(), &audit::AuditModule(),
      &compliance::ComplianceModule(), &review::ReviewModule(), &kyb::KybModule(),        &embedded::EmbeddedModule(),
      &events::EventsModule(),
  };
  return kModules;
}

core::Result<RouteTable> DocumentedRoutes(const ApiContext& api) {
  RouteTable table;
  for (const Module* m : AllModules()) {
    if (m->services == nullptr) continue;
    table.services.push_back(m->services());
    SVC_ASSIGN_OR_RETURN(auto routes, AreaRoutes(*m, *table.services.back(), nullptr, api));
    for (auto& r : routes) table.routes.push_back(std::move(r));
  }
  return table;
}

core::Json OpenApiDocument(const std::vector<ApiRoute>& routes, const std::string& server_url) {
  std::vector<OpenApiArea> areas;
  for (const Module* m : AllModules()) {
    if (m->openapi != nullptr) areas.push_back(m->openapi());
  }
  return BuildOpenApi(routes, areas, server_url);
}

}  // namespace svc::api
