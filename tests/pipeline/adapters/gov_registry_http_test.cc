// The HTTP registry adapter against a real HTTP gateway on loopback (our own server with a
// route table standing in for the provider): found, not found, errors, timeouts; and over https
// against the node test peer (tests/receiver) with a certificate it trusts or not.
#include <doctest/doctest.h>

#include "pipeline/adapters/gov_registry_http.h"
#include "api/http/http_server.h"
#include "core/ids.h"
#include "pipeline/verification/builtin_engines.h"
#include "tests/support/receiver_process.h"
#include "tests/support/temp_dir.h"

namespace pipeline_adapters_gov_registry_http_test {

using namespace svc;

TEST_CASE("HTTP registry adapter: CURP and INE lookups through a gateway") {
  auto router = std::make_shared<api::Router>();
  std::string seen_auth;
  std::string curp = pipeline::verification::Specimen().curp;
  router->Add("GET", "/gw/curp/{curp}", api::Sync([&](api::HttpRequest& req) {
                seen_auth = req.Header("authorization");
                const std::string& c = req.path_params["curp"];
                if (c == curp) {
                  return api::JsonResponse(200, {{"curp", c},
                                                 {"statusCurp", "AN"},
                                                 {"fechaNacimiento", "15/03/1990"},
                                                 {"sexo", "M"},
                                                 {"primerApellido", "GARCIA"},
                                                 {"segundoApellido", "HERNANDEZ"},
                                                 {"nombres", "MARIA JOSEFINA"}});
                }
                if (c == "XEXX010101HNEXXXA4") return api::JsonResponse(503, {{"error", "down"}});
                return api::JsonResponse(404, {{"error", "not found"}});
              }));
  router->Add("POST", "/gw/ine/validate", api::Sync([&](api::HttpRequest& req) {
                core::Json b = core::ParseJsonOrDiscarded(req.body);
                if (core::StringOr(b, "cic") == "123456789") return api::JsonResponse(200, {{"valid", true}});
                if (core::StringOr(b, "cic") == "111111111") {
                  return api::JsonResponse(200, {{"valid", false}, {"reason", "REPORTED_LOST"}});
                }
                return api::JsonResponse(404, {{"error", "not in list"}});
              }));
  core::SequentialIdSource ids;
  api::HttpServer::Options o;
  o.port = 0;
  api::HttpServer server(o, router, &ids);
  REQUIRE(server.Start().ok());
  std::string base = "http://127.0.0.1:" + std::to_string(server.BoundPort()) + "/gw/";
  auto reg = pipeline::adapters::HttpGovRegistry::Create(base, "tok-1", std::chrono::milliseconds(5000));
  REQUIRE(reg.ok());

  auto found = (*reg)->LookupCurp(curp);
  CHECK(found.status == "found");
  CHECK(found.registry_status == "AN");
  CHECK(found.birth_date == "1990-03-15");
  CHECK(found.sex == "M");
  CHECK(found.name_letters == "GAHJ");
  CHECK(seen_auth == "Bearer tok-1");
  CHECK((*reg)->LookupCurp("BADD110313HCMLNS09").status == "not_found");
  auto down = (*reg)->LookupCurp("XEXX010101HNEXXXA4");
  CHECK(down.status == "unavailable");
  CHECK(down.error_code == "GOV_HTTP_503");
  CHECK((*reg)->LookupCurp("not a curp").status == "not_found");  // never sent

  CHECK((*reg)->LookupIne({"123456789", ""}).status == "valid");
  auto lost = (*reg)->LookupIne({"111111111", ""});
  CHECK(lost.status == "not_valid");
  CHECK(lost.detail_code == "REPORTED_LOST");
  CHECK((*reg)->LookupIne({"222222222", ""}).status == "not_found");
  // A host name is resolved.
  auto named = pipeline::adapters::HttpGovRegistry::Create(
      "http://localhost:" + std::to_string(server.BoundPort()) + "/gw", "tok-1",
      std::chrono::milliseconds(5000));
  REQUIRE(named.ok());
  CHECK((*named)->LookupCurp(curp).status == "found");
  server.Stop(std::chrono::milliseconds(100));

  // Nobody listening: unavailable, never a pass.
  CHECK((*reg)->LookupCurp(curp).status == "unavailable");
  CHECK((*reg)->LookupIne({"123456789", ""}).status == "unavailable");
  CHECK(pipeline::adapters::HttpGovRegistry::Create("https://gw.example/v1/", "", std::chrono::seconds(1)).ok());
  CHECK_FALSE(pipeline::adapters::HttpGovRegistry::Create("ftp://gw.example", "", std::chrono::seconds(1)).ok());
  CHECK_FALSE(pipeline::adapters::HttpGovRegistry::Create("http://", "", std::chrono::seconds(1)).ok());
  CHECK_FALSE(pipeline::adapters::HttpGovRegistry::Create("https://gw.example/v1?x=1", "", std::chrono::seconds(1)).ok());
}

TEST_CASE("HTTP registry adapter: an https gateway, its certificate verified") {
  testing::TempDir dir;
  testing::ReceiverProcess gateway(dir.path());  // node https server with an openssl-made certificate
  std::string base = "https://localhost:" + std::to_string(gateway.port()) + "/gw";
  std::string curp = pipeline::verification::Specimen().curp;
  auto reg = pipeline::adapters::HttpGovRegistry::Create(base, "tok-1", std::chrono::milliseconds(5000), gateway.ca_file());
  REQUIRE(reg.ok());
  for (int i = 0; i < 3; ++i) {  // the kept connection serves the next lookups
    auto found = (*reg)->LookupCurp(curp);
    CHECK(found.status == "found");
    CHECK(found.birth_date == "1990-03-15");
    CHECK(found.name_letters == "GAHJ");
  }
  CHECK((*reg)->LookupIne({"123456789", ""}).status == "valid");
  CHECK((*reg)->LookupIne({"111111111", ""}).status == "not_valid");
  // Without the gateway's CA the certificate is refused: unavailable, never a pass.
  auto untrusted = pipeline::adapters::HttpGovRegistry::Create(base, "tok-1", std::chrono::milliseconds(5000));
  REQUIRE(untrusted.ok());
  auto refused = (*untrusted)->LookupCurp(curp);
  CHECK(refused.status == "unavailable");
  CHECK(refused.error_code == "GOV_TRANSPORT_ERROR");
  CHECK((*untrusted)->LookupIne({"123456789", ""}).status == "unavailable");
}

}  // namespace pipeline_adapters_gov_registry_http_test
