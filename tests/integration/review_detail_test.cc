// The review routes that show personal data, and the reviewers' credential, through a real svc
// (docs/review.md): the case detail (the applicant's data, the notes, the session's scores and
// captures) and the capture view, each an audited reveal that lands in the audit chain, counts
// against the reveal budget and is sent as `audit.event`; the reviewer token from the console's
// sign-in, its tenant membership check, its expiry, and the reviewer channel of the progress
// stream read by the `eventsource` package.
#include <doctest/doctest.h>

#include "api/http/http_client.h"
#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"
#include "tests/support/receiver_process.h"
#include "tests/support/session_flow.h"

namespace integration_review_detail_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

const std::string kCurp = "PEPJ800101HDFRRN03";


std::string MakePerson(Env& env, const std::string& key) {
  auto r = env.Call(key, "POST", "/v1/persons",
                    core::Json({{"pii", {{"curp", kCurp}, {"fullName", "JUAN PEREZ PEREZ"}, {"email", "juan@example.mx"},
                                         {"birthDate", "1980-01-01"}}}})
                        .dump());
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"];
}

core::Json AuditEntries(Env& env, const std::string& key, const std::string& channel) {
  auto r = env.Call(key, "GET", "/v1/audit-logs?channel=" + channel);
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r)["data"];
}

// A reviewer of the env's tenant: {id, secret}.
core::Json Reviewer(Env& env, const std::string& label) {
  auto r = env.Admin("POST", "/admin/tenants/" + env.tenant + "/users", {{"role", "reviewer"}, {"label", label}});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r);
}

api::HttpResponse SignIn(Env& env, const core::Json& body) {
  return env.Call("", "POST", "/console/api/sign-in", body.dump());
}

std::string TokenOf(Env& env, const std::string& secret) {
  auto r = SignIn(env, {{"secret", secret}, {"environment", "test"}});
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r)["token"];
}

}  // namespace

TEST_CASE("review: the case detail opens the applicant's data and the notes, audited and sent as audit.event") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--rate-reveals", "0", "--webhooks-allow-private-urls"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto hook = env.Call(k, "POST", "/v1/developer/webhooks",
                       core::Json{{"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/r"},
                                  {"events", {"audit.*"}}}
                           .dump(),
                       {{"Idempotency-Key", "hook-audit"}});
  REQUIRE_MESSAGE(hook.status == 201, hook.body);
  receiver.AddSecret(Body(hook)["secret"]);
  const std::string person = MakePerson(env, k);
  const std::string s = testing::SandboxSession(env, k, "detail-1", "review", person);
  const std::string c = testing::ReviewCaseOf(env, k, s);
  const std::string path = "/v1/review/cases/" + c;
  REQUIRE(env.Call(k, "POST", path + "/notes", R"({"note":"called Juan; CURP confirmed by phone"})").status == 204);
  // An ordinary reveal elsewhere is audited but sends no audit.event.
  REQUIRE(env.Call(k, "POST", "/v1/persons/" + person + "/decrypt",
                   R"({"fields":["email"],"purpose":"identity_verification","reason":"support call"})")
              .status == 200);

  const std::string reader = env.NewKey(env.tenant, "test", {"review:read"});
  auto opened = env.Call(reader, "GET", path);
  REQUIRE_MESSAGE(opened.status == 200, opened.body);
  CHECK(testing::HeaderOf(opened, "Cache-Control") == "no-store");
  core::Json d = Body(opened);
  CHECK(d["object"] == "review_case_detail");
  CHECK(d["case"]["caseId"] == c);
  CHECK(d["case"]["status"] == "open");
  CHECK(d["applicant"]["personId"] == person);
  CHECK(d["applicant"]["curp"] == kCurp);
  CHECK(d["applicant"]["fullName"] == "JUAN PEREZ PEREZ");
  CHECK(d["applicant"]["birthDate"] == "1980-01-01");
  CHECK(d["applicant"]["rfc"].is_null());
  CHECK(d["session"]["sessionId"] == s);
  CHECK(d["session"]["status"] == "review");
  CHECK(d["session"]["outcome"] == "review");
  CHECK(d["session"]["reasonCodes"] == core::Json::array({"FACE_MATCH_INCONCLUSIVE"}));
  REQUIRE(d["media"].size() == 4);
  CHECK(d["media"][0]["kind"] == "document_front");
  // The registries' answers field by field, for the console's "document against the registries".
  REQUIRE(d["govLookups"].size() == 2);
  CHECK(d["govLookups"][0]["fields"]["curp"] == "match");
  CHECK(d["govLookups"][0]["fields"]["birthDate"] == "match");
  CHECK(d["govLookups"][1]["fields"]["credential"] == "valid");
  CHECK(d["media"][0]["url"] == "/v1/review/media/" + d["media"][0]["mediaId"].get<std::string>());
  REQUIRE(d["decisions"].size() == 1);
  CHECK(d["decisions"][0]["outcome"] == "review");
  CHECK(d["decisions"][0]["decidedBy"].get<std::string>().rfind("policy:", 0) == 0);
  REQUIRE(d["events"].size() == 2);
  CHECK(d["events"][0]["eventType"] == "review.case_opened");
  CHECK(d["events"][0]["actorType"] == "system");
  CHECK(d["events"][1]["eventType"] == "review.note_added");
  CHECK(d["events"][1]["body"] == "called Juan; CURP confirmed by phone");
  CHECK(d["events"][1]["actorType"] == "api_key");
  std::map<std::string, bool> allowed;
  for (const auto& a : d["actions"]) allowed[a["action"]] = a["allowed"];
  CHECK(allowed["claim"]);
  CHECK_FALSE(allowed["approve"]);
  CHECK(d["actions"][4]["refusal"] == "CASE_CLAIM_REQUIRED");

  // In the audit chain: one access, the case named, the reader as actor.
  core::Json entries = AuditEntries(env, k, "review_case");
  REQUIRE(entries.size() == 1);
  CHECK(entries[0]["caseId"] == c);
  CHECK(entries[0]["personId"] == person);
  CHECK(entries[0]["purpose"] == "manual_review");
  CHECK(entries[0]["actorType"] == "api_key");
  CHECK(std::find(entries[0]["fields"].begin(), entries[0]["fields"].end(), "curp") != entries[0]["fields"].end());
  CHECK(Body(env.Call(k, "GET", "/v1/audit-logs/verify"))["valid"] == true);

  // Sent as audit.event (only the review access; the decrypt above sends none), signed.
  REQUIRE(receiver.WaitFor("/r", 2));
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  int audit_events = 0;
  for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) {
    CHECK(m["verifiedBy"] == core::Json::array({0}));
    if (m["type"] != "audit.event") continue;
    ++audit_events;
    core::Json data = core::ParseJsonOrDiscarded(m.value("body", ""))["data"];
    CHECK(data["caseId"] == c);
    CHECK(data["personId"] == person);
    CHECK(data["channel"] == "review_case");
    CHECK(data["actor"]["type"] == "api_key");
    CHECK(data["eventId"] == entries[0]["eventId"]);
    CHECK(m.value("body", "").find(kCurp) == std::string::npos);  // ids only
  }
  CHECK(audit_events == 1);

  // Refusals: the id, another tenant, the other environment, the scope.
  CheckProblem(env.Call(k, "GET", "/v1/review/cases/nope"), 400, "INVALID_ID");
  CheckProblem(env.Call(k, "GET", "/v1/review/cases/cas_00000000000000000000000000000000"), 404, "CASE_NOT_FOUND");
  const std::string other = env.NewTenant("Other");
  CheckProblem(env.Call(env.NewKey(other, "test", {"*"}), "GET", path), 404, "CASE_NOT_FOUND");
  CheckProblem(env.Call(env.live_key, "GET", path), 404, "CASE_NOT_FOUND");
  CheckProblem(env.Call(env.NewKey(env.tenant, "test", {"review:write"}), "GET", path), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(reader, "POST", path + "/claim"), 403, "INSUFFICIENT_SCOPE");
  CHECK(AuditEntries(env, k, "review_case").size() == 1);  // refusals reveal nothing
}

TEST_CASE("review: a case without a person shows what the document said; the reveal budget bounds openings") {
  Env env(false, {"--rate-reveals", "0", "--reveal-budget-per-day", "2"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string s = testing::SandboxSession(env, k, "budget-1", "review");
  const std::string path = "/v1/review/cases/" + testing::ReviewCaseOf(env, k, s);
  auto first = env.Call(k, "GET", path);
  REQUIRE_MESSAGE(first.status == 200, first.body);
  CHECK(Body(first)["applicant"].is_null());
  // Issue 69, item 9: no person, yet the reviewer sees the document's reading (it saw "—"), and
  // the opening's access names it.
  const core::Json read = Body(first)["documentRead"];
  INFO(read.dump());
  REQUIRE(read.is_object());
  CHECK(read["curp"].is_string());
  CHECK(read["fullName"].is_string());
  CHECK(read["birthDate"].is_string());
  bool named = false;
  for (const auto& e : AuditEntries(env, k, "review_case")) {
    for (const auto& f : e.value("fields", core::Json::array())) named |= f == "documentRead";
  }
  CHECK(named);
  CHECK(!Body(env.Call(k, "GET", path + "/state")).contains("documentRead"));  // the state opens nothing
  REQUIRE(env.Call(k, "GET", path).status == 200);
  auto spent = env.Call(k, "GET", path);
  CheckProblem(spent, 429, "PII_DECRYPT_CAP_REACHED");
  CHECK(!testing::HeaderOf(spent, "Retry-After").empty());
  CHECK(AuditEntries(env, k, "review_case").size() == 2);
}

TEST_CASE("review: a capture is shown decrypted to the reviewer entitled to the case, and audited") {
  Env env(false, {"--rate-reveals", "0"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string s = testing::SandboxSession(env, k, "media-1", "review");
  const std::string c = testing::ReviewCaseOf(env, k, s);
  const std::string approved = testing::SandboxSession(env, k, "media-2", "approved");
  core::Json d = Body(env.Call(k, "GET", "/v1/review/cases/" + c));
  const std::string front = d["media"][0]["url"];
  const std::string ana = env.NewKey(env.tenant, "test", {"review:*"});
  const std::string beto = env.NewKey(env.tenant, "test", {"review:*"});

  // Free case: any reviewer may look before claiming.
  auto shown = env.Call(beto, "GET", front);
  REQUIRE_MESSAGE(shown.status == 200, shown.body);
  CHECK(shown.content_type == "image/jpeg");
  CHECK(shown.body == testing::Jpeg(1280, 800));
  CHECK(testing::HeaderOf(shown, "Cache-Control") == "no-store");
  CHECK(testing::HeaderOf(shown, "X-Content-Type-Options") == "nosniff");

  // Held by ana: only ana.
  REQUIRE(env.Call(ana, "POST", "/v1/review/cases/" + c + "/claim").status == 200);
  CHECK(env.Call(ana, "GET", front).status == 200);
  CheckProblem(env.Call(beto, "GET", front), 409, "CASE_ALREADY_CLAIMED");
  core::Json entries = AuditEntries(env, k, "review_media");
  REQUIRE(entries.size() == 2);
  CHECK(entries[0]["caseId"] == c);
  CHECK(entries[0]["fields"] == core::Json::array({"capture:document_front"}));

  // Refusals.
  CheckProblem(env.Call(ana, "GET", "/v1/review/media/nope"), 400, "INVALID_ID");
  CheckProblem(env.Call(ana, "GET", "/v1/review/media/med_00000000000000000000000000000000"), 404, "MEDIA_NOT_FOUND");
  core::Json ev = Body(env.Call(k, "GET", "/v1/verification-sessions/" + approved + "/evidence"));
  std::string approved_media;
  for (const auto& m : ev["media"]) approved_media = m.value("mediaId", m.value("id", ""));
  REQUIRE(!approved_media.empty());
  CheckProblem(env.Call(ana, "GET", "/v1/review/media/" + approved_media), 404, "MEDIA_NOT_FOUND");
  CheckProblem(env.Call(env.live_key, "GET", front), 404, "MEDIA_NOT_FOUND");
  CheckProblem(env.Call(env.NewKey(env.tenant, "test", {"review:write"}), "GET", front), 403, "INSUFFICIENT_SCOPE");

  // A finished case's captures are no longer shown.
  REQUIRE(env.Call(ana, "POST", "/v1/review/cases/" + c + "/resolve", R"({"action":"approve"})").status == 200);
  CheckProblem(env.Call(ana, "GET", front), 409, "CASE_CLOSED");
  CHECK(AuditEntries(env, k, "review_media").size() == 2);
}

TEST_CASE("review: a reviewer signs in, works the queue as a user, and the token is checked on every call") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock", "--reviewer-token-ttl-minutes", "30"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string s = testing::SandboxSession(env, k, "user-1", "review");
  const std::string c = testing::ReviewCaseOf(env, k, s);
  core::Json ana = Reviewer(env, "Ana (compliance)");
  core::Json beto = Reviewer(env, "Beto (compliance)");

  // Sign-in and its refusals.
  auto signed_in = SignIn(env, {{"secret", ana["secret"]}, {"environment", "test"}});
  REQUIRE_MESSAGE(signed_in.status == 200, signed_in.body);
  CHECK(testing::HeaderOf(signed_in, "Cache-Control") == "no-store");
  core::Json si = Body(signed_in);
  CHECK(si["userId"] == ana["id"]);
  CHECK(si["tenantId"] == env.tenant);
  CHECK(si["role"] == "reviewer");
  CHECK(si["tokenType"] == "Bearer");
  const std::string token = si["token"];
  CheckProblem(SignIn(env, {{"secret", "usk_" + std::string(40, 'x')}, {"environment", "test"}}), 401, "API_KEY_INVALID");
  CheckProblem(SignIn(env, {{"secret", k}, {"environment", "test"}}), 401, "API_KEY_INVALID");
  CheckProblem(SignIn(env, {{"secret", ana["secret"]}}), 422, "VALIDATION_ERROR");
  CheckProblem(SignIn(env, {{"secret", ana["secret"]}, {"environment", "staging"}}), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call("", "POST", "/console/api/sign-in", "{nope"), 400, "BAD_REQUEST");

  // The queue as a user: the claim names the user; mine=true is the user's.
  CHECK(Body(env.Call(token, "GET", "/v1/review/queue"))["data"].size() == 1);
  auto claimed = env.Call(token, "POST", "/v1/review/cases/" + c + "/claim");
  REQUIRE_MESSAGE(claimed.status == 200, claimed.body);
  CHECK(Body(claimed)["assigneeUserId"] == ana["id"]);
  CHECK(Body(claimed)["assigneeApiKeyId"].is_null());
  CHECK(Body(env.Call(token, "GET", "/v1/review/queue?mine=true"))["data"][0]["caseId"] == c);
  const std::string beto_token = TokenOf(env, beto["secret"]);
  CHECK(Body(env.Call(beto_token, "GET", "/v1/review/queue?mine=true"))["data"].empty());
  CheckProblem(env.Call(beto_token, "POST", "/v1/review/cases/" + c + "/claim"), 409, "CASE_ALREADY_CLAIMED");
  REQUIRE(env.Call(token, "POST", "/v1/review/cases/" + c + "/notes", R"({"note":"looking"})").status == 204);
  core::Json d = Body(env.Call(token, "GET", "/v1/review/cases/" + c));
  CHECK(d["events"].back()["actorType"] == "user");
  CHECK(d["events"].back()["actorUserId"] == ana["id"]);
  core::Json entry = AuditEntries(env, k, "review_case")[0];
  CHECK(entry["actorType"] == "user");
  CHECK(entry["actorId"] == ana["id"]);

  // Only the review routes and the progress stream take the token.
  CheckProblem(env.Call(token, "GET", "/v1/verification-sessions"), 401, "API_KEY_INVALID");
  CheckProblem(env.Call(token, "GET", "/v1/persons"), 401, "API_KEY_INVALID");

  // The reviewer channel of the progress stream, read by the eventsource package (header), and
  // by a browser's EventSource (access_token in the query).
  const std::string events =
      "http://127.0.0.1:" + std::to_string(env.server->target().port) + "/v1/verification-sessions/" + s + "/events";
  testing::ChildProcess es({"node", std::string(SVC_TEST_SOURCE_DIR) + "/clients/sse_client.mjs", events, token, "60000"});
  core::Json got = core::ParseJsonOrDiscarded(es.ReadLine());
  CHECK(got["closed"] == true);
  REQUIRE_MESSAGE(!got["events"].empty(), got.dump());
  CHECK(got["events"].back()["type"] == "verification.review_required");
  auto by_query = api::HttpCall(env.server->target(), "GET",
                                "/v1/verification-sessions/" + s + "/events?access_token=" + token, {}, "");
  REQUIRE(by_query.ok());
  CHECK(by_query->status == 200);
  CHECK(by_query->body.find("verification.review_required") != std::string::npos);
  auto other_session = testing::SandboxSession(env, env.NewKey(env.NewTenant("Other"), "test", {"*"}), "o-1", "approved");
  CheckProblem(env.Call(token, "GET", "/v1/verification-sessions/" + other_session + "/events"), 404, "SESSION_NOT_FOUND");

  // The console's queue feed: its refusals (the stream itself is exercised by the browser test).
  CheckProblem(env.Call("", "GET", "/console/api/events"), 401, "AUTHENTICATION_REQUIRED");
  CheckProblem(env.Call("", "GET", "/console/api/events?access_token=eyJx.y.z"), 401, "API_KEY_INVALID");
  CheckProblem(env.Call(k, "GET", "/console/api/events"), 401, "API_KEY_INVALID");  // an API key is no reviewer
  CheckProblem(env.Call(token, "GET", "/console/api/events", "", {{"Last-Event-ID", "x1"}}), 400, "BAD_REQUEST");

  // A changed token, and a token after its expiry, are refused.
  std::string forged = token;
  forged[forged.size() / 2] = forged[forged.size() / 2] == 'A' ? 'B' : 'A';
  CheckProblem(env.Call(forged, "GET", "/v1/review/queue"), 401, "API_KEY_INVALID");
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 31 * 60}}).status == 200);
  CheckProblem(env.Call(token, "GET", "/v1/review/queue"), 401, "API_KEY_INVALID");

  // The membership check: a disabled user's fresh token stops at once.
  const std::string fresh = TokenOf(env, beto["secret"]);
  REQUIRE(env.Call(fresh, "GET", "/v1/review/queue").status == 200);
  REQUIRE(env.Admin("POST", "/admin/tenants/" + env.tenant + "/users/" + beto["id"].get<std::string>() + "/disable").status == 200);
  CheckProblem(env.Call(fresh, "GET", "/v1/review/queue"), 401, "API_KEY_INVALID");
  CheckProblem(SignIn(env, {{"secret", beto["secret"]}, {"environment", "test"}}), 401, "API_KEY_INVALID");
}

TEST_CASE("review: a case's state opens nothing; who viewed it; the reason catalogue; a supervisor's captures") {
  Env env(false, {"--rate-reveals", "0"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string person = MakePerson(env, k);
  const std::string s = testing::SandboxSession(env, k, "state-1", "review", person, {{"clientReference", "loan/2026/0042"}});
  const std::string c = testing::ReviewCaseOf(env, k, s);
  const std::string path = "/v1/review/cases/" + c;
  REQUIRE(env.Call(k, "POST", path + "/claim").status == 200);
  REQUIRE(env.Call(k, "POST", path + "/notes", R"({"note":"called Juan; CURP confirmed by phone"})").status == 204);

  // The detail: one opening, with who viewed (the openings so far) and noteRequired.
  core::Json d = Body(env.Call(k, "GET", path));
  CHECK(d["viewers"]["total"].is_number_integer());
  for (const auto& a : d["actions"]) {
    if (a["action"] == "approve" || a["action"] == "decline") CHECK(a["noteRequired"] == false);  // FACE_MATCH_INCONCLUSIVE: medium
  }
  const std::string front = d["media"][0]["url"];
  REQUIRE(env.Call(k, "GET", front).status == 200);

  // The state: the same case, no applicant, the note sealed, and no access recorded.
  for (int i = 0; i < 3; ++i) {
    auto st = env.Call(k, "GET", path + "/state");
    REQUIRE_MESSAGE(st.status == 200, st.body);
    core::Json b = Body(st);
    CHECK(b["object"] == "review_case_state");
    CHECK_FALSE(b.contains("applicant"));
    CHECK(b["case"]["caseId"] == c);
    CHECK(b["session"]["sessionId"] == s);
    CHECK(st.body.find(kCurp) == std::string::npos);
    CHECK(st.body.find("called Juan") == std::string::npos);
    bool sealed_note = false;
    for (const auto& e : b["events"]) sealed_note |= e["eventType"] == "review.note_added" && e["sealed"] == true && e["body"].is_null();
    CHECK(sealed_note);
    CHECK(testing::HeaderOf(st, "Cache-Control") == "no-store");
  }
  // Who viewed: from the audit chain, newest first, the opening and the capture's view.
  core::Json viewers = Body(env.Call(k, "GET", path + "/state"))["viewers"];  // caught up with the log first
  REQUIRE(viewers["total"] == 2);
  CHECK(viewers["openings"] == 1);
  CHECK(viewers["entries"][0]["channel"] == "review_media");
  CHECK(viewers["entries"][0]["fields"] == core::Json::array({"capture:document_front"}));
  CHECK(viewers["entries"][1]["channel"] == "review_case");
  CHECK(viewers["entries"][1]["actorType"] == "api_key");
  // The audit log's caseId filter agrees.
  core::Json by_case = Body(env.Call(k, "GET", "/v1/audit-logs?caseId=" + c));
  CHECK(by_case["data"].size() == 2);
  CHECK(Body(env.Call(k, "GET", "/v1/audit-logs?caseId=" + c + "&channel=review_case"))["data"].size() == 1);
  CheckProblem(env.Call(k, "GET", "/v1/audit-logs?caseId=nope"), 400, "INVALID_ID");
  CheckProblem(env.Call(k, "GET", "/v1/review/cases/nope/state"), 400, "INVALID_ID");
  CheckProblem(env.Call(k, "GET", "/v1/review/cases/cas_00000000000000000000000000000000/state"), 404, "CASE_NOT_FOUND");
  CheckProblem(env.Call(env.live_key, "GET", path + "/state"), 404, "CASE_NOT_FOUND");

  // Search: by case id, case number, session, CURP (through the blind index), the integrator's
  // clientReference (exactly; one holding '/' is no prefix of another); nothing else.
  const std::string s2 = testing::SandboxSession(env, k, "state-2", "review", "", {{"clientReference", "loan/2026/0042/b"}});
  const std::string c2 = testing::ReviewCaseOf(env, k, s2);
  auto search = [&](const std::string& q) {
    auto r = env.Call(k, "GET", "/v1/review/search?q=" + q);
    REQUIRE_MESSAGE(r.status == 200, r.body);
    return Body(r);
  };
  const std::string number = d["case"]["publicId"];
  for (const auto& [q, by] : std::vector<std::pair<std::string, std::string>>{
           {c, "case"}, {number, "caseNumber"}, {s, "session"}, {kCurp, "curp"}, {"pepj800101hdfrrn03", "curp"},
           {"loan%2F2026%2F0042", "clientReference"}}) {
    INFO(q);
    core::Json found = search(q);
    CHECK(found["query"]["matchedBy"] == by);
    REQUIRE(found["data"].size() == 1);
    CHECK(found["data"][0]["caseId"] == c);
  }
  CHECK(search("GODE561231HDFRRR09")["data"].empty());  // a CURP nobody holds
  CHECK(search("loan%2F2026%2F0042%2Fb")["data"][0]["caseId"] == c2);
  CHECK(search("loan%2F2026")["data"].empty());
  CHECK(search("hello")["query"]["matchedBy"].is_null());
  CHECK(search("hello")["data"].empty());
  CHECK(search("CASE-999999")["data"].empty());
  CheckProblem(env.Call(k, "GET", "/v1/review/search"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", "/v1/review/search?q=x&limit=3"), 400, "BAD_REQUEST");
  CHECK(Body(env.Call(env.live_key, "GET", "/v1/review/search?q=" + c))["data"].empty());  // another environment

  // The reason catalogue, and a resolution held to it.
  core::Json reasons = Body(env.Call(k, "GET", "/v1/review/reason-codes"));
  bool approve_default = false;
  for (const auto& r : reasons["data"]) {
    CHECK(!r["label"]["es-MX"].get<std::string>().empty());
    approve_default |= r["code"] == "REVIEW_APPROVED" && r["action"] == "approve" && r["default"] == true;
  }
  CHECK(approve_default);
  auto wrong = env.Call(k, "POST", path + "/resolve", R"({"action":"approve","reasonCodes":["FACE_MISMATCH"]})");
  CheckProblem(wrong, 422, "VALIDATION_ERROR");
  CHECK(wrong.body.find("FACE_MISMATCH") != std::string::npos);

  // A supervisor sees the captures of a case held by another and of a finished one; a reviewer
  // does not.
  auto sup = env.Admin("POST", "/admin/tenants/" + env.tenant + "/users", {{"role", "supervisor"}, {"label", "Sofía (lead)"}});
  REQUIRE_MESSAGE(sup.status == 201, sup.body);
  const std::string sup_token = TokenOf(env, Body(sup)["secret"]);
  const std::string rev_token = TokenOf(env, Reviewer(env, "Rita")["secret"]);
  CHECK(env.Call(sup_token, "GET", front).status == 200);
  CheckProblem(env.Call(rev_token, "GET", front), 409, "CASE_ALREADY_CLAIMED");
  auto done = env.Call(k, "POST", path + "/resolve", R"({"action":"approve"})");
  REQUIRE_MESSAGE(done.status == 200, done.body);
  CHECK(env.Call(sup_token, "GET", front).status == 200);
  CheckProblem(env.Call(rev_token, "GET", front), 409, "CASE_CLOSED");
  // The approval without reasons records the generic one, not the engine's FACE_MATCH_INCONCLUSIVE.
  core::Json evidence = Body(env.Call(k, "GET", "/v1/verification-sessions/" + s + "/evidence"));
  CHECK(evidence["decision"]["reasonCodes"] == core::Json::array({"REVIEW_APPROVED"}));
}

TEST_CASE("review: supervisors reassign any case and read the team's workload; reviewers do not") {
  Env env(false, {"--rate-reveals", "0"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string c1 = testing::ReviewCaseOf(env, k, testing::SandboxSession(env, k, "team-1", "review"));
  const std::string c2 = testing::ReviewCaseOf(env, k, testing::SandboxSession(env, k, "team-2", "review"));
  core::Json rita = Reviewer(env, "Rita"), rui = Reviewer(env, "Rui");
  auto sup = env.Admin("POST", "/admin/tenants/" + env.tenant + "/users", {{"role", "supervisor"}, {"label", "Sofía"}});
  REQUIRE_MESSAGE(sup.status == 201, sup.body);
  const std::string rita_t = TokenOf(env, rita["secret"]), rui_t = TokenOf(env, rui["secret"]);
  const std::string sofia_t = TokenOf(env, Body(sup)["secret"]);
  auto post = [&env](const std::string& token, const std::string& path, const core::Json& body) {
    return env.Call(token, "POST", path, body.is_null() ? "" : body.dump());
  };
  const std::string p1 = "/v1/review/cases/" + c1;

  // Rita holds c1: Rui may not take it from her; the supervisor may give it to him.
  REQUIRE(post(rita_t, p1 + "/claim", nullptr).status == 200);
  CheckProblem(post(rui_t, p1 + "/reassign", {{"assigneeUserId", rui["id"]}}), 403, "PERMISSION_DENIED");
  auto moved = post(sofia_t, p1 + "/reassign", {{"assigneeUserId", rui["id"]}});
  REQUIRE_MESSAGE(moved.status == 200, moved.body);
  CHECK(Body(moved)["assigneeUserId"] == rui["id"]);
  // A reviewer may still hand over a free case or their own.
  REQUIRE(post(rita_t, "/v1/review/cases/" + c2 + "/reassign", {{"assigneeUserId", rita["id"]}}).status == 200);
  REQUIRE(post(rita_t, "/v1/review/cases/" + c2 + "/reassign", {{"assigneeUserId", rui["id"]}}).status == 200);

  // Double approval of approvals: Rui proposes to approve c1; Rita, second, declines it: Rui's
  // proposal is overturned, and Rita's decline is a proposal now.
  REQUIRE(env.Admin("POST", "/admin/tenants/" + env.tenant + "/review-policy", {{"doubleApproval", "all"}}).status == 200);
  auto first = post(rui_t, p1 + "/resolve", {{"action", "approve"}, {"reasonCodes", {"MANUAL_FACE_MATCH"}}});
  REQUIRE_MESSAGE(first.status == 200, first.body);
  CHECK(Body(first)["awaitingSecondApproval"] == true);
  REQUIRE(post(rita_t, p1 + "/claim", nullptr).status == 200);
  auto second = post(rita_t, p1 + "/resolve", {{"action", "decline"}, {"reasonCodes", {"FACE_MISMATCH"}}});
  REQUIRE_MESSAGE(second.status == 200, second.body);
  REQUIRE(post(rui_t, p1 + "/claim", nullptr).status == 200);
  auto agreed = post(rui_t, p1 + "/resolve", {{"action", "decline"}});
  REQUIRE_MESSAGE(agreed.status == 200, agreed.body);
  CHECK(Body(agreed)["caseStatus"] == "resolved");

  // The team: for the supervisor and keys only.
  CheckProblem(env.Call(rita_t, "GET", "/v1/review/team"), 403, "PERMISSION_DENIED");
  auto team = env.Call(sofia_t, "GET", "/v1/review/team");
  REQUIRE_MESSAGE(team.status == 200, team.body);
  const core::Json team_body = Body(team);
  std::map<std::string, core::Json> by;
  for (const auto& m : team_body["members"]) by[m["label"].is_string() ? m["label"].get<std::string>() : ""] = m;
  REQUIRE(by.count("Rita"));
  REQUIRE(by.count("Rui"));
  REQUIRE(by.count("Sofía"));
  CHECK(by["Rui"]["held"] == 1);  // c2
  CHECK(by["Rita"]["held"] == 0);
  CHECK(by["Rui"]["proposals"] == 1);
  CHECK(by["Rui"]["overturned"] == 1);
  CHECK(by["Rita"]["proposals"] == 1);
  CHECK(by["Rita"]["overturned"] == 0);
  CHECK(by["Rui"]["decisions"]["decline"] == 1);
  CHECK(by["Rui"]["decided"] == 1);
  CHECK(by["Rui"]["meanDecisionSeconds"].is_number_integer());
  CHECK(by["Rita"]["claims"] == 2);
  CHECK(by["Sofía"]["role"] == "supervisor");
  CHECK(team_body["queue"]["resolved"] == 1);
  CHECK(env.Call(k, "GET", "/v1/review/team").status == 200);  // an integration's key
  CHECK(team.body.find("\"secret") == std::string::npos);
}

}  // namespace integration_review_detail_test
