// The OpenAPI document and the route table agree: every route is documented with its method,
// scope, success status and the status of every error code it can answer with, and nothing is
// documented that the table does not serve.
#include <doctest/doctest.h>

#include <set>

#include "api/http/openapi.h"
#include "api/server/modules.h"
#include "api/http/public_api.h"
#include "core/error_catalogue.h"
#include "pipeline/webhooks/catalogue.h"

namespace api_openapi_test {

using namespace svc;

TEST_CASE("openapi: the document matches the route table") {
  api::ApiContext options;
  auto documented = api::DocumentedRoutes(options);
  REQUIRE(documented.ok());
  const auto& routes = documented->routes;
  REQUIRE(!routes.empty());
  core::Json doc = api::OpenApiDocument(routes, options.public_base_url);
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
    if (r.link_credential) {
      CHECK_FALSE(op.contains("x-required-scope"));  // the signed link is the credential
      CHECK(op["security"].empty());
    } else {
      CHECK(op["x-required-scope"] == r.scope);
    }
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
    if (it.key() == "/v1/openapi.json" || it.key() == "/v1/asyncapi.json") continue;  // the edge's own documents
    for (auto m = it->begin(); m != it->end(); ++m) {
      CHECK_MESSAGE(table.count({it.key(), m.key()}) == 1, it.key() << " " << m.key());
    }
  }
}

TEST_CASE("openapi: for code generators: operation ids, tags, descriptions, webhooks, typed nests") {
  api::ApiContext options;
  auto documented = api::DocumentedRoutes(options);
  REQUIRE(documented.ok());
  const auto& routes = documented->routes;
  core::Json doc = api::OpenApiDocument(routes, options.public_base_url);
  std::set<std::string> tags, ids;
  for (const auto& t : doc["tags"]) tags.insert(t["name"].get<std::string>());
  for (auto it = doc["paths"].begin(); it != doc["paths"].end(); ++it) {
    for (auto m = it->begin(); m != it->end(); ++m) {
      const core::Json& op = *m;
      std::string id = op["operationId"];
      CAPTURE(id);
      CHECK(ids.insert(id).second);  // unique
      CHECK(!id.empty());
      CHECK(std::islower(static_cast<unsigned char>(id[0])));
      for (char c : id) CHECK(std::isalnum(static_cast<unsigned char>(c)));  // camelCase, no "op…"
      REQUIRE(op["tags"].size() == 1);
      CHECK(tags.count(op["tags"][0].get<std::string>()) == 1);
      CHECK(!op["summary"].get<std::string>().empty());
      CHECK(!op["description"].get<std::string>().empty());
    }
  }
  CHECK(doc["paths"]["/v1/developer/webhooks/{endpoint_id}"]["patch"]["operationId"] == "updateWebhookEndpoint");
  // Every catalogued event type is in the `webhooks` section with a typed body.
  for (const auto& t : pipeline::webhooks::EventTypes()) {
    std::string type(t.type);
    CAPTURE(type);
    REQUIRE(doc["webhooks"].contains(type));
    std::string ref = doc["webhooks"][type]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"];
    CHECK(doc["components"]["schemas"].contains(ref.substr(ref.rfind('/') + 1)));
  }
  // The nests the issue named are typed (a $ref), not bare objects.
  const core::Json& s = doc["components"]["schemas"];
  auto is_ref = [](const core::Json& j) {
    if (j.contains("$ref")) return true;
    if (j.contains("items")) return j["items"].contains("$ref");
    if (j.contains("anyOf")) return j["anyOf"][0].contains("$ref");
    return false;
  };
  CHECK(is_ref(s["VerificationReportDetail"]["properties"]["steps"]));
  CHECK(is_ref(s["VerificationReportDetail"]["properties"]["trustBreakdown"]));
  CHECK(is_ref(s["VerificationReportDetail"]["properties"]["decision"]));
  CHECK(is_ref(s["VerificationCertificate"]["properties"]["media"]));
  CHECK(is_ref(s["VerificationCertificate"]["properties"]["gov"]));
  CHECK(is_ref(s["VerificationCertificate"]["properties"]["biometric"]));
  CHECK(is_ref(s["EvidenceBundle"]["properties"]["consent"]));
  CHECK(is_ref(s["EvidenceBundle"]["properties"]["media"]));
  CHECK(is_ref(s["CaptureAnalysis"]["properties"]["extractedData"]));
  // The progress stream is described: its event data has a schema.
  CHECK(s["ProgressStream"]["contentSchema"]["$ref"] == "#/components/schemas/ProgressEvent");
}

}  // namespace api_openapi_test
