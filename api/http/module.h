#pragma once
// An area of the service as a module: everything it contributes to a process, declared in one
// file of its own folder (api/<area>/module.cc) — its deciders (the write side), its projectors
// (the read side), its part of the OpenAPI document, its `svc serve` flags, and its services: the
// process managers, timers and adapters it runs, the routes it serves (built from its own options
// struct), its pages, its operator routes on the admin socket and what it does when a test's fake
// clock moves — and its `svc` commands. The runtime, `svc serve` and `svc` assemble the modules they are given
// (api/server/modules.cc lists them): nothing here or anywhere in api/http names an area, so a new
// area adds its own folders and one entry to that list.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/http/flags.h"
#include "api/http/http.h"
#include "api/http/http_server.h"
#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/roles.h"
#include "api/http/route.h"
#include "api/http/runtime.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/executor.h"
#include "pipeline/manager_runtime.h"
#include "projections/projector.h"

namespace svc::api {

// What an area's services are given when `svc serve` starts them.
struct ServeSetup {
  Runtime& rt;
  const Flags& flags;
  // What every route is given. An area that runs a service another area uses (a port: the face
  // engine, the progress streams, the sessions port) or that sets an edge limit puts it here in
  // Start; routes are built after every area started.
  ApiContext& api;
  HttpServer::Options& http;    // e.g. a larger body limit for an upload path
  core::FakeClock* fake_clock;  // non-null under --fake-clock (tests)
  core::ThreadPool& work_pool;  // CPU work off the I/O threads
  size_t threads;
  const Roles& roles;              // what this process runs (--roles)
  std::vector<std::string>& jobs;  // what it runs, by name (GET /node)
  const std::string& node_id;      // --node-id, or the one the data directory keeps

  // Whether this process runs `role`; when it does, `job` is listed among the node's jobs. An
  // area makes its managers either way (its routes and operator routes may name them) and starts
  // a manager only when its role runs here.
  bool Runs(Role role, std::string_view job) {
    if (!roles.Has(role)) return false;
    jobs.emplace_back(job);
    return true;
  }
};

// An area's running parts. Made unstarted by every process that builds routes (`svc openapi`
// documents them with default options); started only by `svc serve`.
class AreaServices {
 public:
  virtual ~AreaServices() = default;
  // Reads the area's flags, starts its process managers, timers and adapters, and fills its
  // routes' options and what it lends to `setup.api`.
  virtual core::Status Start(ServeSetup& /*setup*/) { return core::Status::Ok(); }
  // The area's public routes, behind the /v1 middleware (`rt` null: declarations only). The
  // routes may keep pointers into this object: it outlives the listeners.
  virtual std::vector<ApiRoute> Routes(Runtime* /*rt*/, const ApiContext& /*api*/) { return {}; }
  // Pages and their APIs outside /v1 (the review console, the embedded widget).
  virtual void AddPages(Router& /*router*/, Runtime& /*rt*/, const ApiContext& /*api*/) {}
  // Operator routes on the admin socket (authenticated with the service key, api/http/admin_route.h).
  virtual void AddAdminRoutes(Router& /*admin*/, const std::string& /*service_key*/) {}
  // Under --fake-clock, after the clock moved: run the timers that are due; the members returned
  // join the answer of POST /admin/clock.
  virtual core::Result<core::Json> ClockAdvanced() { return core::Json::object(); }
  // Adds what the area runs for a cluster to this node's GET /node (the partitions of a topic it
  // was given, say).
  virtual void DescribeNode(core::Json& /*node*/) {}
  // Called after the HTTP listeners stopped, in the reverse order of starting.
  virtual void Stop() {}
};

// The projectors a module adds to the runtime's read side.
using ProjectorList = std::vector<std::unique_ptr<projections::Projector>>;

// A `svc <command>` an area adds: its operator tools (`svc aml`, `svc audit`, `svc export-bulk`).
struct CliVerb {
  const char* command;  // the first word after `svc`
  const char* usage;    // its lines of `svc --help`
  // argv[1] is `command`; `modules`: what a runtime it opens is given (api/http/cli.h).
  int (*run)(const std::vector<const struct Module*>& modules, int argc, char** argv);
};

struct Module {
  const char* name;
  // The write side: registers the area's aggregate types with the writer (before recovery).
  void (*deciders)(commands::Writer& writer) = nullptr;
  // The read side: the area's projectors (one runner feeds them all).
  void (*projectors)(ProjectorList& out) = nullptr;
  // Its part of the OpenAPI document: tags, component schemas, `webhooks` entries.
  OpenApiArea (*openapi)() = nullptr;
  // What its operations do: api/<area>/operations.md, compiled in (route_docs.h). Its routes take
  // their summary and description from it by operationId.
  const std::string_view* operations = nullptr;
  // Its `svc serve` flags.
  void (*declare_flags)(Flags& f) = nullptr;
  // Its services, unstarted (null: the area runs nothing and serves no route).
  std::unique_ptr<AreaServices> (*services)() = nullptr;
  // Its `svc` commands.
  std::vector<CliVerb> verbs = {};
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

// For Module::deciders and Module::projectors: the area's aggregate types (deciders), and its
// projectors default-constructed.
template <class... Deciders>
void RegisterDeciders(commands::Writer& writer) {
  (writer.Register(std::make_unique<commands::TypedAggregate<Deciders>>()), ...);
}
template <class... Projectors>
void AddProjectors(ProjectorList& out) {
  (out.push_back(std::make_unique<Projectors>()), ...);
}

// An area's routes' options (a struct deriving from ApiContext, filled by its Start) completed
// with the context the composition root lends every area's routes.
// An area's routes (services->Routes) with their prose from its operations document.
core::Result<std::vector<ApiRoute>> AreaRoutes(const Module& module, AreaServices& services, Runtime* rt,
                                               const ApiContext& api);

template <class AreaOptions>
const AreaOptions& WithContext(AreaOptions& options, const ApiContext& api) {
  static_cast<ApiContext&>(options) = api;
  return options;
}

// For Module::services: `Services` default-constructed.
template <class Services>
std::unique_ptr<AreaServices> MakeServices() {
  return std::make_unique<Services>();
}

}  // namespace svc::api
