// The embedded channel as a module (api/http/module.h): the flow aggregate and the embedded read
// model, its routes (the sessions it creates go through the sessions area's port,
// ApiContext::sessions), the widget's pages, and the operator's routes for flows and applications
// on the admin socket (admin.cc; `svc admin flow|app` calls them too, api/server/embedded_cli.cc).

#include "api/embedded/routes.h"
#include "api/http/module.h"
#include "commands/embedded/flow_decider.h"
#include "projections/embedded/embedded_projector.h"

namespace svc::api {
extern const std::string_view kEmbedded_operations_md;  // operations.md, compiled in (api/CMakeLists.txt)
}  // namespace svc::api

namespace svc::api::embedded {
namespace {

class EmbeddedServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) override {
    rt_ = &s.rt;
    return core::Status::Ok();
  }

  std::vector<ApiRoute> Routes(Runtime* rt, const ApiContext& api) override {
    options_ = api;
    return EmbeddedRoutes(rt, options_);
  }

  void AddPages(Router& router, Runtime& rt, const ApiContext& api) override {
    AddWidgetRoutes(router, rt, api.credential_guard);
  }

  void AddAdminRoutes(Router& admin, const std::string& service_key) override {
    AddEmbeddedAdminRoutes(admin, *rt_, service_key);
  }

 private:
  Runtime* rt_ = nullptr;
  ApiContext options_;
};

}  // namespace

const Module& EmbeddedModule() {
  static const Module m{.name = "embedded",
                        .deciders = &RegisterDeciders<commands::embedded::FlowDecider>,
                        .projectors = &AddProjectors<projections::EmbeddedProjector>,
                        .openapi = &EmbeddedOpenApi,
                        .operations = &kEmbedded_operations_md,
                        .services = &MakeServices<EmbeddedServices>};
  return m;
}

}  // namespace svc::api::embedded
