// The /v1 middleware in process (no sockets): Service-Version on versioned routes, and the
// checked-in error catalogue staying equal to the generated one.
#include <doctest/doctest.h>

#include <fstream>
#include <future>
#include <sstream>

#include "api/server/admin.h"
#include "api/http/problem.h"
#include "api/http/public_api.h"
#include "tests/support/runtime_fixture.h"

namespace api_middleware_test {

using namespace svc;

namespace {
api::HttpResponse Dispatch(api::Router& router, api::HttpRequest req) {
  std::promise<api::HttpResponse> p;
  router.Dispatch(req, [&p](api::HttpResponse r) { p.set_value(std::move(r)); });
  return p.get_future().get();
}
}  // namespace

TEST_CASE("middleware: Service-Version on versioned routes") {
  testing::RuntimeFixture f;
  f.Open();
  f.rt->StartProjections();
  std::string tenant = f.NewTenant();
  api::KeyCreateRequest k;
  k.tenant_id = tenant;
  auto key = api::AdminKeyCreate(*f.rt, k, {"system", "test"});
  REQUIRE(key.ok());
  api::PublicApi public_api(*f.rt, {}, {});
  api::Router router;
  api::ApiRoute route;
  route.method = "GET";
  route.path = "/v1/persons/probe";
  route.scope = "persons:read";
  route.versioned = true;
  route.handler = [](api::ApiCall&, api::Respond respond) {
    respond(api::JsonResponse(200, {{"ok", true}}));
  };
  public_api.Wrap(router, route);
  auto call = [&](std::string version) {
    api::HttpRequest req;
    req.method = "GET";
    req.path = "/v1/persons/probe";
    req.request_id = "req_test";
    req.headers["authorization"] = "Bearer " + (*key)["secret"].get<std::string>();
    if (!version.empty()) req.headers["service-version"] = version;
    return Dispatch(router, req);
  };
  CHECK(call("").status == 200);  // absent: the default version
  CHECK(call(std::string(api::kDefaultServiceVersion)).status == 200);
  auto bad = call("1999-01-01");
  CHECK(bad.status == 400);
  CHECK(core::ParseJsonOrDiscarded(bad.body)["code"] == "UNSUPPORTED_API_VERSION");
}

TEST_CASE("docs/errors.md is the generated catalogue") {
  std::ifstream in(std::string(SVC_TEST_SOURCE_DIR) + "/../docs/errors.md");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK_MESSAGE(ss.str() == api::ErrorCatalogueMarkdown(),
                "regenerate with: svc docs errors > docs/errors.md");
}

TEST_CASE("problem+json: string, number and JSON extensions") {
  core::Status st = core::InvalidArgument("the flow does not validate", "FLOW_VALIDATION_FAILED");
  st.WithExtension("flowKey", "kyc-basic");
  st.WithExtension("count", "2");
  st.WithJsonExtension("issues", R"([{"code":"graph_cycle","path":"/steps/1","message":"loops"}])");
  st.WithJsonExtension("broken", "{not json");  // never rendered half
  api::HttpRequest req;
  req.path = "/admin/tenants/t/flows/f/publish";
  req.request_id = "req_1";
  api::HttpResponse r = api::StatusToProblem(req, st);
  CHECK(r.status == 422);
  core::Json body = core::ParseJsonOrDiscarded(r.body);
  CHECK(body["code"] == "FLOW_VALIDATION_FAILED");
  CHECK(body["flowKey"] == "kyc-basic");
  CHECK(body["count"] == 2);
  CHECK(body["issues"][0]["code"] == "graph_cycle");
  CHECK_FALSE(body.contains("broken"));
}

}  // namespace api_middleware_test
