#pragma once
// Wiring per area: what `svc serve` starts besides the HTTP edge. Each area declares its serve
// flags, builds its process managers, timers and adapters, lends the route options what its
// routes need, adds its operator routes to the admin socket, and stops them on shutdown. serve.cc
// calls every area the same way; a new area adds one file and one line to kAreas there.

#include "pipeline/manager_runtime.h"
#include <memory>
#include <string>

#include "api/http/http.h"
#include "api/http/http_server.h"
#include "api/http/public_api.h"
#include "api/http/runtime.h"
#include "api/server/flags.h"
#include "core/clock.h"
#include "core/executor.h"

namespace svc::api {

// What an area is given when the server starts. The options are filled by the areas before the
// public routes are built from them.
struct ServeSetup {
  Runtime& rt;
  const Flags& flags;
  PublicApiOptions& routes;     // lent to the routes of every area
  HttpServer::Options& http;    // e.g. a larger body limit for an upload path
  core::FakeClock* fake_clock;  // non-null under --fake-clock (tests)
  core::ThreadPool& work_pool;  // CPU work off the I/O threads
  size_t threads;
};

// An area's running parts.
class AreaServices {
 public:
  virtual ~AreaServices() = default;
  // Operator routes on the admin socket (authenticated with the service key).
  virtual void AddAdminRoutes(Router& /*admin*/, const std::string& /*service_key*/) {}
  // Under --fake-clock, after the clock moved: run the timers that are due; the members returned
  // join the answer of POST /admin/clock.
  virtual core::Result<core::Json> ClockAdvanced() { return core::Json::object(); }
  // Called after the HTTP listeners stopped, in the reverse order of starting.
  virtual void Stop() = 0;
};

struct AreaWiring {
  const char* name;
  void (*declare_flags)(Flags& f);
  core::Result<std::unique_ptr<AreaServices>> (*start)(ServeSetup& setup);
};

// Lends a process manager's options the runtime parts every one of them takes
// (pipeline/manager_runtime.h): the writer, the store, the projections, the clock, ids and metrics.
inline void LendRuntime(Runtime& rt, pipeline::ManagerRuntime& o) {
  o.writer = &rt.writer();
  o.store = &rt.store();
  o.projections = &rt.projections();
  o.clock = &rt.clock();
  o.ids = &rt.ids();
  o.metrics = &rt.metrics();
}

// Builds an area's services (a class with `core::Status Start(ServeSetup&)`) and starts them.
template <class Services>
core::Result<std::unique_ptr<AreaServices>> StartArea(ServeSetup& setup) {
  auto services = std::make_unique<Services>();
  SVC_RETURN_IF_ERROR(services->Start(setup));
  return std::unique_ptr<AreaServices>(std::move(services));
}

// sessions_wiring.cc: engines, registries, the verification pipeline, the expiry timer, the
// progress streams.
AreaWiring SessionsWiring();
// webhooks_wiring.cc: the delivery dispatcher and its policy.
AreaWiring WebhooksWiring();
// persons_wiring.cc: the reveal budget and the reveal rate.
AreaWiring PersonsWiring();
AreaWiring ReviewWiring();
// audit_wiring.cc: the access log's checkpoint publisher.
AreaWiring AuditWiring();
// kyb_wiring.cc: the company registry, the screening lists in force, the company verifier.
AreaWiring KybWiring();
// compliance_wiring.cc: the operator's compliance file.
AreaWiring ComplianceWiring();

}  // namespace svc::api
