// Companies (KYB) through a real svc (docs/kyb.md): the record and its parts, their refusals,
// isolation and scopes; the verification pipeline — the sandbox registry, the ownership analysis
// on a chain, a diamond and a cycle, screening against a loaded sample list, the risk formula —
// and the company.verification_completed webhook.
#include <doctest/doctest.h>

#include <fstream>

#include "api/http/runtime.h"
#include "core/crypto.h"
#include "core/json.h"
#include "eventstore/key_store.h"
#include "pipeline/documents/checks.h"
#include "pipeline/kyb/kyb_seal.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"
#include "tests/support/receiver_process.h"
#include "tests/support/stopped_data_dir.h"

namespace integration_kyb_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

// A valid RFC from its first 11 (moral) or 12 (física) characters.
std::string Rfc(const std::string& first) { return first + core::mx::RfcCheckDigit(first); }

const std::string kSamples = std::string(SVC_TEST_SOURCE_DIR) + "/../docs/samples/lists/";

api::HttpResponse NewCompany(Env& env, const std::string& key, const std::string& idem, const core::Json& body) {
  return env.Call(key, "POST", "/v1/companies", body.dump(), {{"Idempotency-Key", idem}});
}

std::string CompanyId(Env& env, const std::string& key, const std::string& idem, const core::Json& body) {
  auto r = NewCompany(env, key, idem, body);
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"];
}

core::Json Post(Env& env, const std::string& key, const std::string& path, const core::Json& body, int status = 201) {
  auto r = env.Call(key, "POST", path, body.dump());
  REQUIRE_MESSAGE(r.status == status, r.body);
  return Body(r);
}

std::string Node(Env& env, const std::string& key, const std::string& company, core::Json body) {
  return Post(env, key, "/v1/companies/" + company + "/ubo", body)["id"];
}

core::Json Detail(Env& env, const std::string& key, const std::string& company) {
  auto r = env.Call(key, "GET", "/v1/companies/" + company);
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r);
}

core::Json NodeById(const core::Json& detail, const std::string& id) {
  for (const auto& n : detail["uboNodes"]) {
    if (n["id"] == id) return n;
  }
  FAIL("no node " << id);
  return nullptr;
}

core::Json CheckOf(const core::Json& detail, const std::string& type) {
  for (const auto& c : detail["checks"]) {
    if (c["type"] == type) return c;
  }
  FAIL("no check " << type);
  return nullptr;
}

bool HasFactor(const core::Json& detail, const std::string& code) {
  const core::Json risk = CheckOf(detail, "risk");
  for (const auto& f : risk["result"]["factors"]) {
    if (f["code"] == code) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("kyb: a company is created, listed, read and its status told; refusals, idempotency, isolation, scopes") {
  Env env(false);
  const std::string k = env.test_key;
  const std::string rfc = Rfc("ACM010203AB");
  auto created = NewCompany(env, k, "cmp-1", {{"legalName", "Acme Comercial, S.A. de C.V."}, {"rfc", rfc},
                                              {"tradeName", "Acme"}});
  REQUIRE_MESSAGE(created.status == 201, created.body);
  core::Json c = Body(created);
  const std::string id = c["id"];
  CHECK(id.rfind("cmp_", 0) == 0);
  CHECK(c["legalName"] == "Acme Comercial, S.A. de C.V.");
  CHECK(c["rfc"] == rfc);
  CHECK(c["country"] == "MX");
  CHECK(c["subjectKind"] == "legal_entity");
  CHECK(c["status"] == "draft");
  CHECK(c["claimStatus"] == "unclaimed");
  CHECK(c["riskLevel"].is_null());
  CHECK(c["riskScore"].is_null());
  CHECK(c["verifiedAt"].is_null());
  CHECK(c["tenantId"] == env.tenant);

  // The same Idempotency-Key and body: the same company, replayed.
  auto again = NewCompany(env, k, "cmp-1", {{"legalName", "Acme Comercial, S.A. de C.V."}, {"rfc", rfc},
                                            {"tradeName", "Acme"}});
  CHECK(again.status == 201);
  CHECK(Body(again)["id"] == id);
  CHECK(testing::HeaderOf(again, "Idempotent-Replayed") == "true");
  CheckProblem(NewCompany(env, k, "cmp-1", {{"legalName", "Otra"}}), 409, "IDEMPOTENCY_KEY_REUSED");
  // A second company with the RFC.
  auto dup = NewCompany(env, k, "cmp-2", {{"legalName", "Acme Dos"}, {"rfc", rfc}});
  CheckProblem(dup, 409, "RFC_CONFLICT");
  CHECK(Body(dup)["conflictingCompanyId"] == id);
  // The same RFC in the other environment or another tenant is another record.
  CHECK(NewCompany(env, env.live_key, "cmp-live", {{"legalName", "Acme"}, {"rfc", rfc}}).status == 201);
  const std::string other_tenant = env.NewTenant("Other");
  const std::string other_key = env.NewKey(other_tenant, "test", {"*"});
  CHECK(NewCompany(env, other_key, "cmp-o", {{"legalName", "Acme"}, {"rfc", rfc}}).status == 201);
  CheckProblem(env.Call(other_key, "GET", "/v1/companies/" + id), 404, "COMPANY_NOT_FOUND");
  CheckProblem(env.Call(env.live_key, "GET", "/v1/companies/" + id), 404, "COMPANY_NOT_FOUND");

  // A physical person with business activity (13 characters).
  auto fisica = NewCompany(env, k, "cmp-f", {{"legalName", "Laura Méndez Ortiz"}, {"rfc", Rfc("MEOL800102AB")}});
  REQUIRE_MESSAGE(fisica.status == 201, fisica.body);
  CHECK(Body(fisica)["subjectKind"] == "individual_business");

  // Refusals.
  CheckProblem(env.Call(k, "POST", "/v1/companies", R"({"legalName":"X"})"), 400, "IDEMPOTENCY_KEY_REQUIRED");
  CheckProblem(NewCompany(env, k, "bad-1", core::Json::object()), 422, "VALIDATION_ERROR");
  CheckProblem(NewCompany(env, k, "bad-2", {{"legalName", "   "}}), 422, "VALIDATION_ERROR");
  std::string bad_digit = rfc;
  bad_digit.back() = bad_digit.back() == '1' ? '2' : '1';
  auto digit = NewCompany(env, k, "bad-3", {{"legalName", "X"}, {"rfc", bad_digit}});
  CheckProblem(digit, 422, "VALIDATION_ERROR");
  CHECK(Body(digit)["errors"][0]["field"] == "rfc");
  CheckProblem(NewCompany(env, k, "bad-4", {{"legalName", "X"}, {"rfc", "ABC"}}), 422, "VALIDATION_ERROR");
  CheckProblem(NewCompany(env, k, "bad-5", {{"legalName", "X"}, {"country", "mex"}}), 422, "VALIDATION_ERROR");
  CheckProblem(NewCompany(env, k, "bad-6", {{"legalName", "X"}, {"country", "US"}, {"rfc", Rfc("XYZ010101AB")}}), 422,
               "VALIDATION_ERROR");
  CheckProblem(NewCompany(env, k, "bad-7", {{"legalName", "X"}, {"rfc", Rfc("XYZ010101AB")},
                                            {"subjectKind", "individual_business"}}),
               422, "VALIDATION_ERROR");
  CheckProblem(NewCompany(env, k, "bad-8", {{"legalName", "X"}, {"surprise", 1}}), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", "/v1/companies", "{not json", {{"Idempotency-Key", "bad-9"}}), 400, "BAD_REQUEST");
  CheckProblem(env.Call(k, "GET", "/v1/companies/cmp_123"), 400, "INVALID_ID");
  CheckProblem(env.Call(k, "GET", "/v1/companies/cmp_00000000000000000000000000000000"), 404, "COMPANY_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", "/v1/companies/cmp_00000000000000000000000000000000/status"), 404,
               "COMPANY_NOT_FOUND");

  // Detail and status.
  core::Json d = Detail(env, k, id);
  CHECK(d["tradeName"] == "Acme");
  CHECK(d["members"].empty());
  CHECK(d["documents"].empty());
  CHECK(d["uboNodes"].empty());
  CHECK(d["checks"].empty());
  CHECK(d["screeningHits"].empty());
  core::Json st = Body(env.Call(k, "GET", "/v1/companies/" + id + "/status"));
  CHECK(st == core::Json({{"id", id}, {"status", "draft"}, {"claimStatus", "unclaimed"}, {"riskLevel", nullptr},
                          {"riskScore", nullptr}}));

  // The list: this environment's companies, newest first, with names opened; the claimStatus filter.
  core::Json list = Body(env.Call(k, "GET", "/v1/companies?limit=10"));
  REQUIRE(list["data"].size() == 2);
  CHECK(list["data"][1]["id"] == id);
  CHECK(list["data"][1]["legalName"] == "Acme Comercial, S.A. de C.V.");
  CHECK(list["data"][0]["legalName"] == "Laura Méndez Ortiz");
  auto page = Body(env.Call(k, "GET", "/v1/companies?limit=1&includeTotal=true"));
  REQUIRE(page["hasMore"] == true);
  CHECK(page["totalCount"] == 2);
  auto next = Body(env.Call(k, "GET", "/v1/companies?limit=1&startingAfter=" + page["nextCursor"].get<std::string>()));
  REQUIRE(next["data"].size() == 1);
  CHECK(next["data"][0]["id"] == id);
  CheckProblem(env.Call(k, "GET", "/v1/companies?claimStatus=claimed&startingAfter=" + page["nextCursor"].get<std::string>()),
               400, "INVALID_CURSOR");
  CHECK(Body(env.Call(k, "GET", "/v1/companies?claimStatus=unclaimed"))["data"].size() == 2);
  CHECK(Body(env.Call(k, "GET", "/v1/companies?claimStatus=claimed"))["data"].empty());
  CheckProblem(env.Call(k, "GET", "/v1/companies?claimStatus=maybe"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", "/v1/companies?colour=red"), 400, "BAD_REQUEST");
  CHECK(Body(env.Call(env.live_key, "GET", "/v1/companies"))["data"].size() == 1);

  // Scopes: kyb:read reads, kyb:write writes.
  const std::string reader = env.NewKey(env.tenant, "test", {"kyb:read"});
  const std::string none = env.NewKey(env.tenant, "test", {"persons:read"});
  CHECK(env.Call(reader, "GET", "/v1/companies/" + id).status == 200);
  CHECK(env.Call(reader, "GET", "/v1/companies/" + id + "/status").status == 200);
  CheckProblem(NewCompany(env, reader, "scope-1", {{"legalName", "X"}}), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(reader, "POST", "/v1/companies/" + id + "/verify"), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(reader, "POST", "/v1/companies/" + id + "/members", R"({"name":"X"})"), 403,
               "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(none, "GET", "/v1/companies"), 403, "INSUFFICIENT_SCOPE");
}

TEST_CASE("kyb: members, documents and ownership nodes, and their refusals") {
  Env env(false);
  const std::string k = env.test_key;
  const std::string id = CompanyId(env, k, "parts-1", {{"legalName", "Partes, S.A. de C.V."}});
  const std::string base = "/v1/companies/" + id;
  core::Json m = Post(env, k, base + "/members", {{"name", "Jorge Salas Ibarra"}, {"role", "director"}});
  CHECK(m["id"].get<std::string>().rfind("cmm_", 0) == 0);
  CHECK(m["companyId"] == id);
  CHECK(m["name"] == "Jorge Salas Ibarra");
  CHECK(m["role"] == "director");
  CHECK(m["personId"].is_null());
  CHECK(m["verificationStatus"] == "pending");
  core::Json doc = Post(env, k, base + "/documents",
                        {{"kind", "acta_constitutiva"}, {"sha256", std::string(64, 'a')}, {"storageKey", "s3://b/acta.pdf"}});
  CHECK(doc["id"].get<std::string>().rfind("cdc_", 0) == 0);
  CHECK(doc["status"] == "received");
  CHECK(doc["uploadedByUserId"].is_null());
  core::Json top = Post(env, k, base + "/ubo", {{"name", "Holding Uno"}, {"nodeType", "company"}, {"ownershipPct", 70}});
  CHECK(top["ownershipPct"] == "70");
  CHECK(top["ownershipType"] == "direct");
  CHECK(top["effectivePct"].is_null());
  CHECK(top["status"] == "declared");
  core::Json under = Post(env, k, base + "/ubo", {{"name", "Eva Núñez"}, {"ownershipPct", "12.5"},
                                                   {"parentNodeId", top["id"]}});
  CHECK(under["nodeType"] == "person");
  CHECK(under["ownershipPct"] == "12.5");
  CHECK(under["ownershipType"] == "indirect");
  core::Json ctrl = Post(env, k, base + "/ubo", {{"name", "Iván Torres"}, {"isControlPerson", true}, {"role", "administrador único"}});
  CHECK(ctrl["ownershipPct"].is_null());
  CHECK(ctrl["isControlPerson"] == true);

  core::Json d = Detail(env, k, id);
  CHECK(d["members"].size() == 1);
  CHECK(d["members"][0]["name"] == "Jorge Salas Ibarra");
  CHECK(d["documents"].size() == 1);
  CHECK(d["uboNodes"].size() == 3);
  CHECK(NodeById(d, under["id"])["name"] == "Eva Núñez");

  // Refusals.
  CheckProblem(env.Call(k, "POST", base + "/ubo",
                        core::Json({{"name", "X"}, {"ownershipPct", 10}, {"parentNodeId", "ubo_00000000000000000000000000000000"}}).dump()),
               404, "UBO_NODE_NOT_FOUND");
  CheckProblem(env.Call(k, "POST", base + "/ubo",
                        core::Json({{"name", "X"}, {"ownershipPct", 10}, {"parentNodeId", under["id"]}}).dump()),
               422, "VALIDATION_ERROR");  // a person owns nothing
  CheckProblem(env.Call(k, "POST", base + "/ubo", core::Json({{"name", "X"}, {"ownershipPct", 40}}).dump()), 422,
               "VALIDATION_ERROR");  // 70 + 40 > 100
  for (const core::Json& pct : {core::Json(0), core::Json(100.5), core::Json("abc"), core::Json("1.23456"), core::Json(true)}) {
    CAPTURE(pct.dump());
    CheckProblem(env.Call(k, "POST", base + "/ubo", core::Json({{"name", "X"}, {"ownershipPct", pct}}).dump()), 422,
                 "VALIDATION_ERROR");
  }
  CheckProblem(env.Call(k, "POST", base + "/ubo", R"({"name":"X"})"), 422, "VALIDATION_ERROR");  // no share, no control
  CheckProblem(env.Call(k, "POST", base + "/ubo", R"({"name":"X","ownershipPct":5,"nodeType":"trust"})"), 422,
               "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", base + "/ubo", R"({"name":"X","ownershipPct":5,"parentNodeId":"nope"})"), 400,
               "INVALID_ID");
  CheckProblem(env.Call(k, "POST", base + "/members", R"({"role":"director"})"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", base + "/members", R"({"name":"X","personId":"per_00000000000000000000000000000000"})"),
               404, "PERSON_NOT_FOUND");
  CheckProblem(env.Call(k, "POST", base + "/documents", R"({"kind":"acta"})"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", base + "/documents", R"({"sha256":"XYZ"})"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", base + "/documents", "[]"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(k, "POST", "/v1/companies/cmp_00000000000000000000000000000000/members", R"({"name":"X"})"), 404,
               "COMPANY_NOT_FOUND");
  CheckProblem(env.Call(env.live_key, "POST", base + "/documents", R"({"storageKey":"k"})"), 404, "COMPANY_NOT_FOUND");
  CheckProblem(env.Call(k, "POST", base + "/verify", R"({"force":true})"), 422, "VALIDATION_ERROR");
}

TEST_CASE("kyb: a company is never verified unscreened: with no list loaded, the run asks for review") {
  Env env(false, {}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string id = CompanyId(env, k, "unscreened", {{"legalName", "Sin Listas, S.A."}, {"rfc", Rfc("SLI050505QX")}});
  Node(env, k, id, {{"name", "Ana Ruiz"}, {"ownershipPct", 100}});
  core::Json v = Body(env.Call(k, "POST", "/v1/companies/" + id + "/verify"));
  CHECK(v["status"] == "needs_review");
  CHECK(v["riskScore"] == 10);
  core::Json d = Detail(env, k, id);
  CHECK(CheckOf(d, "screening")["status"] == "not_run");
  CHECK(CheckOf(d, "screening")["result"]["lists"].empty());
  CHECK(HasFactor(d, "screening_not_run"));
}

TEST_CASE("kyb: verify analyses a chain, a diamond and a cycle into the documented effective percentages") {
  Env env(false);
  const std::string k = env.test_key;
  REQUIRE(env.Admin("POST", "/admin/aml/lists",
                    {{"format", "ofac_sdn_csv"}, {"files", {kSamples + "sdn.csv", kSamples + "alt.csv"}}})
              .status == 200);
  // A chain: the company <- 60% Alfa <- 50% Beta <- 80% Ana: Ana 24% (docs/kyb.md#ownership).
  const std::string chain = CompanyId(env, k, "chain", {{"legalName", "Cadena, S.A. de C.V."}, {"rfc", Rfc("CAD050505QX")}});
  const std::string cb = "/v1/companies/" + chain;
  const std::string alfa = Node(env, k, chain, {{"name", "Alfa Holding"}, {"nodeType", "company"}, {"ownershipPct", 60}});
  const std::string beta =
      Node(env, k, chain, {{"name", "Beta Inversiones"}, {"nodeType", "company"}, {"ownershipPct", 50}, {"parentNodeId", alfa}});
  const std::string ana = Node(env, k, chain, {{"name", "Ana Ruiz"}, {"ownershipPct", 80}, {"parentNodeId", beta}});
  const std::string rest = Node(env, k, chain, {{"name", "Rosa Paz"}, {"ownershipPct", 40}});
  auto v = env.Call(k, "POST", cb + "/verify");
  REQUIRE_MESSAGE(v.status == 200, v.body);
  core::Json vr = Body(v);
  CHECK(vr["id"] == chain);
  CHECK(vr["status"] == "verified");
  CHECK(vr["verifiedAt"].is_string());
  core::Json d = Detail(env, k, chain);
  CHECK(NodeById(d, ana)["effectivePct"] == "24.00");
  CHECK(NodeById(d, beta)["effectivePct"] == "30.00");
  CHECK(NodeById(d, alfa)["effectivePct"] == "60.00");
  CHECK(NodeById(d, rest)["effectivePct"] == "40.00");
  core::Json own = CheckOf(d, "ownership");
  CHECK(own["status"] == "passed");
  CHECK(own["result"]["unexplainedPct"] == "36.00");  // 100 - 24 - 40
  CHECK(own["result"]["beneficialOwners"] == core::Json::array({rest, ana}));
  CHECK(d["registryStatus"] == "active");
  CHECK(d["registryAuthority"] == "SE-SIGER");
  CHECK(d["legalForm"] == "sociedad anónima de capital variable");
  CHECK(d["incorporationDate"] == "2005-05-05");
  CHECK(d["verificationMethod"] == "registry_sandbox");
  CHECK(CheckOf(d, "registry")["status"] == "passed");
  CHECK(CheckOf(d, "screening")["status"] == "passed");  // screened, nobody on the list
  // 36% unexplained: 11 points; nothing else.
  CHECK(d["riskScore"] == 11);
  CHECK(d["riskLevel"] == "low");
  CHECK(HasFactor(d, "unexplained_ownership"));

  // A diamond: Carla holds all of Ceta and 30% of Delta, which hold 50% each: 50 + 15 = 65%.
  const std::string diamond = CompanyId(env, k, "diamond", {{"legalName", "Diamante, S.A."}, {"rfc", Rfc("DIA060606QX")}});
  const std::string ceta = Node(env, k, diamond, {{"name", "Ceta SA"}, {"nodeType", "company"}, {"ownershipPct", 50}});
  const std::string delta = Node(env, k, diamond, {{"name", "Delta SA"}, {"nodeType", "company"}, {"ownershipPct", 50}});
  const std::string carla1 = Node(env, k, diamond, {{"name", "Carla Ruiz"}, {"ownershipPct", 100}, {"parentNodeId", ceta}});
  const std::string carla2 = Node(env, k, diamond, {{"name", "Carla Ruiz"}, {"ownershipPct", 30}, {"parentNodeId", delta}});
  const std::string dan = Node(env, k, diamond, {{"name", "Dan Ortiz"}, {"ownershipPct", 70}, {"parentNodeId", delta}});
  REQUIRE(env.Call(k, "POST", "/v1/companies/" + diamond + "/verify").status == 200);
  d = Detail(env, k, diamond);
  CHECK(NodeById(d, carla1)["effectivePct"] == "65.00");
  CHECK(NodeById(d, carla2)["effectivePct"] == "65.00");  // one party, declared twice
  CHECK(NodeById(d, dan)["effectivePct"] == "35.00");
  CHECK(CheckOf(d, "ownership")["result"]["unexplainedPct"] == "0.00");
  CHECK(d["riskLevel"] == "low");
  CHECK(d["status"] == "verified");

  // A cross-holding: Xochi holds all of the company; Yax holds 50% of Xochi and Xochi 40% of Yax.
  const std::string cycle = CompanyId(env, k, "cycle", {{"legalName", "Ciclo, S.A."}, {"rfc", Rfc("CIC070707QX")}});
  const std::string x = Node(env, k, cycle, {{"name", "Xochi SA"}, {"nodeType", "company"}, {"ownershipPct", 100}});
  const std::string y = Node(env, k, cycle, {{"name", "Yax SA"}, {"nodeType", "company"}, {"ownershipPct", 50}, {"parentNodeId", x}});
  Node(env, k, cycle, {{"name", "Xochi SA"}, {"nodeType", "company"}, {"ownershipPct", 40}, {"parentNodeId", y}});
  const std::string pedro = Node(env, k, cycle, {{"name", "Pedro Gil"}, {"ownershipPct", 50}, {"parentNodeId", x}});
  auto cv = env.Call(k, "POST", "/v1/companies/" + cycle + "/verify");
  REQUIRE_MESSAGE(cv.status == 200, cv.body);  // terminates: the cycle is never looped
  d = Detail(env, k, cycle);
  CHECK(NodeById(d, x)["effectivePct"] == "100.00");
  CHECK(NodeById(d, y)["effectivePct"] == "50.00");
  CHECK(NodeById(d, pedro)["effectivePct"] == "50.00");
  own = CheckOf(d, "ownership");
  CHECK(own["status"] == "needs_review");
  REQUIRE(own["result"]["cycles"].size() == 1);
  CHECK(HasFactor(d, "cross_holding"));
  CHECK(d["status"] == "verified");  // a cross-holding weighs, it does not stop

  // A change after the run: back to draft; verify again.
  Post(env, k, "/v1/companies/" + cycle + "/members", {{"name", "Laura Gil"}});
  CHECK(Body(env.Call(k, "GET", "/v1/companies/" + cycle + "/status"))["status"] == "draft");
  CHECK(Body(env.Call(k, "POST", "/v1/companies/" + cycle + "/verify"))["status"] == "verified");
  CHECK(CheckOf(Detail(env, k, cycle), "risk")["run"] == 2);
}

TEST_CASE("kyb: the sandbox registry's outcomes decide the status, and the run ends in a webhook") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  REQUIRE(env.Admin("POST", "/admin/aml/lists",
                    {{"format", "ofac_sdn_csv"}, {"files", {kSamples + "sdn.csv", kSamples + "alt.csv"}}})
              .status == 200);
  receiver.AddSecret(testing::Subscribe(env, receiver.port(), "/k", {"company.*"}, "hook-kyb"));
  struct Want {
    std::string rfc, status, level, factor;
  };
  const std::vector<Want> wants = {
      {Rfc("DIS010101AB"), "rejected", "high", "registry_dissolved"},
      {Rfc("NEX010101AB"), "rejected", "medium", "registry_not_found"},
      {Rfc("SUS010101AB"), "needs_review", "medium", "registry_suspended"},
      {Rfc("UNA010101AB"), "needs_review", "low", "registry_unavailable"},
  };
  int n = 0;
  for (const auto& w : wants) {
    CAPTURE(w.rfc);
    const std::string id = CompanyId(env, k, "reg-" + std::to_string(n++), {{"legalName", "Casino Real, S.A. de C.V."}, {"rfc", w.rfc}});
    Node(env, k, id, {{"name", "Dueño Único"}, {"ownershipPct", 100}});
    core::Json v = Body(env.Call(k, "POST", "/v1/companies/" + id + "/verify"));
    CHECK(v["status"] == w.status);
    CHECK(v["riskLevel"] == w.level);
    core::Json d = Detail(env, k, id);
    CHECK(HasFactor(d, w.factor));
  }
  // A foreign company has no registry here: not run, reviewed by a person.
  const std::string foreign = CompanyId(env, k, "reg-us", {{"legalName", "Foreign Corp"}, {"country", "US"}});
  core::Json v = Body(env.Call(k, "POST", "/v1/companies/" + foreign + "/verify"));
  CHECK(v["status"] == "needs_review");
  CHECK(CheckOf(Detail(env, k, foreign), "registry")["status"] == "needs_review");
  // An activity of LFPIORPI art. 17 from the registry (a casino) weighs.
  const core::Json casino_body = {{"legalName", "Casino Real, S.A. de C.V."}, {"rfc", Rfc("CRE010101AB")}};
  const auto first = NewCompany(env, k, "reg-casino", casino_body);
  REQUIRE(first.status == 201);
  const std::string casino = Body(first)["id"];
  Node(env, k, casino, {{"name", "Dueño Único"}, {"ownershipPct", 100}});
  core::Json cd = Body(env.Call(k, "POST", "/v1/companies/" + casino + "/verify"));
  CHECK(cd["riskScore"] == 15);
  // The create sent again with its key after the run: its first answer, byte for byte (a draft
  // without the registry's figures), not the company as it is now (issue 67).
  const auto again = NewCompany(env, k, "reg-casino", casino_body);
  CHECK(again.status == 201);
  CHECK(again.body == first.body);
  CHECK(Body(again)["status"] == "draft");
  CHECK(HasFactor(Detail(env, k, casino), "vulnerable_activity"));

  REQUIRE(receiver.WaitFor("/k", 7));  // service.test on registration, then the six runs
  int completed = 0;
  for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) {
    core::Json body = core::ParseJsonOrDiscarded(m.value("body", "{}"));
    if (body.value("type", "") != "company.verification_completed") continue;
    ++completed;
    CHECK(m["verifiedBy"] == core::Json::array({0}));  // the reference Standard Webhooks package
    CHECK(body["data"]["companyId"].get<std::string>().rfind("cmp_", 0) == 0);
    CHECK(body["data"]["riskLevel"].is_string());
    CHECK(body.dump().find("Casino") == std::string::npos);  // ids and figures only
  }
  CHECK(completed == 6);
}

TEST_CASE("kyb: a company whose director is on a loaded sample list ends high risk, the hit explained") {
  Env env(false, {}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto load = env.Admin("POST", "/admin/aml/lists",
                        {{"format", "ofac_sdn_csv"}, {"files", {kSamples + "sdn.csv", kSamples + "alt.csv"}}});
  REQUIRE_MESSAGE(load.status == 200, load.body);
  const std::string hash = Body(load)["contentHash"];
  CHECK(Body(load)["source"] == "ofac_sdn");
  const std::string id = CompanyId(env, k, "dir-1", {{"legalName", "Comercializadora del Norte, S.A. de C.V."},
                                                     {"rfc", Rfc("CNO100101AB")}});
  const std::string member =
      Post(env, k, "/v1/companies/" + id + "/members", {{"name", "Rogelio Armando Villarreal Quintana"}, {"role", "director"}})["id"];
  Node(env, k, id, {{"name", "Marta Sosa"}, {"ownershipPct", 100}});
  core::Json v = Body(env.Call(k, "POST", "/v1/companies/" + id + "/verify"));
  CHECK(v["riskLevel"] == "high");
  CHECK(v["riskScore"] == 60);
  CHECK(v["status"] == "needs_review");  // an open hit waits for a compliance officer
  core::Json d = Detail(env, k, id);
  REQUIRE(d["screeningHits"].size() == 1);
  core::Json hit = d["screeningHits"][0];
  CHECK(hit["subjectType"] == "company_member");
  CHECK(hit["subjectId"] == member);
  CHECK(hit["companyId"] == id);
  CHECK(hit["list"]["source"] == "ofac_sdn");
  CHECK(hit["list"]["format"] == "ofac_sdn_csv");
  CHECK(hit["list"]["contentHash"] == hash);
  CHECK(hit["entry"]["id"] == "9001");
  CHECK(hit["entry"]["name"] == "VILLARREAL QUINTANA, Rogelio Armando");
  CHECK(hit["score"].get<double>() >= 0.95);
  CHECK(hit["algorithm"] == "name-match/v1");
  CHECK(hit["status"] == "open");
  CHECK(d["members"][0]["verificationStatus"] == "hit");
  CHECK(HasFactor(d, "sanctions_hit_strong"));
  core::Json screening = CheckOf(d, "screening");
  CHECK(screening["status"] == "needs_review");
  CHECK(screening["result"]["lists"][0]["contentHash"] == hash);
  CHECK(screening["result"]["namesScreened"] == 3);  // the legal name, the director, the owner

  // Dismissed as a false positive, the hit weighs no more on the next run.
  auto dismissed = env.Call(k, "POST", "/v1/screening-hits/" + hit["id"].get<std::string>() + "/review",
                            R"({"decision":"dismissed","reasonCode":"false_positive","note":"another person, born 1985"})");
  REQUIRE_MESSAGE(dismissed.status == 200, dismissed.body);
  core::Json again = Body(env.Call(k, "POST", "/v1/companies/" + id + "/verify"));
  CHECK(again["riskLevel"] == "low");
  CHECK(again["status"] == "verified");
  CHECK(Detail(env, k, id)["screeningHits"].size() == 1);  // the same hit, met again
}

TEST_CASE("kyb and aml on both log backends: a list loaded, a company verified against it, its hit reviewed") {
  BOTH_BACKENDS;
  Env env(kafka, {}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto load = env.Admin("POST", "/admin/aml/lists",
                        {{"format", "opensanctions_csv"}, {"files", {kSamples + "targets.simple.csv"}}});
  REQUIRE_MESSAGE(load.status == 200, load.body);
  const std::string id = CompanyId(env, k, "both-1", {{"legalName", "Grupo Inmobiliario Sierra Alta, S.A. de C.V."},
                                                      {"rfc", "GIS1104058K1"}});  // as the sample list has it
  Node(env, k, id, {{"name", "Adriana Belén Córdova Rangel"}, {"ownershipPct", 100}});
  core::Json v = Body(env.Call(k, "POST", "/v1/companies/" + id + "/verify"));
  CHECK(v["status"] == "needs_review");
  CHECK(v["riskLevel"] == "high");  // the company itself is designated (60), its owner a PEP (20)
  core::Json d = Detail(env, k, id);
  REQUIRE(d["screeningHits"].size() == 2);
  CHECK(HasFactor(d, "sanctions_hit_strong"));
  CHECK(HasFactor(d, "pep_hit"));
  CHECK(HasFactor(d, "vulnerable_activity"));  // an inmobiliaria
  for (const auto& h : d["screeningHits"]) {
    const std::string decision = h["subjectType"] == "company" ? "confirmed" : "dismissed";
    const std::string reason = decision == "confirmed" ? "true_match" : "false_positive";
    REQUIRE(env.Call(k, "POST", "/v1/screening-hits/" + h["id"].get<std::string>() + "/review",
                     core::Json({{"decision", decision}, {"reasonCode", reason}}).dump())
                .status == 200);
  }
  core::Json again = Body(env.Call(k, "POST", "/v1/companies/" + id + "/verify"));
  CHECK(again["status"] == "verified");  // nothing open any more
  CHECK(again["riskScore"] == 75);       // the confirmed sanction and the activity
  CHECK(Body(env.Call(k, "GET", "/v1/screening-hits?status=confirmed"))["data"].size() == 1);
}

// Issue 31: a company whose RFC is a listed entry's identifier was `verified` unless its name
// matched too.
TEST_CASE("kyb: a company with a listed entry's RFC gets the hit whatever its name, and needs review") {
  Env env(false, {}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto load = env.Admin("POST", "/admin/aml/lists",
                        {{"format", "ofac_sdn_csv"}, {"files", {kSamples + "sdn.csv", kSamples + "alt.csv"}}});
  REQUIRE_MESSAGE(load.status == 200, load.body);
  const std::string id = CompanyId(env, k, "id-hit-1", {{"legalName", "Servicios Profesionales Distintos, S.A. de C.V."},
                                                        {"rfc", "TLP0902117T1"}});  // entry 9002's R.F.C.
  Node(env, k, id, {{"name", "Marta Sosa"}, {"ownershipPct", 100}});
  core::Json v = Body(env.Call(k, "POST", "/v1/companies/" + id + "/verify"));
  CHECK(v["status"] == "needs_review");
  CHECK(v["riskLevel"] == "high");
  core::Json d = Detail(env, k, id);
  REQUIRE(d["screeningHits"].size() == 1);
  CHECK(d["screeningHits"][0]["subjectType"] == "company");
  CHECK(d["screeningHits"][0]["entry"]["id"] == "9002");
  CHECK(d["screeningHits"][0]["score"] == 1.0);
}

// Issue 35, item 4: the SAT's own lists. A company on 69-B as Definitivo, met by its RFC alone,
// ends high with the reason; an owner on it by name counts the same; art. 69 weighs less.
TEST_CASE("kyb: the SAT's 69-B and 69 lists: a Definitivo company is high risk, the reason explained") {
  Env env(false, {}, Sharing::kIsolated);
  const std::string k = env.test_key;
  REQUIRE(env.Admin("POST", "/admin/aml/lists", {{"format", "sat_69b_csv"}, {"files", {kSamples + "sat_69b.csv"}}})
              .status == 200);
  REQUIRE(env.Admin("POST", "/admin/aml/lists",
                    {{"format", "sat_69_csv"},
                     {"files", {kSamples + "sat_69_firmes.csv", kSamples + "sat_69_no_localizados.csv"}}})
              .status == 200);
  const std::string efos = CompanyId(env, k, "sat-1", {{"legalName", "Servicios Distintos del Centro, S.A. de C.V."},
                                                       {"rfc", "CAÑ150312Q78"}});  // the sample's Definitivo
  Node(env, k, efos, {{"name", "Marta Sosa"}, {"ownershipPct", 100}});
  core::Json v = Body(env.Call(k, "POST", "/v1/companies/" + efos + "/verify"));
  CHECK(v["riskLevel"] == "high");
  CHECK(v["status"] == "needs_review");
  core::Json d = Detail(env, k, efos);
  REQUIRE(d["screeningHits"].size() == 1);
  CHECK(d["screeningHits"][0]["list"]["source"] == "sat_69b");
  CHECK(d["screeningHits"][0]["reasons"] == core::Json::array({"id_number_equal"}));
  core::Json factor;
  const core::Json risk = CheckOf(d, "risk");
  for (const auto& f : risk["result"]["factors"]) {
    if (f["code"] == "sat_69b_definitivo") factor = f;
  }
  REQUIRE_MESSAGE(factor.is_object(), d.dump());
  CHECK(factor["points"] == 60);
  CHECK(factor["detail"]["situacion"] == "Definitivo");
  CHECK_FALSE(HasFactor(d, "sanctions_hit_strong"));  // the SAT's listing is its own factor

  // An owner who is a persona física on 69-B, by name; and a company on art. 69 (medium at most).
  const std::string owned = CompanyId(env, k, "sat-2", {{"legalName", "Comercial Aurora del Valle, S.A. de C.V."},
                                                        {"rfc", Rfc("CAV120301LM")}});
  Node(env, k, owned, {{"name", "José Ángel Gómez Álvarez"}, {"ownershipPct", 100}});
  CHECK(Body(env.Call(k, "POST", "/v1/companies/" + owned + "/verify"))["riskLevel"] == "high");
  CHECK(HasFactor(Detail(env, k, owned), "sat_69b_definitivo"));
  const std::string firm = CompanyId(env, k, "sat-3", {{"legalName", "Abarrotes La Rivereña, S.A. de C.V."},
                                                       {"rfc", "ALR160810JG9"}});
  Node(env, k, firm, {{"name", "Marta Sosa"}, {"ownershipPct", 100}});
  core::Json f = Body(env.Call(k, "POST", "/v1/companies/" + firm + "/verify"));
  CHECK(f["riskScore"] == 20);
  CHECK(HasFactor(Detail(env, k, firm), "sat_69_incumplido"));
}

// Issue 31: Mexican identifiers by one rule set: Ñ and & in RFCs; the generic RFCs; a related
// company must be one of the caller's.
TEST_CASE("kyb: RFCs with Ñ and &, the generic RFCs, and relatedCompanyId of another tenant") {
  Env env(false);
  const std::string k = env.test_key;
  auto enye = NewCompany(env, k, "mx-1", {{"legalName", "Año Nuevo Comercial, S.A."}, {"rfc", Rfc("AÑO010203AB")}});
  CHECK_MESSAGE(enye.status == 201, enye.body);
  auto amp = NewCompany(env, k, "mx-2", {{"legalName", "A&B Servicios, S.C."}, {"rfc", "a&b-010203-" + Rfc("A&B010203XY").substr(9)}});
  CHECK_MESSAGE(amp.status == 201, amp.body);
  if (amp.status == 201) CHECK(Body(amp)["rfc"] == Rfc("A&B010203XY"));
  for (const char* generic : {"XAXX010101000", "XEXX010101000"}) {
    auto r = NewCompany(env, k, std::string("mx-") + generic, {{"legalName", "Nadie"}, {"rfc", generic}});
    CheckProblem(r, 422, "VALIDATION_ERROR");
    CHECK(r.body.find("generic") != std::string::npos);
  }
  const std::string mine = Body(enye)["id"];
  // Another tenant's company, and one that does not exist, are not found.
  std::string other_tenant = env.NewTenant("Other");
  std::string other_key = env.NewKey(other_tenant, "test", {"*"});
  const std::string theirs = CompanyId(env, other_key, "mx-theirs", {{"legalName", "Ajena SA"}});
  for (const std::string& related : {theirs, std::string("cmp_00000000000000000000000000000000")}) {
    CheckProblem(env.Call(k, "POST", "/v1/companies/" + mine + "/ubo",
                          core::Json{{"name", "Holding"}, {"nodeType", "company"}, {"ownershipPct", 50}, {"relatedCompanyId", related}}
                              .dump()),
                 404, "COMPANY_NOT_FOUND");
  }
  const std::string also_mine = Body(amp)["id"];
  auto ok = env.Call(k, "POST", "/v1/companies/" + mine + "/ubo",
                     core::Json{{"name", "A&B"}, {"nodeType", "company"}, {"ownershipPct", 50}, {"relatedCompanyId", also_mine}}.dump());
  CHECK_MESSAGE(ok.status == 201, ok.body);
}

// ---- A member's or owner's erasure (issue 35, item 3; docs/kyb.md#erasure) ----------------------

TEST_CASE("kyb erasure: an ARCO cancellation erases a member's name for good, with its certificate") {
  Env env(false, {}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string data = env.server->data_dir();
  const std::string company = CompanyId(env, k, "erase-1", {{"legalName", "Distribuidora Norte SA de CV"}});
  const std::string kName = "Ana Gómez Martínez";
  const std::string member = Post(env, k, "/v1/companies/" + company + "/members", {{"name", kName}, {"role", "director"}})["id"];
  const std::string node =
      Node(env, k, company, {{"name", "Beto Ruiz Díaz"}, {"nodeType", "person"}, {"ownershipPct", "40"}});
  CHECK(Detail(env, k, company)["members"][0]["name"] == kName);
  const std::string base = "/v1/companies/" + company;

  // The ARCO request of a member: a cancellation only; the subject must exist.
  const core::Json identity = {{"method", "official_id"}, {"reference", "INE folio 0099"}};
  auto arco = [&](const core::Json& subject, const std::string& right) {
    core::Json body = subject;
    body["right"] = right;
    body["identityVerification"] = identity;
    return env.Call(k, "POST", "/v1/arco-requests", body.dump());
  };
  const core::Json as_member = {{"companyMember", {{"companyId", company}, {"memberId", member}}}};
  CheckProblem(arco(as_member, "access"), 422, "VALIDATION_ERROR");
  CheckProblem(arco({{"companyMember", {{"companyId", company}, {"memberId", "cmm_00000000000000000000000000000000"}}}},
                    "cancellation"),
               404, "COMPANY_MEMBER_NOT_FOUND");
  CheckProblem(arco({{"uboNode", {{"companyId", company}, {"uboNodeId", "ubo_00000000000000000000000000000000"}}}},
                    "cancellation"),
               404, "UBO_NODE_NOT_FOUND");
  CheckProblem(arco({{"companyMember", {{"companyId", "cmp_00000000000000000000000000000000"}, {"memberId", member}}}},
                    "cancellation"),
               404, "COMPANY_NOT_FOUND");
  core::Json both = as_member;
  both["personId"] = "per_00000000000000000000000000000000";
  CheckProblem(arco(both, "cancellation"), 422, "VALIDATION_ERROR");
  CheckProblem(arco({{"companyMember", {{"companyId", company}}}}, "cancellation"), 422, "VALIDATION_ERROR");
  auto made = arco(as_member, "cancellation");
  REQUIRE_MESSAGE(made.status == 201, made.body);
  const std::string request = Body(made)["id"];
  CHECK(Body(made)["subject"] == core::Json{{"type", "company_member"}, {"personId", nullptr}, {"companyId", company},
                                            {"memberId", member}});

  // Before: no certificate. A forget naming the request for another subject is refused.
  CheckProblem(env.Call(k, "GET", base + "/members/" + member + "/deletion-certificate"), 409, "DELETION_NOT_COMPLETE");
  CheckProblem(env.Call(k, "POST", base + "/ubo/" + node + "/forget", core::Json{{"arcoRequestId", request}}.dump()), 409,
               "CONFLICT");
  CheckProblem(env.Call(k, "POST", base + "/members/cmm_00000000000000000000000000000000/forget"), 404,
               "COMPANY_MEMBER_NOT_FOUND");
  CheckProblem(env.Call(k, "POST", base + "/members/nope/forget"), 400, "INVALID_ID");
  CheckProblem(env.Call(k, "POST", base + "/members/" + member + "/forget", R"({"reason":7})"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", "/v1/companies/cmp_00000000000000000000000000000000/members/" + member + "/forget"), 404,
               "COMPANY_NOT_FOUND");

  // The forget: the name leaves the read models at once, the key goes with the shredder's run.
  auto forgot = env.Call(k, "POST", base + "/members/" + member + "/forget",
                         core::Json{{"reason", "ARCO TICKET-77"}, {"arcoRequestId", request}}.dump());
  REQUIRE_MESSAGE(forgot.status == 200, forgot.body);
  CHECK(Body(forgot)["subjectType"] == "member");
  core::Json m = Detail(env, k, company)["members"][0];
  CHECK(m["name"].is_null());
  CHECK(m["forgottenAt"].is_string());
  CHECK(Body(env.Admin("POST", "/admin/kyb/shred"))["keysDestroyed"].get<int>() <= 1);  // the route's wake may have run it
  CHECK(Body(env.Admin("POST", "/admin/kyb/shred"))["keysDestroyed"] == 0);              // once
  auto cert = env.Call(k, "GET", base + "/members/" + member + "/deletion-certificate");
  REQUIRE_MESSAGE(cert.status == 200, cert.body);
  const core::Json c = Body(cert);
  CHECK(c["object"] == "kyb.deletion_certificate");
  CHECK(c["subjectId"] == member);
  CHECK(c["arcoRequestId"] == request);
  CHECK(c["keysDestroyed"] == 1);
  CHECK(cert.body.find("Ana") == std::string::npos);
  CHECK(env.Call(k, "GET", base + "/members/" + member + "/deletion-certificate").body == cert.body);  // the same bytes
  // The request is completed by it.
  REQUIRE(env.Admin("POST", "/admin/persons/wait-idle").status == 200);
  core::Json done = Body(env.Call(k, "GET", "/v1/arco-requests/" + request));
  CHECK(done["status"] == "completed");
  CHECK(done["fulfilment"]["operation"] == "member_erasure");
  // A repeat answers the same; the node is erased without a request too; the company verifies
  // without the erased names.
  auto again = env.Call(k, "POST", base + "/members/" + member + "/forget");
  REQUIRE(again.status == 200);
  CHECK(Body(again)["keysDestroyed"] == true);
  REQUIRE(env.Call(k, "POST", base + "/ubo/" + node + "/forget").status == 200);
  REQUIRE(env.Admin("POST", "/admin/kyb/shred").status == 200);
  REQUIRE(env.Call(k, "GET", base + "/ubo/" + node + "/deletion-certificate").status == 200);
  REQUIRE(env.Call(k, "POST", base + "/verify").status == 200);
  REQUIRE(env.Admin("POST", "/admin/kyb/wait-idle").status == 200);
  core::Json after = Detail(env, k, company);
  CHECK(after["uboNodes"][0]["name"].is_null());
  const std::string file = env.dir.path() + "/kyb-deletion.json";
  std::ofstream(file) << cert.body;
  auto key = testing::RunSvc({"certificate", "public-key", "--tenant", env.tenant, "--env", "test", "--data-dir", data});
  REQUIRE_MESSAGE(key.exit_code == 0, key.err);
  const std::string public_key = core::ParseJsonOrDiscarded(key.out)["publicKey"];

  // After a stop: the member's sealed name is still in the log (never rewritten) and no key of
  // the key store opens it; its key's name is gone; the certificate verifies offline.
  env.server->Stop();
  auto store = testing::OpenStoppedStore(data);
  auto master = api::LoadMasterKey(data, api::KeySources{"", "", true}, /*create=*/false);
  REQUIRE(master.ok());
  eventstore::KeyStore keys(store.get(), core::DeriveSubkey(*master, "svc/key-encryption/v1"));
  std::vector<std::string> all;
  {
    auto it = store->NewIterator(store->Cf("keystore"), "", "");
    for (it->Seek(""); it->Valid(); it->Next()) {
      std::string row(it->key());
      const std::string name = row.find('/') == std::string::npos ? row : row.substr(row.find('/') + 1);
      CHECK(name.find(member) == std::string::npos);
      auto got = keys.Get(name);
      if (got.ok() && got->has_value()) all.push_back(**got);
    }
  }
  int sealed = 0, opened = 0;
  testing::ForEachLoggedEvent(store.get(), [&](const eventstore::EventEnvelope& e) {
    if (e.type != "kyb.member_added") return;
    const core::Json d = core::ParseJsonOrDiscarded(e.data);
    if (d.value("memberId", "") != member) return;
    ++sealed;
    auto raw = core::Base64Decode(core::StringOr(d, "nameSealed"));
    REQUIRE(raw.ok());
    for (const auto& key_bytes : all) {
      opened += core::AeadOpen(key_bytes, *raw, pipeline::kyb::KybAad(env.tenant, "test", member, "name")).ok();
    }
  });
  CHECK(sealed == 1);
  CHECK(opened == 0);
  auto offline = testing::RunSvc({"certificate", "verify", file, "--public-key", public_key});
  CHECK_MESSAGE(offline.exit_code == 0, offline.out << offline.err);
}

}  // namespace integration_kyb_test
