// The person vault through a real svc: writes and masked reads (create, upsert by externalRef,
// PATCH revisions, list, fields, search, duplicates), every error path, CURP conflicts, scopes,
// test/live and tenant isolation, and the reveals (decrypt, batch decrypt, expand) with the
// daily budget on the fake clock.
#include <doctest/doctest.h>

#include <set>
#include <thread>

#include "api/http/runtime.h"
#include "api/server/modules.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/verification/builtin_engines.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"
#include "tests/support/session_flow.h"

namespace integration_persons_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::HeaderOf;
using svc::testing::Sharing;

namespace {

const std::string kBase = "/v1/persons";
// Reveals are rate-limited per key (5/s by default); these cases make many in a row.
const std::vector<std::string> kFlags = {"--rate-reveals", "0"};
// CURPs with valid check digits.
const std::string kCurpA = "PEPJ800101HDFRRN03";
const std::string kCurpB = "LOMA900215MJCPRR05";
const std::string kCurpC = "GARC750630HNLRDR06";

api::HttpResponse Post(Env& env, const std::string& key, const std::string& path, const core::Json& body,
                       std::map<std::string, std::string> headers = {}) {
  return env.Call(key, "POST", path, body.dump(), std::move(headers));
}

std::string MakePerson(Env& env, const std::string& key, const core::Json& body) {
  auto r = Post(env, key, kBase, body);
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"].get<std::string>();
}

// A test-environment session the sandbox forces to `approved` (the sandbox engine reads the
// documented specimen from any capture), run to its verdict and its data into the vault.
std::string ApprovedSession(Env& env, const std::string& idem, const std::string& person = "") {
  core::Json body = {{"channel", "api"}, {"policy", {{"testOutcome", "approved"}}}};
  if (!person.empty()) body["personId"] = person;
  auto created = env.Create(env.test_key, idem, body.dump());
  REQUIRE_MESSAGE(created.status == 201, created.body);
  std::string id = Body(created)["id"];
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/consent", R"({"accepted":true})").status == 200);
  for (const auto& [kind, mime, bytes] : testing::MinimalCaptures()) {
    auto r = testing::Upload(env, env.test_key, id, kind, mime, bytes);
    REQUIRE_MESSAGE(r.status == 201, r.body);
  }
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  REQUIRE(env.Admin("POST", "/admin/persons/wait-idle").status == 200);
  return id;
}

core::Json Decrypt(Env& env, const std::string& key, const std::string& id, std::vector<std::string> fields,
                   int expect = 200) {
  auto r = Post(env, key, kBase + "/" + id + "/decrypt",
                {{"fields", fields}, {"purpose", "identity_verification"}, {"reason", "onboarding check"}});
  REQUIRE_MESSAGE(r.status == expect, r.body);
  return Body(r);
}

}  // namespace

TEST_CASE("persons: create, masked reads, revisions and the externalRef upsert") {
  BOTH_BACKENDS;
  Env env(kafka, kFlags);
  core::Json create = {{"externalRef", "user-1001"},
                       {"metadata", {{"tier", "gold"}}},
                       {"pii",
                        {{"curp", kCurpA.substr(0, 4) + "800101hdfrrn03"},  // normalised to upper case
                         {"fullName", "José Pérez Núñez"},
                         {"email", "Jose.Perez@Example.MX"},
                         {"phone", "55 1234 5678"},
                         {"birthDate", "1980-01-01"},
                         {"sex", "M"},
                         {"state", "DF"},
                         {"nationality", "MX"}}}};
  auto made = Post(env, env.test_key, kBase, create, {{"Idempotency-Key", "p-1"}, {"Service-Version", "2026-01-01"}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  core::Json w = Body(made);
  std::string id = w["id"];
  CHECK(id.rfind("per_", 0) == 0);
  CHECK(w["piiVersion"] == 1);
  CHECK(w["status"] == "active");
  CHECK(w["environment"] == "test");
  CHECK(w["curpProvided"] == true);
  CHECK(w["phoneProvided"] == true);
  CHECK(w["rfcProvided"] == false);
  CHECK(w.size() == 7 + 17);  // PersonWriteResponse: no value, no extra member
  CHECK(made.body.find("Pérez") == std::string::npos);
  CHECK(made.body.find(kCurpA) == std::string::npos);
  // A retry with the same Idempotency-Key: the same person.
  auto again = Post(env, env.test_key, kBase, create, {{"Idempotency-Key", "p-1"}});
  CHECK(again.status == 201);
  CHECK(Body(again)["id"] == id);
  CHECK(HeaderOf(again, "Idempotent-Replayed") == "true");

  // The masked detail: masks, provenance, metadata, refs; no values.
  auto got = env.Call(env.test_key, "GET", kBase + "/" + id);
  REQUIRE_MESSAGE(got.status == 200, got.body);
  core::Json d = Body(got);
  CHECK(d["pii"]["curp"] == "********");
  CHECK(d["pii"].size() == 8);
  CHECK_FALSE(d["pii"].contains("rfc"));
  CHECK(d["piiProvenance"]["curp"]["version"] == 1);
  CHECK(d["piiProvenance"]["curp"]["source"] == "api");
  CHECK(d["metadata"] == core::Json{{"tier", "gold"}});
  CHECK(d["externalRefs"].size() == 1);
  CHECK(d["externalRefs"][0]["externalRef"] == "user-1001");
  CHECK(d["forgetRequested"] == false);
  CHECK(d["verificationSummary"]["status"] == "unverified");
  CHECK(got.body.find("Pérez") == std::string::npos);
  CHECK(got.body.find("example.mx") == std::string::npos);
  auto fields = Body(env.Call(env.test_key, "GET", kBase + "/" + id + "/fields"));
  CHECK(fields["object"] == "person.fields");
  CHECK(fields["fields"]["email"] == true);
  CHECK(fields["fields"]["address"] == false);

  // PATCH: set, clear, metadata; every PII change is a new version with its provenance.
  auto patched = env.Call(env.test_key, "PATCH", kBase + "/" + id,
                          core::Json{{"pii", {{"rfc", "GODE561231GR8"}, {"phone", nullptr}}}, {"metadata", {{"tier", "platinum"}}}}.dump());
  REQUIRE_MESSAGE(patched.status == 200, patched.body);
  CHECK(Body(patched)["piiVersion"] == 2);
  CHECK(Body(patched)["rfcProvided"] == true);
  CHECK(Body(patched)["phoneProvided"] == false);
  d = Body(env.Call(env.test_key, "GET", kBase + "/" + id));
  CHECK(d["piiProvenance"]["rfc"]["version"] == 2);
  CHECK(d["piiProvenance"]["curp"]["version"] == 1);
  CHECK_FALSE(d["piiProvenance"].contains("phone"));
  CHECK(d["metadata"]["tier"] == "platinum");
  // Metadata alone is no PII revision.
  auto meta_only = env.Call(env.test_key, "PATCH", kBase + "/" + id, R"({"metadata":{"tier":"basic"}})");
  REQUIRE(meta_only.status == 200);
  CHECK(Body(meta_only)["piiVersion"] == 2);

  // The upsert: the same externalRef in the same application revises that person (200).
  auto upsert = Post(env, env.test_key, kBase, {{"externalRef", "user-1001"}, {"pii", {{"givenName", "José"}}}});
  REQUIRE_MESSAGE(upsert.status == 200, upsert.body);
  CHECK(Body(upsert)["id"] == id);
  CHECK(Body(upsert)["piiVersion"] == 3);
  CHECK(Body(upsert)["givenNameProvided"] == true);

  // The values sealed are the normalised ones, and decrypt returns them.
  core::Json plain = Decrypt(env, env.test_key, id, {"curp", "email", "fullName", "rfc", "phone"});
  CHECK(plain["object"] == "person.decrypt");
  CHECK(plain["personId"] == id);
  CHECK(plain["fields"]["curp"] == kCurpA);
  CHECK(plain["fields"]["email"] == "jose.perez@example.mx");
  CHECK(plain["fields"]["fullName"] == "José Pérez Núñez");
  CHECK(plain["fields"]["rfc"].is_string());
  CHECK(plain["fields"]["phone"].is_null());  // cleared
}

TEST_CASE("persons: every write error is the spec's problem, never an echo of the value") {
  Env env(false, kFlags);
  const std::string k = env.test_key;
  auto bad_curp = Post(env, k, kBase, {{"pii", {{"curp", "PEPJ800101HDFRRN04"}}}});
  CheckProblem(bad_curp, 422, "VALIDATION_ERROR");
  CHECK(bad_curp.body.find("PEPJ800101HDFRRN04") == std::string::npos);
  CHECK(Body(bad_curp)["errors"][0]["pointer"] == "/pii/curp");
  CheckProblem(Post(env, k, kBase, {{"pii", {{"email", "not-an-email"}}}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase, {{"pii", {{"birthDate", "1980-13-01"}}}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase, {{"pii", {{"state", "XX"}}}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase, {{"pii", {{"nationality", "ZZZ"}}}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase, {{"pii", {{"sex", 1}}}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase, {{"pii", {{"favouriteColour", "blue"}}}}), 422, "UNKNOWN_PII_FIELD");
  CheckProblem(Post(env, k, kBase, {{"pii", "curp"}}), 422, "VALIDATION_ERROR");
  for (std::string ref : {kCurpA, std::string("GODE561231GR8"), std::string("ana@example.mx"),
                          std::string("+52 55 1234 5678")}) {
    CAPTURE(ref);
    auto r = Post(env, k, kBase, {{"externalRef", ref}});
    CheckProblem(r, 422, "VALIDATION_ERROR");
    CHECK(Body(r)["errors"][0]["code"] == "looks_like_pii");
    CHECK(r.body.find(ref) == std::string::npos);
  }
  CheckProblem(Post(env, k, kBase, {{"metadata", "gold"}}), 400, "METADATA_INVALID");
  CheckProblem(Post(env, k, kBase, {{"metadata", {{"blob", std::string(17000, 'x')}}}}), 400, "METADATA_INVALID");
  CheckProblem(Post(env, k, kBase, {{"environment", "live"}}), 400, "ENVIRONMENT_MISMATCH");
  CheckProblem(Post(env, k, kBase, {{"applicationId", "app_00000000000000000000000000000000"}}), 404,
               "APPLICATION_NOT_FOUND");
  CheckProblem(Post(env, k, kBase, {{"applicationId", "nope"}}), 400, "INVALID_ID");
  CheckProblem(Post(env, k, kBase, {{"surprise", 1}}), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", kBase, "{not json"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(k, "POST", kBase, "{}", {{"Service-Version", "1999-01-01"}}), 400, "UNSUPPORTED_API_VERSION");
  CheckProblem(env.Call(k, "POST", kBase, "{}", {{"Content-Type", "text/plain"}}), 415, "UNSUPPORTED_MEDIA_TYPE");
  // Lookups.
  const std::string ghost = kBase + "/per_00000000000000000000000000000000";
  CheckProblem(env.Call(k, "GET", ghost), 404, "PERSON_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", kBase + "/per_zz"), 400, "INVALID_ID");
  CheckProblem(env.Call(k, "PATCH", ghost, R"({"pii":{"sex":"F"}})"), 404, "PERSON_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", ghost + "/fields"), 404, "PERSON_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", ghost + "/duplicates"), 404, "PERSON_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", kBase + "?page=2"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(k, "GET", kBase + "?limit=1000"), 422, "LIMIT_OUT_OF_RANGE");
  CheckProblem(env.Call(k, "GET", kBase + "?environment=live"), 400, "ENVIRONMENT_MISMATCH");
  CheckProblem(env.Call(k, "GET", kBase + "?created%5Bgte%5D=yesterday"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", kBase + "?forgetRequested=maybe"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", kBase + "?application=app_1"), 400, "INVALID_ID");
  std::string id = MakePerson(env, k, {{"pii", {{"sex", "F"}}}});
  CheckProblem(env.Call(k, "PATCH", kBase + "/" + id, R"({"pii":{"sex":"Q"}})"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "PATCH", kBase + "/" + id, R"({"pii":{"colour":"red"}})"), 422, "UNKNOWN_PII_FIELD");
  CheckProblem(env.Call(k, "PATCH", kBase + "/" + id, R"({"metadata":[1]})"), 400, "METADATA_INVALID");
  CheckProblem(env.Call(k, "PATCH", kBase + "/" + id, R"({"externalRef":"x"})"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", kBase + "/" + id + "?expand=everything"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(k, "GET", kBase + "/" + id + "?include=pii"), 400, "BAD_REQUEST");
}

TEST_CASE("persons: CURP_CONFLICT names the other person; search and duplicates through the blind index") {
  BOTH_BACKENDS;
  Env env(kafka, kFlags);
  const std::string k = env.test_key;
  std::string a = MakePerson(env, k, {{"pii", {{"curp", kCurpB}, {"email", "ana@example.mx"}, {"fullName", "Ana María López"}}}});
  auto clash = Post(env, k, kBase, {{"pii", {{"curp", kCurpB}}}});
  CheckProblem(clash, 409, "CURP_CONFLICT");
  CHECK(Body(clash)["conflictingPersonId"] == a);
  CHECK(clash.body.find(kCurpB) == std::string::npos);
  std::string b = MakePerson(env, k, {{"pii", {{"email", "ANA@example.mx"}, {"fullName", "Ana Lopez"}}}});
  CheckProblem(env.Call(k, "PATCH", kBase + "/" + b, core::Json{{"pii", {{"curp", kCurpB}}}}.dump()), 409, "CURP_CONFLICT");
  // The same CURP in the live environment, or in another tenant, is no conflict.
  CHECK(Post(env, env.live_key, kBase, {{"pii", {{"curp", kCurpB}}}}).status == 201);

  auto search = [&](const std::string& field, const std::string& value) {
    auto r = Post(env, k, kBase + "/search", {{"field", field}, {"value", value}});
    REQUIRE_MESSAGE(r.status == 200, r.body);
    std::vector<std::string> ids;
    core::Json found = Body(r);
    for (const auto& row : found["data"]) ids.push_back(row["id"].get<std::string>());
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  std::vector<std::string> both = {a, b};
  std::sort(both.begin(), both.end());
  CHECK(search("curp", " " + kCurpB.substr(0, 10) + "mjcprr05") == std::vector<std::string>{a});
  CHECK(search("email", "ana@EXAMPLE.mx") == both);
  CHECK(search("name", "lopez") == both);         // accent-folded tokens
  CHECK(search("name", "ANA LÓPEZ") == both);
  CHECK(search("name", "maria lopez") == std::vector<std::string>{a});
  CHECK(search("name", "pedro").empty());
  // Name fields share their tokens: clearing one keeps the token another still holds.
  std::string c = MakePerson(env, k, {{"pii", {{"fullName", "Zoe Quintana"}, {"givenName", "Zoe"}}}});
  REQUIRE(env.Call(k, "PATCH", kBase + "/" + c, R"({"pii":{"givenName":null}})").status == 200);
  CHECK(search("name", "zoe") == std::vector<std::string>{c});
  REQUIRE(env.Call(k, "PATCH", kBase + "/" + c, R"({"pii":{"fullName":null}})").status == 200);
  CHECK(search("name", "zoe").empty());
  CHECK(search("phone", "5512345678").empty());
  // Paging with the body's cursor.
  auto page1 = Body(Post(env, k, kBase + "/search", {{"field", "name"}, {"value", "ana"}, {"limit", 1}}));
  CHECK(page1["data"].size() == 1);
  CHECK(page1["hasMore"] == true);
  CHECK(page1["totalCount"] == 2);
  auto page2 = Body(Post(env, k, kBase + "/search",
                         {{"field", "name"}, {"value", "ana"}, {"limit", 1}, {"cursor", page1["nextCursor"]}}));
  CHECK(page2["data"].size() == 1);
  CHECK(page2["hasMore"] == false);
  CHECK(page2["data"][0]["id"] != page1["data"][0]["id"]);
  CheckProblem(Post(env, k, kBase + "/search", {{"field", "name"}, {"value", "pedro"}, {"cursor", page1["nextCursor"]}}),
               400, "INVALID_CURSOR");
  CheckProblem(Post(env, k, kBase + "/search", {{"field", "curp"}, {"value", "nope"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase + "/search", {{"field", "address"}, {"value", "x"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase + "/search", {{"field", "name"}, {"value", "ana"}, {"limit", 0}}), 422,
               "LIMIT_OUT_OF_RANGE");
  CheckProblem(Post(env, k, kBase + "/search", {{"field", "name"}, {"value", "ana"}, {"environment", "live"}}), 400,
               "ENVIRONMENT_MISMATCH");
  // Duplicates: b shares a's e-mail.
  auto dup = Body(env.Call(k, "GET", kBase + "/" + a + "/duplicates"));
  REQUIRE(dup["data"].size() == 1);
  CHECK(dup["data"][0]["personId"] == b);
  CHECK(dup["data"][0]["matchedOn"] == core::Json::array({"email"}));
  // Another tenant's search finds nothing.
  std::string other = env.NewKey(env.NewTenant("Other"), "test", {"*"});
  auto foreign = Body(Post(env, other, kBase + "/search", {{"field", "email"}, {"value", "ana@example.mx"}}));
  CHECK(foreign["data"].empty());
}

TEST_CASE("persons: the list, its filters and cursors") {
  Env env(false, kFlags);
  const std::string k = env.test_key;
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(MakePerson(env, k, {{"externalRef", "u-" + std::to_string(i)}}));
  auto list = Body(env.Call(k, "GET", kBase + "?limit=2&includeTotal=true"));
  REQUIRE(list["data"].size() == 2);
  CHECK(list["data"][0]["id"] == ids[2]);  // newest first
  CHECK(list["hasMore"] == true);
  CHECK(list["data"][0]["externalRefs"][0]["externalRef"] == "u-2");
  CHECK_FALSE(list["data"][0].contains("pii"));
  auto next = Body(env.Call(k, "GET", kBase + "?limit=2&startingAfter=" + list["nextCursor"].get<std::string>()));
  REQUIRE(next["data"].size() == 1);
  CHECK(next["data"][0]["id"] == ids[0]);
  std::string created = list["data"][0]["createdAt"];
  auto since = Body(env.Call(k, "GET", kBase + "?created%5Bgte%5D=" + created));
  CHECK(since["data"].size() >= 1);
  auto future = Body(env.Call(k, "GET", kBase + "?created%5Bgte%5D=2999-01-01T00:00:00Z"));
  CHECK(future["data"].empty());
  auto past = Body(env.Call(k, "GET", kBase + "?created%5Blte%5D=2000-01-01T00:00:00Z"));
  CHECK(past["data"].empty());
  CHECK(Body(env.Call(k, "GET", kBase + "?forgetRequested=false"))["data"].size() == 3);
  CHECK(Body(env.Call(k, "GET", kBase + "?forgetRequested=true"))["data"].empty());
  CHECK(Body(env.Call(k, "GET", kBase + "?environment=test"))["data"].size() == 3);
  auto apps = Body(env.Admin("GET", "/admin/tenants"))["data"];
  std::string app;
  for (const auto& t : apps) {
    if (t["id"] == env.tenant) app = t["defaultApplicationId"];
  }
  CHECK(Body(env.Call(k, "GET", kBase + "?application=" + app))["data"].size() == 3);
  CHECK(Body(env.Call(k, "GET", kBase + "?application=app_00000000000000000000000000000000"))["data"].empty());
  // The live key lists live persons only.
  CHECK(Body(env.Call(env.live_key, "GET", kBase))["data"].empty());
}

TEST_CASE("persons: test and live, and tenants, are apart on every route (404, never data)") {
  BOTH_BACKENDS;
  Env env(kafka, kFlags);
  std::string id = MakePerson(env, env.test_key, {{"pii", {{"curp", kCurpC}, {"email", "x@example.mx"}}}});
  std::string other = env.NewKey(env.NewTenant("Other"), "test", {"*"});
  for (const std::string& key : {env.live_key, other}) {
    CheckProblem(env.Call(key, "GET", kBase + "/" + id), 404, "PERSON_NOT_FOUND");
    CheckProblem(env.Call(key, "GET", kBase + "/" + id + "/fields"), 404, "PERSON_NOT_FOUND");
    CheckProblem(env.Call(key, "GET", kBase + "/" + id + "/duplicates"), 404, "PERSON_NOT_FOUND");
    CheckProblem(env.Call(key, "PATCH", kBase + "/" + id, R"({"pii":{"sex":"F"}})"), 404, "PERSON_NOT_FOUND");
    CheckProblem(Post(env, key, kBase + "/" + id + "/decrypt",
                      {{"fields", {"curp"}}, {"purpose", "identity_verification"}, {"reason", "x"}}),
                 404, "PERSON_NOT_FOUND");
    CheckProblem(env.Call(key, "GET", kBase + "/" + id + "?expand=pii", "", {{"Service-Reason", "x"}}), 404,
                 "PERSON_NOT_FOUND");
    auto batch = Body(Post(env, key, kBase + "/batch-decrypt",
                           {{"personIds", {id}}, {"fields", {"curp"}}, {"purpose", "identity_verification"}, {"reason", "x"}}));
    CHECK(batch["data"].empty());
    CHECK(batch["errors"][0]["error"]["code"] == "PERSON_NOT_FOUND");
    CHECK(Body(env.Call(key, "GET", kBase))["data"].empty());
  }
  // Nothing leaked into the other tenant's key space: the same CURP is free there.
  CHECK(Post(env, other, kBase, {{"pii", {{"curp", kCurpC}}}}).status == 201);
}

TEST_CASE("persons: scopes read, read_pii and write") {
  Env env(false, kFlags);
  std::string id = MakePerson(env, env.test_key, {{"pii", {{"email", "s@example.mx"}}}});
  std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  std::string revealer = env.NewKey(env.tenant, "test", {"persons:read_pii"});
  std::string writer = env.NewKey(env.tenant, "test", {"persons:write"});
  const core::Json dec = {{"fields", {"email"}}, {"purpose", "customer_support"}, {"reason", "ticket 4411"}};
  CHECK(env.Call(reader, "GET", kBase + "/" + id).status == 200);
  CHECK(Post(env, reader, kBase + "/search", {{"field", "email"}, {"value", "s@example.mx"}}).status == 200);
  auto denied = Post(env, reader, kBase + "/" + id + "/decrypt", dec);
  CheckProblem(denied, 403, "INSUFFICIENT_SCOPE");
  CHECK(Body(denied)["requiredScope"] == "persons:read_pii");
  CheckProblem(Post(env, reader, kBase, {{"pii", {{"sex", "F"}}}}), 403, "INSUFFICIENT_SCOPE");
  // An expanded read needs persons:read_pii on top of persons:read.
  auto expand = env.Call(reader, "GET", kBase + "/" + id + "?expand=pii", "", {{"Service-Reason", "ticket 4411"}});
  CheckProblem(expand, 403, "INSUFFICIENT_SCOPE");
  CHECK(Body(expand)["requiredScope"] == "persons:read_pii");
  CHECK(Post(env, revealer, kBase + "/" + id + "/decrypt", dec).status == 200);
  CheckProblem(env.Call(revealer, "GET", kBase + "/" + id), 403, "INSUFFICIENT_SCOPE");
  CHECK(Post(env, writer, kBase, {{"pii", {{"sex", "F"}}}}).status == 201);
  CheckProblem(env.Call(writer, "GET", kBase + "/" + id), 403, "INSUFFICIENT_SCOPE");
  std::string wildcard = env.NewKey(env.tenant, "test", {"persons:*"});
  CHECK(Post(env, wildcard, kBase + "/" + id + "/decrypt", dec).status == 200);
}

TEST_CASE("persons: decrypt, batch decrypt and expand, and their errors") {
  BOTH_BACKENDS;
  Env env(kafka, kFlags);
  const std::string k = env.test_key;
  std::string a = MakePerson(env, k, {{"pii", {{"email", "a@example.mx"}, {"givenName", "Ana"}}}});
  std::string b = MakePerson(env, k, {{"pii", {{"email", "b@example.mx"}}}});
  const std::string path = kBase + "/" + a + "/decrypt";
  CheckProblem(Post(env, k, path, {{"fields", {"email"}}, {"purpose", "identity_verification"}}), 422,
               "PII_ACCESS_REASON_REQUIRED");
  CheckProblem(Post(env, k, path, {{"fields", {"email"}}, {"purpose", "identity_verification"}, {"reason", ""}}), 422,
               "PII_ACCESS_REASON_REQUIRED");
  CheckProblem(Post(env, k, path, {{"fields", {"email"}}, {"purpose", "identity_verification"}, {"reason", std::string(2001, 'r')}}),
               422, "PII_ACCESS_REASON_REQUIRED");
  CheckProblem(Post(env, k, path, {{"fields", {"shoeSize"}}, {"purpose", "identity_verification"}, {"reason", "x"}}), 422,
               "UNKNOWN_PII_FIELD");
  CheckProblem(Post(env, k, path, {{"fields", {"email"}}, {"purpose", "curiosity"}, {"reason", "x"}}), 400,
               "PURPOSE_UNKNOWN");
  CheckProblem(Post(env, k, path, {{"fields", core::Json::array()}, {"purpose", "identity_verification"}, {"reason", "x"}}),
               422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, path, {{"purpose", "identity_verification"}, {"reason", "x"}}), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", path, "[]"), 400, "BAD_REQUEST");
  core::Json one = Decrypt(env, k, a, {"email", "givenName", "curp"});
  CHECK(one["fields"]["email"] == "a@example.mx");
  CHECK(one["fields"]["givenName"] == "Ana");
  CHECK(one["fields"]["curp"].is_null());

  // Batch: the raw strings of refused ids come back as sent.
  std::vector<core::Json> ids = {a, b, "per_00000000000000000000000000000000", "garbage", 42};
  auto batch = Post(env, k, kBase + "/batch-decrypt",
                    {{"personIds", ids}, {"fields", {"email"}}, {"purpose", "aml_compliance"}, {"reason", "KYC refresh"}});
  REQUIRE_MESSAGE(batch.status == 200, batch.body);
  core::Json bj = Body(batch);
  REQUIRE(bj["data"].size() == 2);
  CHECK(bj["data"][0]["personId"] == a);
  CHECK(bj["data"][0]["fields"]["email"] == "a@example.mx");
  CHECK(bj["data"][1]["fields"]["email"] == "b@example.mx");
  REQUIRE(bj["errors"].size() == 3);
  CHECK(bj["errors"][0]["personId"] == "per_00000000000000000000000000000000");
  CHECK(bj["errors"][0]["error"]["code"] == "PERSON_NOT_FOUND");
  CHECK(bj["errors"][1]["personId"] == "garbage");
  CHECK(bj["errors"][1]["error"]["code"] == "INVALID_ID");
  CHECK(bj["errors"][2]["personId"] == "42");
  std::vector<std::string> many(101, a);
  // 413 before validation: the other members are wrong too.
  CheckProblem(Post(env, k, kBase + "/batch-decrypt", {{"personIds", many}, {"fields", "nope"}}), 413, "BATCH_TOO_LARGE");
  CheckProblem(Post(env, k, kBase + "/batch-decrypt",
                    {{"personIds", core::Json::array()}, {"fields", {"email"}}, {"purpose", "aml_compliance"}, {"reason", "x"}}),
               422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase + "/batch-decrypt", {{"personIds", {a}}, {"fields", {"email"}}, {"purpose", "aml_compliance"}}),
               422, "PII_ACCESS_REASON_REQUIRED");

  // Expand: a reveal through the read, with a Service-Reason.
  CheckProblem(env.Call(k, "GET", kBase + "/" + a + "?expand=pii"), 422, "REASON_REQUIRED");
  CheckProblem(env.Call(k, "GET", kBase + "/" + a + "?expand=pii.shoeSize", "", {{"Service-Reason", "x"}}), 422,
               "UNKNOWN_PII_FIELD");
  auto expanded = env.Call(k, "GET", kBase + "/" + a + "?expand=pii.email", "", {{"Service-Reason", "support ticket"}});
  REQUIRE_MESSAGE(expanded.status == 200, expanded.body);
  CHECK(Body(expanded)["pii"]["email"] == "a@example.mx");
  CHECK(Body(expanded)["pii"]["givenName"] == "********");
  auto all = Body(env.Call(k, "GET", kBase + "/" + a + "?expand=pii", "", {{"Service-Reason", "support ticket"}}));
  CHECK(all["pii"]["givenName"] == "Ana");
}

TEST_CASE("persons: the daily reveal budget runs out (429 with Retry-After) and refills at UTC midnight") {
  Env env(false, {"--fake-clock", "--reveal-budget-per-day", "3", "--rate-reveals", "0"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  std::string a = MakePerson(env, k, {{"pii", {{"email", "a@example.mx"}}}});
  std::string b = MakePerson(env, k, {{"pii", {{"email", "b@example.mx"}}}});
  Decrypt(env, k, a, {"email"});
  Decrypt(env, k, b, {"email"});
  // A batch that does not fit is refused as a whole.
  auto batch = Post(env, k, kBase + "/batch-decrypt",
                    {{"personIds", {a, b}}, {"fields", {"email"}}, {"purpose", "aml_compliance"}, {"reason", "x"}});
  CheckProblem(batch, 429, "PII_DECRYPT_CAP_REACHED");
  Decrypt(env, k, a, {"email"});
  auto capped = Post(env, k, kBase + "/" + a + "/decrypt",
                     {{"fields", {"email"}}, {"purpose", "identity_verification"}, {"reason", "again"}});
  CheckProblem(capped, 429, "PII_DECRYPT_CAP_REACHED");
  CHECK(capped.body.find("a@example.mx") == std::string::npos);
  int retry = std::stoi(HeaderOf(capped, "Retry-After"));
  CHECK(retry > 0);
  CHECK(retry <= 86400);
  CheckProblem(env.Call(k, "GET", kBase + "/" + a + "?expand=pii", "", {{"Service-Reason", "x"}}), 429,
               "PII_DECRYPT_CAP_REACHED");
  // The live environment has its own budget; masked reads need none.
  CHECK(env.Call(k, "GET", kBase + "/" + a).status == 200);
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", retry - 1}}).status == 200);
  CheckProblem(Post(env, k, kBase + "/" + a + "/decrypt",
                    {{"fields", {"email"}}, {"purpose", "identity_verification"}, {"reason", "again"}}),
               429, "PII_DECRYPT_CAP_REACHED");
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 1}}).status == 200);
  CHECK(Decrypt(env, k, a, {"email"})["fields"]["email"] == "a@example.mx");
}

TEST_CASE("persons: client tokens are single use (one of 20 concurrent spends), scoped, expiring, revocable") {
  Env env(false, {"--fake-clock", "--rate-reveals", "0"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  std::string id = MakePerson(env, k, {{"pii", {{"email", "t@example.mx"}, {"givenName", "Tere"}, {"curp", kCurpA}}}});
  auto issue = [&](core::Json body) {
    auto r = Post(env, k, kBase + "/" + id + "/client-token", body);
    REQUIRE_MESSAGE(r.status == 201, r.body);
    return Body(r);
  };
  core::Json t = issue({{"fields", {"email", "givenName"}}, {"reason", "show the customer their e-mail"},
                        {"purpose", "customer_support"}, {"scope", "decrypt"}, {"ttlSeconds", 300}});
  CHECK(t["object"] == "person.client_token");
  CHECK(t["personId"] == id);
  CHECK(t["scope"] == "decrypt");
  CHECK(t["fields"] == core::Json::array({"email", "givenName"}));
  std::string token = t["token"];
  CHECK(token.rfind(t["id"].get<std::string>() + ".", 0) == 0);
  // What a browser does: a preflight, then the call with the token instead of a key.
  auto pre = env.Call("", "OPTIONS", kBase + "/" + id + "/decrypt");
  CHECK(pre.status == 204);
  CHECK(HeaderOf(pre, "Access-Control-Allow-Origin") == "*");
  CHECK(HeaderOf(pre, "Access-Control-Allow-Headers").find("Authorization") != std::string::npos);
  // A token is refused by every other route.
  CheckProblem(env.Call(token, "GET", kBase + "/" + id), 401, "CLIENT_TOKEN_INVALID");
  // Another person, a field outside the token: refused without spending it.
  std::string other = MakePerson(env, k, {{"pii", {{"email", "o@example.mx"}}}});
  CheckProblem(env.Call(token, "POST", kBase + "/" + other + "/decrypt", "{}"), 401, "CLIENT_TOKEN_INVALID");
  CheckProblem(env.Call(token, "POST", kBase + "/" + id + "/decrypt", R"({"fields":["curp"]})"), 403,
               "FIELD_NOT_IN_TOKEN_SCOPE");
  CheckProblem(env.Call(token.substr(0, token.size() - 2) + "xx", "POST", kBase + "/" + id + "/decrypt", "{}"), 401,
               "CLIENT_TOKEN_INVALID");
  // 20 concurrent spends: exactly one reveals.
  std::vector<int> statuses(20, 0);
  std::vector<std::string> bodies(20);
  std::vector<std::thread> threads;
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&, i] {
      auto r = api::HttpCall(env.server->target(), "POST", kBase + "/" + id + "/decrypt",
                             {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}},
                             R"({"fields":["email"]})");
      if (r.ok()) {
        statuses[i] = r->status;
        bodies[i] = r->body;
      }
    });
  }
  for (auto& th : threads) th.join();
  int ok = 0, refused = 0;
  for (int i = 0; i < 20; ++i) {
    if (statuses[i] == 200) {
      ++ok;
      CHECK(Body(api::HttpResponse{200, "application/json", {}, bodies[i], nullptr})["fields"]["email"] == "t@example.mx");
    }
    if (statuses[i] == 401) ++refused;
  }
  CHECK(ok == 1);
  CHECK(refused == 19);
  CheckProblem(env.Call(token, "POST", kBase + "/" + id + "/decrypt", "{}"), 401, "CLIENT_TOKEN_INVALID");

  // Expiry on the fake clock; the whole declared set when no fields are named.
  core::Json t2 = issue({{"fields", {"givenName"}}, {"reason", "greeting"}, {"ttlSeconds", 60}});
  CHECK(t2["purpose"].is_null());
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 61}}).status == 200);
  CheckProblem(env.Call(t2["token"], "POST", kBase + "/" + id + "/decrypt", ""), 401, "CLIENT_TOKEN_INVALID");
  core::Json t3 = issue({{"fields", {"givenName"}}, {"reason", "greeting"}});
  auto spent = env.Call(t3["token"], "POST", kBase + "/" + id + "/decrypt", "");
  REQUIRE_MESSAGE(spent.status == 200, spent.body);
  CHECK(Body(spent)["fields"] == core::Json{{"givenName", "Tere"}});
  CHECK(HeaderOf(spent, "Access-Control-Allow-Origin") == "*");

  // Revocation: idempotent, the first date kept; a revoked token is spent for good.
  core::Json t4 = issue({{"fields", {"email"}}, {"reason", "x"}});
  const std::string revoke = kBase + "/" + id + "/client-token/" + t4["id"].get<std::string>() + "/revoke";
  auto rv = env.Call(k, "POST", revoke);
  REQUIRE_MESSAGE(rv.status == 200, rv.body);
  CHECK(Body(rv)["revokedAt"].is_string());
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 5}}).status == 200);
  auto rv2 = env.Call(k, "POST", revoke);
  CHECK(Body(rv2)["revokedAt"] == Body(rv)["revokedAt"]);
  CheckProblem(env.Call(t4["token"], "POST", kBase + "/" + id + "/decrypt", ""), 401, "CLIENT_TOKEN_INVALID");
  CheckProblem(env.Call(k, "POST", kBase + "/" + id + "/client-token/ctok_00000000000000000000000000000000/revoke"), 404,
               "CLIENT_TOKEN_NOT_FOUND");
  CheckProblem(env.Call(k, "POST", kBase + "/" + other + "/client-token/" + t4["id"].get<std::string>() + "/revoke"), 404,
               "CLIENT_TOKEN_NOT_FOUND");
  CheckProblem(env.Call(k, "POST", kBase + "/" + id + "/client-token/nope/revoke"), 400, "INVALID_ID");
  // Issue errors.
  const std::string path = kBase + "/" + id + "/client-token";
  CheckProblem(Post(env, k, path, {{"fields", {"email"}}}), 422, "PII_ACCESS_REASON_REQUIRED");
  CheckProblem(Post(env, k, path, {{"fields", {"email"}}, {"reason", "x"}, {"ttlSeconds", 901}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, path, {{"fields", {"email"}}, {"reason", "x"}, {"scope", "export"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, path, {{"fields", {"shoeSize"}}, {"reason", "x"}}), 422, "UNKNOWN_PII_FIELD");
  CheckProblem(Post(env, k, path, {{"fields", {"email"}}, {"reason", "x"}, {"purpose", "curiosity"}}), 400,
               "PURPOSE_UNKNOWN");
  CheckProblem(Post(env, env.live_key, path, {{"fields", {"email"}}, {"reason", "x"}}), 404, "PERSON_NOT_FOUND");
}

TEST_CASE("persons: an approved verification writes its data into the person; sessions, documents, export") {
  BOTH_BACKENDS;
  Env env(kafka, kFlags);
  const std::string k = env.test_key;
  const auto& spec = pipeline::verification::Specimen();
  std::string p = MakePerson(env, k, {{"externalRef", "cust-77"}, {"pii", {{"email", "maria@example.mx"}}}});
  // A session for an unknown, another environment's, or a malformed person is refused.
  CheckProblem(env.Create(k, "vs-ghost", R"({"channel":"api","personId":"per_00000000000000000000000000000000"})"),
               404, "PERSON_NOT_FOUND");
  std::string live_person = MakePerson(env, env.live_key, {{"pii", {{"sex", "F"}}}});
  CheckProblem(env.Create(k, "vs-live", core::Json{{"channel", "api"}, {"personId", live_person}}.dump()), 404,
               "PERSON_NOT_FOUND");
  CheckProblem(env.Create(k, "vs-bad", R"({"channel":"api","personId":"per_1"})"), 400, "INVALID_ID");

  std::string s1 = ApprovedSession(env, "vs-1", p);
  core::Json d = Body(env.Call(k, "GET", kBase + "/" + p));
  CHECK(d["verificationSummary"]["status"] == "verified");
  CHECK(d["verificationSummary"]["lastSessionId"] == s1);
  CHECK(d["verificationSummary"]["sessionCount"] == 1);
  CHECK(d["piiVersion"] == 2);
  CHECK(d["curpProvided"] == true);
  CHECK(d["emailProvided"] == true);  // kept: the verification sets what it read, nothing else
  CHECK(d["piiProvenance"]["curp"]["source"] == "verification");
  CHECK(d["piiProvenance"]["curp"]["sessionId"] == s1);
  CHECK(d["piiProvenance"]["curp"]["detail"] == "document_ocr,renapo");  // the sandbox RENAPO confirmed it
  CHECK(d["piiProvenance"]["email"]["source"] == "api");
  core::Json plain = Decrypt(env, k, p, {"curp", "givenName", "surname", "fullName", "birthDate", "sex", "vigencia"});
  CHECK(plain["fields"]["curp"] == spec.curp);
  CHECK(plain["fields"]["givenName"] == spec.given_names);
  CHECK(plain["fields"]["surname"] == spec.surname1 + " " + spec.surname2);
  CHECK(plain["fields"]["fullName"] == spec.given_names + " " + spec.surname1 + " " + spec.surname2);
  CHECK(plain["fields"]["birthDate"] == spec.birth_date);
  CHECK(plain["fields"]["sex"] == "F");
  CHECK(plain["fields"]["vigencia"] == spec.expiry_date);

  // The person's sessions and the metadata of their captures.
  auto sessions = Body(env.Call(k, "GET", kBase + "/" + p + "/verification-sessions"));
  REQUIRE(sessions["data"].size() == 1);
  CHECK(sessions["data"][0]["id"] == s1);
  CHECK(sessions["data"][0]["personId"] == p);
  CHECK(sessions["data"][0]["status"] == "approved");
  auto docs = Body(env.Call(k, "GET", kBase + "/" + p + "/documents?limit=3"));
  REQUIRE(docs["data"].size() == 3);
  CHECK(docs["hasMore"] == true);
  CHECK(docs["data"][0]["sessionId"] == s1);
  CHECK(docs["data"][0]["sha256"].get<std::string>().size() == 64);
  auto docs2 = Body(env.Call(k, "GET", kBase + "/" + p + "/documents?startingAfter=" + docs["nextCursor"].get<std::string>()));
  CHECK(docs2["data"].size() == 1);
  std::set<std::string> kinds;
  for (const auto& m : docs["data"]) kinds.insert(m["kind"].get<std::string>());
  kinds.insert(docs2["data"][0]["kind"].get<std::string>());
  CHECK(kinds == std::set<std::string>{"document_front", "document_back", "selfie", "liveness_video"});

  // A session without personId whose CURP an active person holds: that person gets the data.
  std::string s2 = ApprovedSession(env, "vs-2");
  d = Body(env.Call(k, "GET", kBase + "/" + p));
  CHECK(d["piiVersion"] == 3);
  CHECK(d["verificationSummary"]["lastSessionId"] == s2);
  CHECK(d["verificationSummary"]["sessionCount"] == 2);
  sessions = Body(env.Call(k, "GET", kBase + "/" + p + "/verification-sessions"));
  REQUIRE(sessions["data"].size() == 2);
  CHECK(sessions["data"][0]["id"] == s2);  // newest first

  // The ARCO export: plaintext, provenance, sessions, captures' metadata.
  auto exported = Post(env, k, kBase + "/" + p + "/export", {{"reason", "ARCO access request 2026-114"}});
  REQUIRE_MESSAGE(exported.status == 200, exported.body);
  core::Json bundle = Body(exported);
  CHECK(bundle["object"] == "person.export");
  CHECK(bundle["pii"]["curp"] == spec.curp);
  CHECK(bundle["pii"]["email"] == "maria@example.mx");
  CHECK(bundle["verificationSessions"].size() == 2);
  CHECK(bundle["media"].size() == 8);
  CHECK(bundle["externalRefs"][0]["externalRef"] == "cust-77");
  CHECK(env.Call(k, "POST", kBase + "/" + p + "/export").status == 200);  // the body is optional
  CheckProblem(Post(env, k, kBase + "/" + p + "/export", {{"format", "zip"}}), 422, "VALIDATION_ERROR");

  // Integrity: compare without revealing.
  std::string signing = core::Base64Encode(std::string(32, '\x5a'));
  auto mac = [&](const std::string& v) { return core::HexEncode(core::HmacSha256(std::string(32, '\x5a'), v)); };
  auto integrity = Post(env, k, kBase + "/" + p + "/integrity",
                        {{"fields", {{"curp", mac(spec.curp)}, {"email", mac("other@example.mx")}, {"rfc", mac("X")}}},
                         {"signingKey", signing}});
  REQUIRE_MESSAGE(integrity.status == 200, integrity.body);
  core::Json ir = Body(integrity);
  CHECK(ir["object"] == "person.integrity");
  CHECK(ir["results"]["curp"] == "match");
  CHECK(ir["results"]["email"] == "mismatch");
  CHECK(ir["results"]["rfc"] == "absent");
  CHECK(integrity.body.find(spec.curp) == std::string::npos);
  const std::string ipath = kBase + "/" + p + "/integrity";
  CheckProblem(Post(env, k, ipath, {{"fields", core::Json::object()}, {"signingKey", signing}}), 400, "INTEGRITY_NO_FIELDS");
  CheckProblem(Post(env, k, ipath, {{"fields", {{"shoeSize", mac("x")}}}, {"signingKey", signing}}), 400,
               "INTEGRITY_FIELD_UNSUPPORTED");
  CheckProblem(Post(env, k, ipath, {{"fields", {{"curp", mac("x")}}}, {"signingKey", "c2hvcnQ="}}), 400,
               "INTEGRITY_SIGNING_KEY_INVALID");
  CheckProblem(Post(env, k, ipath, {{"fields", {{"curp", "abc"}}}, {"signingKey", signing}}), 422, "VALIDATION_ERROR");

  // Re-authentication: the sandbox engine keeps no face; the model-free engine has no model.
  CheckProblem(Post(env, k, kBase + "/" + p + "/reauth-face", {{"selfieBase64", core::Base64Encode(testing::Jpeg(64, 64))}}),
               409, "REAUTH_MEDIA_UNAVAILABLE");
  CheckProblem(Post(env, k, kBase + "/" + p + "/reauth-face", {{"selfieBase64", "%%%"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase + "/" + p + "/reauth-face", core::Json::object()), 422, "VALIDATION_ERROR");

  // In a tenant where nobody holds the CURP, an approved session makes a person of its own.
  Env fresh(kafka, kFlags);
  std::string s3 = ApprovedSession(fresh, "vs-3");
  auto found = Body(Post(fresh, fresh.test_key, kBase + "/search", {{"field", "curp"}, {"value", spec.curp}}));
  REQUIRE(found["data"].size() == 1);
  std::string made = found["data"][0]["id"];
  core::Json md = Body(fresh.Call(fresh.test_key, "GET", kBase + "/" + made));
  CHECK(md["piiVersion"] == 1);
  CHECK(md["verificationSummary"]["lastSessionId"] == s3);
  CHECK(md["verificationSummary"]["sessionCount"] == 1);
  CHECK(md["piiProvenance"]["fullName"]["sessionId"] == s3);
  CHECK(Body(fresh.Call(fresh.test_key, "GET", kBase + "/" + made + "/verification-sessions"))["data"][0]["id"] == s3);
}

TEST_CASE("persons: replay rebuilds the vault's read models byte for byte; masked reads survive a lost key") {
  BOTH_BACKENDS;
  Env env(kafka, kFlags, Sharing::kIsolated);
  const std::string k = env.test_key;
  std::string a = MakePerson(env, k, {{"externalRef", "r-1"}, {"metadata", {{"m", 1}}},
                                      {"pii", {{"curp", kCurpA}, {"email", "r@example.mx"}, {"fullName", "Rosa Ruiz"}}}});
  std::string b = MakePerson(env, k, {{"pii", {{"email", "r@example.mx"}}}});
  REQUIRE(env.Call(k, "PATCH", "/v1/persons/" + b, R"({"pii":{"email":null,"sex":"F"}})").status == 200);
  std::string s = ApprovedSession(env, "replay-1", a);
  Decrypt(env, k, a, {"curp"});
  auto token = Body(Post(env, k, kBase + "/" + a + "/client-token", {{"fields", {"email"}}, {"reason", "r"}}));
  REQUIRE(env.Call(token["token"], "POST", kBase + "/" + a + "/decrypt", "").status == 200);
  env.server->Stop();
  const std::string data = env.server->data_dir();
  std::vector<std::string> replay = {"replay", "--verify", "--data-dir", data};
  if (kafka) replay.insert(replay.end(), {"--log-backend", "kafka", "--kafka-brokers", env.broker->bootstraps()});
  auto verify = testing::RunSvc(replay);
  CHECK_MESSAGE(verify.exit_code == 0, verify.out << verify.err);
  CHECK(core::ParseJsonOrDiscarded(verify.out)["identical"] == true);

  // The person's data key is lost (what a purge will do on purpose): nothing of theirs can be
  // opened any more, and the masked read, which never decrypts, still answers.
  {
    api::RuntimeOptions ro;
    ro.modules = api::AllModules();
    ro.data_dir = data;
    ro.keys.dev_keys_in_data_dir = true;
    ro.keys.read_existing_dev_keys = true;
    if (kafka) {
      ro.log_backend = "kafka";
      ro.kafka_brokers = env.broker->bootstraps();
    }
    auto rt = api::Runtime::Open(ro);
    REQUIRE_MESSAGE(rt.ok(), rt.status().ToString());
    REQUIRE((*rt)->key_store().Destroy("person/" + env.tenant + "/test/" + a).ok());
    (*rt)->Shutdown();
  }
  env.server->Start();
  auto masked = env.Call(k, "GET", kBase + "/" + a);
  REQUIRE_MESSAGE(masked.status == 200, masked.body);
  core::Json d = Body(masked);
  CHECK(d["pii"]["curp"] == "********");
  CHECK(d["piiProvenance"]["curp"]["sessionId"] == s);
  CHECK(d["metadata"] == core::Json::object());  // sealed with the lost key
  CHECK(Body(env.Call(k, "GET", kBase + "/" + a + "/fields"))["fields"]["curp"] == true);
  // (the approved session replaced the CURP with the one its document showed)
  CHECK(Body(Post(env, k, kBase + "/search", {{"field", "curp"}, {"value", pipeline::verification::Specimen().curp}}))["data"].size() == 1);
  CheckProblem(Post(env, k, kBase + "/" + a + "/decrypt",
                    {{"fields", {"curp"}}, {"purpose", "identity_verification"}, {"reason", "x"}}),
               410, "PERSON_PURGED");
  CHECK(Decrypt(env, k, b, {"sex"})["fields"]["sex"] == "F");  // other persons are untouched
}

// Issue 31: CURP and RFC by the one rule set (core/mx_ids.h) on the vault's write path: an RFC
// with Ñ was refused (its length counted in bytes), a dashed one refused though companies take
// it, a CURP born in the future accepted, the two generic RFCs treated apart.
TEST_CASE("persons: RFCs with Ñ, &, dashes; CURPs born in the future and generic RFCs refused") {
  Env env(false);
  const std::string k = env.test_key;
  auto enye = Post(env, k, kBase, {{"pii", {{"rfc", "muño-800101-ab3"}}}});
  REQUIRE_MESSAGE(enye.status == 201, enye.body);
  CHECK(Body(enye)["rfcProvided"] == true);
  auto same = Post(env, k, kBase + "/search", {{"field", "rfc"}, {"value", "MUÑO800101AB3"}});
  REQUIRE_MESSAGE(same.status == 200, same.body);
  CHECK(Body(same)["data"].size() == 1);  // one normalised form: the dashed write is found
  for (const char* bad : {"XAXX010101000", "XEXX010101000", "PEDO850101AB5"}) {
    CAPTURE(bad);
    auto r = Post(env, k, kBase, {{"pii", {{"rfc", bad}}}});
    CheckProblem(r, 422, "VALIDATION_ERROR");
    CHECK(r.body.find(bad) == std::string::npos);  // never echoed
  }
  for (const char* bad : {"GOMA270101HDFMRNA8", "BUEY850101HDFRRN01"}) {
    CAPTURE(bad);
    CheckProblem(Post(env, k, kBase, {{"pii", {{"curp", bad}}}}), 422, "VALIDATION_ERROR");
  }
}

}  // namespace integration_persons_test
