// The OpenAPI document and the route table agree: every route is documented with its method,
// scope, success status and the status of every error code it can answer with, and nothing is
// documented that the table does not serve.
#include <doctest/doctest.h>

#include <set>

#include "api/openapi.h"
#include "api/public_api.h"
#include "core/error_catalogue.h"

using namespace svc;

TEST_CASE("openapi: the document matches the route table") {
  api::PublicApiOptions options;
  auto routes = api::AllRoutes(nullptr, options);
  REQUIRE(!routes.empty());
  core::Json doc = api::BuildOpenApi(routes, options.public_base_url);
  CHECK(doc["openapi"] == "3.1.0");
  std::set<std::pair<std::string, std::string>> table;
  for (const auto& r : routes) {
    std::string m = r.method;
    for (auto& c : m) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    table.insert({r.path, m});
    CAPTURE(r.path);
    REQUIRE(doc["paths"].contains(r.path));
    REQUIRE(doc["paths"][r.path].contains(m));
    const core::Json& op = doc["paths"][r.path][m];
    CHECK(op["x-required-scope"] == r.scope);
    CHECK(op["responses"].contains(std::to_string(r.success_status)));
    for (const auto& code : r.error_codes) {
      const auto* info = core::FindErrorCode(code);
      REQUIRE_MESSAGE(info != nullptr, code);
      CHECK_MESSAGE(op["responses"].contains(std::to_string(info->http_status)), code);
    }
    for (int status : {401, 403, 429}) CHECK(op["responses"].contains(std::to_string(status)));
    bool documents_idem = false;
    if (op.contains("parameters")) {
      for (const auto& p : op["parameters"]) documents_idem |= p["name"] == "Idempotency-Key";
    }
    CHECK(documents_idem == (r.idempotency != api::IdempotencyRule::kNone));
  }
  for (auto it = doc["paths"].begin(); it != doc["paths"].end(); ++it) {
    if (it.key() == "/v1/openapi.json") continue;
    for (auto m = it->begin(); m != it->end(); ++m) {
      CHECK_MESSAGE(table.count({it.key(), m.key()}) == 1, it.key() << " " << m.key());
    }
  }
}
