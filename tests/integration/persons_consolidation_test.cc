// Consolidation of duplicate persons through a real svc: the request and its refusals, the merge
// with field resolutions, the merged sources' state, and exactly-once completion when the server
// is killed (SIGKILL) after each step of a merge and restarted.
#include <doctest/doctest.h>

#include "api/http/http_client.h"

#include <map>

#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"
#include "tests/support/stopped_data_dir.h"

namespace integration_persons_consolidation_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

const std::string kBase = "/v1/persons";

api::HttpResponse Post(Env& env, const std::string& key, const std::string& path, const core::Json& body,
                       std::map<std::string, std::string> headers = {}) {
  return env.Call(key, "POST", path, body.dump(), std::move(headers));
}

std::string MakePerson(Env& env, const std::string& key, const core::Json& pii) {
  auto r = Post(env, key, kBase, {{"pii", pii}});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"].get<std::string>();
}

core::Json Reveal(Env& env, const std::string& key, const std::string& id, const std::vector<std::string>& fields) {
  auto r = Post(env, key, kBase + "/" + id + "/decrypt",
                {{"fields", fields}, {"purpose", "identity_verification"}, {"reason", "consolidation test"}});
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r)["fields"];
}

void WaitIdle(Env& env) {
  auto r = env.Admin("POST", "/admin/persons/wait-idle");
  REQUIRE_MESSAGE(r.status == 200, r.body);
}

// Events of a stopped data directory, by type, for the aggregates named.
std::map<std::string, int> EventCounts(const std::string& data, const std::vector<std::string>& aggregates) {
  auto store = testing::OpenStoppedStore(data);
  std::map<std::string, int> counts;
  testing::ForEachLoggedEvent(store.get(), [&](const eventstore::EventEnvelope& e) {
    if (std::find(aggregates.begin(), aggregates.end(), e.aggregate_id) != aggregates.end()) ++counts[e.type];
  });
  return counts;
}

}  // namespace

TEST_CASE("persons consolidation: sources merge into the survivor with field resolutions; refusals") {
  Env env(false, {"--rate-reveals", "0"});
  const std::string k = env.test_key;
  const std::string a = MakePerson(env, k, {{"curp", "PEPJ800101HDFRRN03"}, {"email", "ana@example.mx"}, {"fullName", "Ana Pérez"}});
  const std::string b = MakePerson(env, k, {{"email", "ana.perez@example.mx"}, {"fullName", "Ana María Pérez López"},
                                            {"phone", "+525512345678"}});
  const std::string c = MakePerson(env, k, {{"phone", "+525587654321"}, {"nationality", "MEX"}});
  const std::string consolidate = kBase + "/" + a + "/consolidate";

  // Refusals.
  CheckProblem(Post(env, k, consolidate, core::Json::object()), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, consolidate, {{"sourcePersonIds", core::Json::array()}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, consolidate, {{"sourcePersonIds", {b}}, {"extra", 1}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, consolidate, {{"sourcePersonIds", {"nope"}}}), 400, "INVALID_ID");
  CheckProblem(env.Call(k, "POST", consolidate, "{"), 400, "BAD_REQUEST");
  CheckProblem(Post(env, k, consolidate, {{"sourcePersonIds", {a}}}), 400, "CANNOT_MERGE_INTO_SELF");
  CheckProblem(Post(env, k, consolidate, {{"sourcePersonIds", {b, a}}}), 400, "CANNOT_MERGE_INTO_SELF");
  CheckProblem(Post(env, k, consolidate, {{"sourcePersonIds", {"per_00000000000000000000000000000000"}}}), 404,
               "PERSON_NOT_FOUND");
  CheckProblem(Post(env, k, kBase + "/per_00000000000000000000000000000000/consolidate", {{"sourcePersonIds", {b}}}), 404,
               "PERSON_NOT_FOUND");
  CheckProblem(Post(env, k, consolidate, {{"sourcePersonIds", {b}}, {"fieldResolutions", {{"shoeSize", b}}}}), 422,
               "UNKNOWN_PII_FIELD");
  CheckProblem(Post(env, k, consolidate, {{"sourcePersonIds", {b}}, {"fieldResolutions", {{"email", c}}}}), 422,
               "VALIDATION_ERROR");
  CheckProblem(Post(env, env.live_key, consolidate, {{"sourcePersonIds", {b}}}), 404, "PERSON_NOT_FOUND");
  const std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  CheckProblem(Post(env, reader, consolidate, {{"sourcePersonIds", {b}}}), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(k, "GET", kBase + "/" + a + "/consolidations/csl_00000000000000000000000000000000"), 404,
               "CONSOLIDATION_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", kBase + "/" + a + "/consolidations/nope"), 400, "INVALID_ID");

  // The consolidation: B's full name wins by resolution, the phone comes from the first source that
  // has one (B), the nationality from C; the survivor keeps its own CURP and e-mail.
  const core::Json request = {{"sourcePersonIds", {b, c}}, {"fieldResolutions", {{"fullName", b}, {"email", a}}}};
  auto made = Post(env, k, consolidate, request, {{"Idempotency-Key", "merge-ana-1"}});
  REQUIRE_MESSAGE(made.status == 202, made.body);
  core::Json envelope = Body(made);
  CHECK(envelope["object"] == "person.consolidation");
  CHECK(envelope["survivorId"] == a);
  const std::string cid = envelope["consolidationId"];
  CHECK(cid.rfind("csl_", 0) == 0);
  REQUIRE(envelope["merges"].size() == 2);
  CHECK(envelope["merges"][0]["sourcePersonId"] == b);
  auto replay = Post(env, k, consolidate, request, {{"Idempotency-Key", "merge-ana-1"}});
  CHECK(replay.status == 202);
  CHECK(Body(replay)["consolidationId"] == cid);
  WaitIdle(env);

  core::Json status = Body(env.Call(k, "GET", kBase + "/" + a + "/consolidations/" + cid));
  CHECK(status["status"] == "completed");
  CHECK(status["completedAt"].is_string());
  CHECK(status["createdAt"].is_string());
  REQUIRE(status["merges"].size() == 2);
  CHECK(status["merges"][0]["status"] == "merged");
  CHECK(status["merges"][0]["fieldsTaken"] == core::Json::array({"fullName", "phone"}));
  CHECK(status["merges"][1]["status"] == "merged");
  CHECK(status["merges"][1]["fieldsTaken"] == core::Json::array({"nationality"}));
  CHECK(status["merges"][1]["mergedAt"].is_string());
  CHECK(status.dump().find("Ana") == std::string::npos);

  core::Json fields = Reveal(env, k, a, {"curp", "email", "fullName", "phone", "nationality"});
  CHECK(fields["curp"] == "PEPJ800101HDFRRN03");
  CHECK(fields["email"] == "ana@example.mx");
  CHECK(fields["fullName"] == "Ana María Pérez López");
  CHECK(fields["phone"] == "+525512345678");
  CHECK(fields["nationality"] == "MEX");
  core::Json detail = Body(env.Call(k, "GET", kBase + "/" + a));
  CHECK(detail["piiProvenance"]["fullName"]["source"] == "consolidation");
  CHECK(detail["piiVersion"] == 3);

  // The sources: merged, pointing to the survivor, their data out of the read models.
  core::Json merged = Body(env.Call(k, "GET", kBase + "/" + b));
  CHECK(merged["status"] == "merged");
  CHECK(merged["mergedInto"] == a);
  CHECK(merged["emailProvided"] == false);
  CheckProblem(Post(env, k, kBase + "/" + b + "/decrypt",
                    {{"fields", {"email"}}, {"purpose", "identity_verification"}, {"reason", "r"}}),
               409, "PERSON_ALREADY_MERGED");
  CheckProblem(env.Call(k, "PATCH", kBase + "/" + b, R"({"pii":{"email":"x@example.mx"}})"), 409, "PERSON_ALREADY_MERGED");
  CheckProblem(Post(env, k, consolidate, {{"sourcePersonIds", {b}}}), 409, "PERSON_ALREADY_MERGED");
  const std::string e = MakePerson(env, k, {{"email", "otra@example.mx"}});
  CheckProblem(Post(env, k, kBase + "/" + b + "/consolidate", {{"sourcePersonIds", {e}}}), 409, "SURVIVOR_NOT_ACTIVE");
  // Duplicates of the survivor no longer find the merged source by its old e-mail's index.
  const std::string d = MakePerson(env, k, {{"email", "ana.perez@example.mx"}});
  core::Json dups = Body(env.Call(k, "GET", kBase + "/" + d + "/duplicates"));
  CHECK(dups["data"].empty());
}

TEST_CASE("persons consolidation: killed after each step of a merge, it completes exactly once on restart") {
  for (const std::string step : {"merge_started", "absorbed", "merged"}) {
    CAPTURE(step);
    Env env(false, {"--rate-reveals", "0", "--fault-kill-consolidation-after", step}, Sharing::kIsolated);
    const std::string k = env.test_key;
    const std::string data = env.server->data_dir();
    const std::string a = MakePerson(env, k, {{"email", "sobrevive@example.mx"}});
    const std::string b = MakePerson(env, k, {{"fullName", "Fuente Uno"}, {"phone", "+525511112222"}});
    // The consolidator kills the server right after the step is durable: sometimes before the
    // 202 has left (the kill races the answer's write). A client that lost the answer asks again
    // with the same Idempotency-Key after the restart and gets the same consolidation.
    const std::string path = kBase + "/" + a + "/consolidate";
    const std::map<std::string, std::string> headers = {{"Authorization", "Bearer " + k},
                                                        {"Content-Type", "application/json"},
                                                        {"Idempotency-Key", "merge-" + step}};
    const std::string request = core::Json{{"sourcePersonIds", {b}}}.dump();
    auto first = api::HttpCall(env.server->target(), "POST", path, headers, request);
    std::string cid;
    if (first.ok()) {
      REQUIRE_MESSAGE(first->status == 202, first->body);
      cid = Body(*first)["consolidationId"];
    }
    CHECK(env.server->WaitExit() == 128 + 9);
    env.server = std::make_unique<testing::SvcServer>(data, std::vector<std::string>{"--rate-reveals", "0"});
    env.server->Start();
    WaitIdle(env);
    auto again = api::HttpCall(env.server->target(), "POST", path, headers, request);
    REQUIRE(again.ok());
    REQUIRE_MESSAGE(again->status == 202, again->body);
    if (cid.empty()) cid = Body(*again)["consolidationId"];
    CHECK(Body(*again)["consolidationId"] == cid);  // the same one, not a second
    WaitIdle(env);
    core::Json status = Body(env.Call(k, "GET", kBase + "/" + a + "/consolidations/" + cid));
    CHECK(status["status"] == "completed");
    CHECK(status["merges"][0]["status"] == "merged");
    CHECK(status["merges"][0]["fieldsTaken"] == core::Json::array({"fullName", "phone"}));
    core::Json fields = Reveal(env, k, a, {"email", "fullName", "phone"});
    CHECK(fields["email"] == "sobrevive@example.mx");
    CHECK(fields["fullName"] == "Fuente Uno");
    CHECK(Body(env.Call(k, "GET", kBase + "/" + a))["piiVersion"] == 2);
    CHECK(Body(env.Call(k, "GET", kBase + "/" + b))["status"] == "merged");
    env.server->Stop();
    // Exactly once: one of each step in the log, one revision of the survivor.
    auto counts = EventCounts(data, {a, b});
    CHECK(counts["persons.consolidation_requested"] == 1);
    CHECK(counts["persons.merge_started"] == 1);
    CHECK(counts["persons.source_absorbed"] == 1);
    CHECK(counts["persons.person_revised"] == 1);
    CHECK(counts["persons.merged"] == 1);
    CHECK(counts["persons.consolidation_completed"] == 1);
    auto verify = testing::RunSvc({"replay", "--verify", "--data-dir", data});
    CHECK_MESSAGE(verify.exit_code == 0, verify.out << verify.err);
  }
}

TEST_CASE("persons import: a batch of good and bad rows, each answered as a create would be, kept as a job") {
  Env env(false, {"--rate-reveals", "0"});
  const std::string k = env.test_key;
  const std::string curp = "PEPJ800101HDFRRN03";
  core::Json rows = core::Json::array();
  rows.push_back({{"pii", {{"curp", curp}, {"email", "uno@example.mx"}}}});
  rows.push_back({{"externalRef", "crm-1"}, {"pii", {{"email", "dos@example.mx"}}}});
  rows.push_back({{"pii", {{"curp", "NOT-A-CURP"}}}});
  rows.push_back(5);
  rows.push_back({{"pii", {{"curp", curp}}}});  // the first row's CURP
  rows.push_back({{"pii", {{"shoeSize", "27"}}}});
  auto made = Post(env, k, kBase + "/import", {{"persons", rows}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  core::Json job = Body(made);
  CHECK(job["object"] == "person.import");
  const std::string id = job["id"];
  CHECK(id.rfind("imp_", 0) == 0);
  CHECK(job["status"] == "completed");
  CHECK(job["total"] == 6);
  CHECK(job["created"] == 2);
  CHECK(job["updated"] == 0);
  CHECK(job["failed"] == 4);
  REQUIRE(job["rows"].size() == 6);
  CHECK(job["rows"][0]["status"] == "created");
  CHECK(job["rows"][1]["status"] == "created");
  CHECK(job["rows"][2]["status"] == "failed");
  CHECK(job["rows"][2]["code"] == "VALIDATION_ERROR");
  CHECK(job["rows"][2]["fields"] == core::Json::array({"pii.curp"}));
  CHECK(job["rows"][3]["code"] == "VALIDATION_ERROR");
  CHECK(job["rows"][4]["code"] == "CURP_CONFLICT");
  CHECK(job["rows"][5]["code"] == "UNKNOWN_PII_FIELD");
  for (int i = 0; i < 6; ++i) CHECK(job["rows"][i]["index"] == i);
  CHECK(made.body.find(curp) == std::string::npos);  // ids and codes only
  CHECK(made.body.find("NOT-A-CURP") == std::string::npos);
  const std::string first = job["rows"][0]["personId"];
  CHECK(Body(env.Call(k, "GET", kBase + "/" + first))["curpProvided"] == true);
  CHECK(Reveal(env, k, first, {"email"})["email"] == "uno@example.mx");
  CHECK(Body(env.Call(k, "GET", "/v1/person-imports/" + id)) == job);

  // The externalRef upsert: a second import updates the person the first made.
  auto again = Post(env, k, kBase + "/import", {{"persons", {{{"externalRef", "crm-1"}, {"pii", {{"phone", "+525512345678"}}}}}}});
  REQUIRE_MESSAGE(again.status == 201, again.body);
  CHECK(Body(again)["updated"] == 1);
  CHECK(Body(again)["rows"][0]["personId"] == job["rows"][1]["personId"]);

  // Refusals.
  CheckProblem(env.Call(k, "POST", kBase + "/import", "[]"), 400, "IMPORT_BODY_INVALID");
  CheckProblem(env.Call(k, "POST", kBase + "/import", "{"), 400, "IMPORT_BODY_INVALID");
  CheckProblem(Post(env, k, kBase + "/import", {{"persons", core::Json::array()}}), 400, "IMPORT_BODY_INVALID");
  CheckProblem(Post(env, k, kBase + "/import", {{"persons", core::Json::object()}}), 400, "IMPORT_BODY_INVALID");
  CheckProblem(Post(env, k, kBase + "/import", {{"people", rows}}), 400, "IMPORT_BODY_INVALID");
  core::Json many = core::Json::array();
  for (int i = 0; i < 1001; ++i) many.push_back(core::Json::object());
  CheckProblem(Post(env, k, kBase + "/import", {{"persons", many}}), 413, "IMPORT_BATCH_TOO_LARGE");
  CheckProblem(env.Call(k, "GET", "/v1/person-imports/imp_00000000000000000000000000000000"), 404, "IMPORT_JOB_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", "/v1/person-imports/nope"), 400, "INVALID_ID");
  CheckProblem(env.Call(env.live_key, "GET", "/v1/person-imports/" + id), 404, "IMPORT_JOB_NOT_FOUND");
  const std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  CheckProblem(Post(env, reader, kBase + "/import", {{"persons", rows}}), 403, "INSUFFICIENT_SCOPE");
  // The job is part of the import: a persons:read key does not see it, a persons:write key does.
  CheckProblem(env.Call(reader, "GET", "/v1/person-imports/" + id), 403, "INSUFFICIENT_SCOPE");
  const std::string importer = env.NewKey(env.tenant, "test", {"persons:write"});
  CHECK(env.Call(importer, "GET", "/v1/person-imports/" + id).status == 200);
}

}  // namespace integration_persons_consolidation_test
