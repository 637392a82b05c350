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

std::vector<ApiRoute> EmbeddedRoutes(Runtime* rt, const ApiContext& options);
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
