// The runtime assembles the modules it is given (api/http/module.h): with only some, it recovers
// a log written with all of them, decides and projects only its own (issue 34's roles start from
// here), and refuses to open with none. The documented route table is every module's routes.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "api/server/modules.h"
#include "api/sessions/routes.h"
#include "commands/compliance/breach.h"
#include "projections/persons/persons_projector.h"
#include "projections/sessions_projector.h"
#include "tests/support/runtime_fixture.h"

namespace api_modules_test {

using namespace svc;
namespace cc = commands::compliance;

namespace {

core::Result<commands::CommandOutcome> NotifyBreach(api::Runtime& rt, testing::RuntimeFixture& fx,
                                                    const std::string& tenant) {
  cc::NotifyBreach notify;
  notify.notified.severity = "high";
  notify.notified.scope = "test";
  notify.notified.notified_by = "key_test";
  return rt.writer().ExecuteAndWait(
      commands::MakeCommand<cc::BreachDecider>(tenant, "brn_modules_test", notify, fx.Ctx()));
}

}  // namespace

TEST_CASE("modules: a runtime given some modules recovers a log written with all, and decides only its own") {
  testing::RuntimeFixture fx;
  fx.Open();
  const std::string tenant = fx.NewTenant();
  REQUIRE(NotifyBreach(*fx.rt, fx, tenant).ok());  // the compliance module's aggregate
  fx.Close();

  auto only_sessions = fx.Options();
  only_sessions.modules = {&api::SessionsModule()};
  {
    auto rt = api::Runtime::Open(only_sessions);
    REQUIRE(rt.ok());
    CHECK((*rt)->projector<projections::SessionsProjector>() != nullptr);
    CHECK((*rt)->projector<projections::PersonsProjector>() == nullptr);
    // The runtime's own aggregates (tenancy) are decided; another module's are not.
    const std::string other = fx.ids.NewIdString(core::IdKind::kTenant);
    CHECK((*rt)->writer()
              .ExecuteAndWait(commands::MakeCommand<commands::tenancy::TenantDecider>(
                  other, other,
                  commands::tenancy::CreateTenant{"Other", fx.ids.NewIdString(core::IdKind::kApplication)},
                  fx.Ctx()))
              .ok());
    auto refused = NotifyBreach(**rt, fx, tenant);
    CHECK_FALSE(refused.ok());
    CHECK((*rt)->CatchUpProjections().ok());
    (*rt)->Shutdown();
  }

  // Every module again: the breach recorded before is still in the write model (the partial
  // runtime left it alone), so the same notification is a conflict.
  fx.Open();
  auto again = NotifyBreach(*fx.rt, fx, tenant);
  REQUIRE_FALSE(again.ok());
  CHECK(again.status().code() == core::StatusCode::kAlreadyExists);
}

TEST_CASE("modules: a runtime without modules refuses to open") {
  testing::RuntimeFixture fx;
  auto o = fx.Options();
  o.modules.clear();
  auto rt = api::Runtime::Open(o);
  REQUIRE_FALSE(rt.ok());
  CHECK(rt.status().code() == core::StatusCode::kFailedPrecondition);
}

TEST_CASE("modules: one name each; the documented routes are every module's, each once") {
  std::set<std::string> names;
  for (const api::Module* m : api::AllModules()) CHECK(names.insert(m->name).second);
  CHECK(names.count("sessions") == 1);
  CHECK(names.count("embedded") == 1);
  auto documented = api::DocumentedRoutes();
  REQUIRE_MESSAGE(documented.ok(), documented.status().message());
  std::set<std::string> operations;
  for (const auto& r : documented->routes) CHECK_MESSAGE(operations.insert(r.operation_id).second, r.operation_id);
  CHECK(documented->services.size() == names.size());  // every module runs something
  CHECK(operations.count("createVerificationSession") == 1);
}

}  // namespace api_modules_test
