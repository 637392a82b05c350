#pragma once
// The modules of the service (api/http/module.h): the one list of areas a process assembles —
// their deciders and projectors in the runtime, their flags, services, routes, pages and operator
// routes in `svc serve` — and the OpenAPI document built from their routes and schemas. A new
// area adds its module to AllModules (modules.cc) and nothing else here.

#include <memory>
#include <string>
#include <vector>

#include "api/http/module.h"
#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::api {

// Every area, in starting order (stopped in reverse). Routes and the document follow this order.
const std::vector<const Module*>& AllModules();

// The routes of every module, with the services that serve them (kept alive beside them).
struct RouteTable {
  std::vector<std::unique_ptr<AreaServices>> services;
  std::vector<ApiRoute> routes;
};
// For documentation (`svc openapi`, the tests): every module's services unstarted, no runtime.
// Fails when an area's operations document and its routes disagree (AreaRoutes).
core::Result<RouteTable> DocumentedRoutes(const ApiContext& api = {});

core::Json OpenApiDocument(const std::vector<ApiRoute>& routes, const std::string& server_url);

}  // namespace svc::api
