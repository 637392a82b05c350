// The company registry adapter against a real HTTP gateway on loopback (our own server with a
// route table standing in for the provider, docs/kyb.md#registry): found with each status, not
// found, errors, a reply off the protocol, nobody listening.
#include <doctest/doctest.h>

#include "api/http/http_server.h"
#include "core/ids.h"
#include "pipeline/adapters/company_registry_http.h"
#include "pipeline/documents/checks.h"

namespace pipeline_adapters_company_registry_http_test {

using namespace svc;

namespace {

const core::mx::CivilDate kToday{2026, 11, 26};
std::string Rfc(const std::string& first) { return first + core::mx::RfcCheckDigit(first); }
}  // namespace

TEST_CASE("HTTP company registry: lookups by RFC through a gateway") {
  const std::string active = Rfc("ACM010203AB"), gone = Rfc("GON010203AB"), down = Rfc("DOW010203AB"),
                    odd = Rfc("ODD010203AB");
  auto router = std::make_shared<api::Router>();
  std::string seen_auth;
  router->Add("GET", "/gw/companies/{rfc}", api::Sync([&](api::HttpRequest& req) {
                seen_auth = req.Header("authorization");
                const std::string& rfc = req.path_params["rfc"];
                auto record = [&](const char* estatus) {
                  return api::JsonResponse(200, {{"rfc", rfc},
                                                 {"razonSocial", "ACME COMERCIAL SA DE CV"},
                                                 {"estatus", estatus},
                                                 {"folioMercantil", "N-2001012345"},
                                                 {"fechaConstitucion", "2001-02-03"},
                                                 {"regimenSocietario", "SOCIEDAD ANONIMA DE CAPITAL VARIABLE"},
                                                 {"actividad", "Comercio al por mayor"},
                                                 {"scian", "435419"}});
                };
                if (rfc == active) return record("ACTIVA");
                if (rfc == gone) return record("EN_LIQUIDACION");
                if (rfc == odd) return record("QUIZAS");
                if (rfc == down) return api::JsonResponse(503, {{"error", "down"}});
                return api::JsonResponse(404, {{"error", "not found"}});
              }));
  core::SequentialIdSource ids;
  api::HttpServer::Options o;
  o.port = 0;
  api::HttpServer server(o, router, &ids);
  REQUIRE(server.Start().ok());
  auto reg = pipeline::adapters::HttpCompanyRegistry::Create(
      "http://127.0.0.1:" + std::to_string(server.BoundPort()) + "/gw/", "tok-k", std::chrono::milliseconds(5000));
  REQUIRE(reg.ok());
  CHECK((*reg)->Name() == "gateway");

  auto found = (*reg)->Lookup({"MX", active, "Acme Comercial, S.A. de C.V.", kToday});
  CHECK(found.outcome == "found");
  CHECK(found.status == "active");
  CHECK(found.registry_id == "N-2001012345");
  CHECK(found.authority == "SE-SIGER");
  CHECK(found.legal_name == "ACME COMERCIAL SA DE CV");
  CHECK(found.incorporation_date == "2001-02-03");
  CHECK(found.industry_code == "435419");
  CHECK(seen_auth == "Bearer tok-k");
  CHECK((*reg)->Lookup({"MX", gone, "x", kToday}).status == "dissolved");
  CHECK((*reg)->Lookup({"MX", Rfc("NON010203AB"), "x", kToday}).outcome == "not_found");
  auto unavailable = (*reg)->Lookup({"MX", down, "x", kToday});
  CHECK(unavailable.outcome == "unavailable");
  CHECK(unavailable.error_code == "REGISTRY_HTTP_503");
  auto off = (*reg)->Lookup({"MX", odd, "x", kToday});
  CHECK(off.outcome == "unavailable");
  CHECK(off.error_code == "REGISTRY_BAD_RESPONSE");
  CHECK((*reg)->Lookup({"MX", "not an rfc", "x", kToday}).outcome == "not_found");  // never sent
  CHECK((*reg)->Lookup({"US", "", "x", kToday}).outcome == "not_run");
  server.Stop(std::chrono::milliseconds(100));

  // Nobody listening: unavailable, never a pass.
  auto gone_server = (*reg)->Lookup({"MX", active, "x", kToday});
  CHECK(gone_server.outcome == "unavailable");
  CHECK(gone_server.error_code == "REGISTRY_TRANSPORT_ERROR");
  CHECK_FALSE(pipeline::adapters::HttpCompanyRegistry::Create("ftp://x", "", std::chrono::seconds(1)).ok());
  CHECK_FALSE(pipeline::adapters::HttpCompanyRegistry::Create("https://gw.example/?a=b", "", std::chrono::seconds(1)).ok());
}

}  // namespace pipeline_adapters_company_registry_http_test
