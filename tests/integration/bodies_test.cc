// Request bodies against every route that takes one (each operation of the served OpenAPI
// document with a JSON body, and the console's and hosted page's own): each member of its schema
// null, and of every wrong JSON type; all members null; a member given twice. Nothing may answer
// 5xx or take the process down (under the sanitizers any bad read aborts it); a required member
// sent as null is refused, with its pointer when the refusal is a field error; a repeated member is
// 400. Issue 31: `"sessionId": null` on POST /v1/media-links crashed the server.
#include <doctest/doctest.h>

#include <set>

#include "tests/support/api_env.h"

namespace integration_bodies_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

// The schema a $ref names (one level), else the schema itself.
core::Json Resolve(const core::Json& doc, const core::Json& schema) {
  if (!schema.is_object() || !schema.contains("$ref")) return schema;
  const std::string ref = schema["$ref"];
  const std::string name = ref.substr(ref.rfind('/') + 1);
  return doc["components"]["schemas"].value(name, core::Json::object());
}

bool HasPointer(const core::Json& problem, const std::string& pointer) {
  for (const auto& e : problem.value("errors", core::Json::array())) {
    if (e.value("pointer", "") == pointer) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("bodies: nulls, wrong types and repeated members on every route: never 5xx, never a crash") {
  Env env(false,
          {"--rate-writes", "0", "--rate-reads", "0", "--rate-reveals", "0", "--guard-requests-per-second", "0",
           "--guard-failures-per-minute", "0", "--guard-target-failures-per-minute", "0"},
          Sharing::kIsolated);
  // Real resources, so that routes under them read their bodies instead of answering 404.
  auto session = env.Create(env.test_key, "bodies-session");
  REQUIRE(session.status == 201);
  auto person = env.Call(env.test_key, "POST", "/v1/persons", R"({"externalRef":"bodies-1"})");
  REQUIRE(person.status == 201);
  auto company = env.Call(env.test_key, "POST", "/v1/companies", R"({"legalName":"Acme Bodies SA"})",
                          {{"Idempotency-Key", "bodies-company"}});
  REQUIRE_MESSAGE(company.status == 201, company.body);
  const std::map<std::string, std::string> real = {{"{session_id}", Body(session)["id"]},
                                                   {"{person_id}", Body(person)["id"]},
                                                   {"{company_id}", Body(company)["id"]}};

  const core::Json doc = Body(env.Call("", "GET", "/v1/openapi.json"));
  struct Operation {
    std::string method, path;
    core::Json schema;
    bool all_real = true;  // every path parameter names a real resource
  };
  std::vector<Operation> ops;
  for (auto p = doc["paths"].begin(); p != doc["paths"].end(); ++p) {
    for (auto m = p->begin(); m != p->end(); ++m) {
      const core::Json content = m->value("requestBody", core::Json::object()).value("content", core::Json::object());
      if (!content.contains("application/json")) continue;
      Operation op;
      op.method = m.key();
      for (auto& c : op.method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      op.path = p.key();
      for (size_t open = op.path.find('{'); open != std::string::npos; open = op.path.find('{')) {
        const std::string param = op.path.substr(open, op.path.find('}', open) - open + 1);
        auto it = real.find(param);
        std::string value = it != real.end() ? it->second : "xyz_00000000000000000000000000000000";
        op.all_real &= it != real.end();
        op.path.replace(open, param.size(), value);
      }
      op.schema = Resolve(doc, content["application/json"].value("schema", core::Json::object()));
      ops.push_back(std::move(op));
    }
  }
  // Routes outside the /v1 document that read a JSON body.
  ops.push_back({"POST", "/console/api/sign-in",
                 {{"type", "object"},
                  {"required", {"secret", "environment"}},
                  {"properties", {{"secret", {{"type", "string"}}}, {"environment", {{"type", "string"}}}}}}});
  ops.push_back({"POST", "/embed/v1/hosted/init",
                 {{"type", "object"}, {"required", {"linkToken"}}, {"properties", {{"linkToken", {{"type", "string"}}}}}}});
  REQUIRE(ops.size() >= 40);

  int calls = 0, idem = 0;
  auto call = [&](const Operation& op, const std::string& body) {
    ++calls;
    return env.Call(env.test_key, op.method, op.path, body, {{"Idempotency-Key", "bodies-" + std::to_string(++idem)}});
  };
  const std::vector<std::string> wrong = {"null", "1", "-1.5", "true", "[]", "{}", "\"x\"", "[null]", "{\"a\":null}"};
  // First what must be refused whole (so nothing has changed the resources yet): a member given
  // twice (which copy would count is not for us to pick), and a required member sent as null.
  for (const Operation& op : ops) {
    if (!op.all_real) continue;
    CAPTURE(op.method);
    CAPTURE(op.path);
    // A route that refuses this caller before reading a body (a publishable key's route) is left
    // to the phase below.
    const int refused = call(op, "{}").status;
    if (refused == 401 || refused == 403) continue;
    const core::Json props = op.schema.value("properties", core::Json::object());
    const core::Json required = op.schema.value("required", core::Json::array());
    for (auto it = props.begin(); it != props.end(); ++it) {
      const std::string name = core::Json(it.key()).dump();
      std::string body = "{" + name + ":\"a\"," + name + ":\"b\"}";
      CAPTURE(body);
      auto r = call(op, body);
      CHECK_MESSAGE(r.status == 400, r.body);
      // The import answers its own code for a body it cannot read.
      if (r.status == 400) CHECK((Body(r)["code"] == "BAD_REQUEST" || Body(r)["code"] == "IMPORT_BODY_INVALID"));
      if (std::find(required.begin(), required.end(), it.key()) == required.end()) continue;
      body = "{" + name + ":null}";
      r = call(op, body);
      CHECK_MESSAGE((r.status >= 400 && r.status < 500), r.body);
      // `reason` has the spec's own code (PII_ACCESS_REASON_REQUIRED), answered once the other
      // members are valid; every other required member is named in the field errors.
      if (r.status == 422 && Body(r)["code"] == "VALIDATION_ERROR" && it.key() != "reason") {
        CHECK_MESSAGE(HasPointer(Body(r), "/" + it.key()), r.body);
      }
    }
  }
  // Then every member null and of every wrong type, all members null, none: whatever the answer,
  // never 5xx, and the process lives.
  for (const Operation& op : ops) {
    CAPTURE(op.method);
    CAPTURE(op.path);
    const core::Json props = op.schema.value("properties", core::Json::object());
    std::string all_null = "{";
    for (auto it = props.begin(); it != props.end(); ++it) {
      const std::string name = core::Json(it.key()).dump();
      all_null += (all_null.size() > 1 ? "," : "") + name + ":null";
      for (const auto& v : wrong) {
        const std::string body = "{" + name + ":" + v + "}";
        CAPTURE(body);
        auto r = call(op, body);
        CHECK_MESSAGE(r.status < 500, r.body);
      }
    }
    auto r = call(op, all_null + "}");
    CHECK_MESSAGE(r.status < 500, r.body);
    r = call(op, "{}");
    CHECK_MESSAGE(r.status < 500, r.body);
    REQUIRE(env.Call("", "GET", "/healthz").status == 200);
  }
  MESSAGE(ops.size() << " routes, " << calls << " bodies");

  // The reported crash, repeated: each a 422 naming the member, and the process lives on.
  for (int i = 0; i < 300; ++i) {
    auto r = env.Call(env.test_key, "POST", "/v1/media-links",
                      R"({"sessionId":null,"mediaId":"med_00000000000000000000000000000001","purpose":"identity_verification","reason":"x"})");
    REQUIRE_MESSAGE(r.status == 422, r.body);
    REQUIRE(HasPointer(Body(r), "/sessionId"));
  }
  auto r = env.Call(env.test_key, "POST", "/v1/media-links",
                    R"({"sessionId":"vrf_00000000000000000000000000000001","mediaId":null,"purpose":"identity_verification","reason":"x"})");
  CheckProblem(r, 422, "VALIDATION_ERROR");
  CHECK(HasPointer(Body(r), "/mediaId"));
  // A repeated member that would change what is revealed (decrypt's fields) is refused.
  r = env.Call(env.test_key, "POST", "/v1/persons/" + real.at("{person_id}") + "/decrypt",
               R"({"fields":["email"],"fields":["curp"],"purpose":"identity_verification","reason":"x"})");
  CheckProblem(r, 400, "BAD_REQUEST");
  CHECK(Body(r)["detail"].get<std::string>().find("/fields") != std::string::npos);
  CHECK(env.Call("", "GET", "/healthz").status == 200);
}

}  // namespace integration_bodies_test
