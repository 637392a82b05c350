#pragma once
// The embedded channel (docs/embedded.md): its five routes (embedded_api.cc), the widget's page
// and loader (widget.cc) and its part of the OpenAPI document (schemas.cc).

#include <string>
#include <string_view>
#include <vector>

#include "api/http/http.h"
#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::api {
struct Module;
}

namespace svc::api::embedded {

// The area as a module (module.cc): its decider, projector, routes and the widget's pages.
const Module& EmbeddedModule();

std::vector<ApiRoute> EmbeddedRoutes(Runtime* r, const ApiContext& options);
OpenApiArea EmbeddedOpenApi();

// The widget (widget.cc): GET /embed/v1/loader.js (the integrator's page includes it),
// GET /embed/v1/frame/{ems_id} (the capture page, framed only by the session's allowed origins),
// its script and style, and the hosted page of the link channel, GET /v/{linkToken}.
void AddWidgetRoutes(Router& router, Runtime& rt, CredentialGuard* guard);

// ems_ + the verification session's hex.
std::string EmbeddedIdOf(std::string_view session_id);
bool ValidEmbeddedId(std::string_view id);
// `<ems id>_secret_<32 characters>`: derived under a server key, never stored.
std::string ClientSecretFor(Runtime& rt, std::string_view embedded_id);
// The embedded phase of a verification session status.
std::string Phase(std::string_view status);

}  // namespace svc::api::embedded

namespace svc::api {

// The operator's side of the channel (admin.cc): the admin socket's routes (added by the module)
// and what `svc admin flow|app` calls on a stopped data directory.
// An application's embedded settings (docs/embedded.md#applications), replaced whole.
struct ApplicationSettings {
  std::vector<std::string> allowed_flows;
  std::string default_flow;
  std::vector<std::string> allowed_origins;
  std::string privacy_notice_url;  // the integrator's aviso de privacidad
};

// Flows and applications (admin.cc, docs/embedded.md#operators). Each answers the row
// as it stands after the change.
core::Result<core::Json> AdminFlowCreate(Runtime& rt, const std::string& tenant_id, const std::string& key,
                                         const std::string& name, const core::Json& definition,
                                         const eventstore::Actor& actor);
core::Result<core::Json> AdminFlowDraft(Runtime& rt, const std::string& tenant_id, const std::string& flow_id,
                                        const core::Json& definition, const eventstore::Actor& actor);
core::Result<core::Json> AdminFlowPublish(Runtime& rt, const std::string& tenant_id, const std::string& flow_id,
                                          const eventstore::Actor& actor);
core::Result<core::Json> AdminFlowArchive(Runtime& rt, const std::string& tenant_id, const std::string& flow_id,
                                          const eventstore::Actor& actor);
core::Result<core::Json> AdminFlowValidate(Runtime& rt, const std::string& tenant_id, const std::string& flow_id);
core::Result<core::Json> AdminFlowShow(Runtime& rt, const std::string& tenant_id, const std::string& flow_id);
core::Result<core::Json> AdminFlowList(Runtime& rt, const std::string& tenant_id);
core::Result<core::Json> AdminApplicationList(Runtime& rt, const std::string& tenant_id);
core::Result<core::Json> AdminApplicationArchive(Runtime& rt, const std::string& tenant_id,
                                                 const std::string& application_id, const eventstore::Actor& actor);
core::Result<core::Json> AdminApplicationSettings(Runtime& rt, const std::string& tenant_id,
                                                  const std::string& application_id, const ApplicationSettings& s,
                                                  const eventstore::Actor& actor);
// FLOW_NOT_FOUND unless every flow id is a flow of the tenant.
core::Status CheckFlowsExist(Runtime& rt, const std::string& tenant_id, const std::vector<std::string>& flows);
//   POST /admin/tenants/{t}/flows {key, name, definition}; GET …/flows; GET …/flows/{f}
//   POST …/flows/{f}/draft {definition}; …/validate; …/publish; …/archive
//   GET  …/applications; POST …/applications/{a}/archive; POST …/applications/{a}/settings
//        {allowedFlows, defaultFlow, allowedOrigins}
void AddEmbeddedAdminRoutes(Router& router, Runtime& rt, const std::string& service_key);


}  // namespace svc::api
