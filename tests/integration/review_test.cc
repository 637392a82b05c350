// The review queue and case operations through a real svc (docs/review.md): cases opened by real
// verifications (sandbox outcome review), the queue in priority and SLA order with its filters,
// the summary, claim / release / reassign / notes and their refusals, scopes, tenant and
// environment isolation, and 50 concurrent claims of one case of which exactly one wins.
#include <doctest/doctest.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/clock.h"
#include "api/http/http_client.h"
#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/receiver_process.h"
#include "tests/support/session_flow.h"
#include "tests/support/stopped_data_dir.h"

namespace integration_review_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

const std::string kQueue = "/v1/review/queue";


api::HttpResponse Post(Env& env, const std::string& key, const std::string& path, const std::string& body = "") {
  return env.Call(key, "POST", path, body);
}

std::string UserOf(Env& env, const std::string& role, const std::string& label) {
  auto r = env.Admin("POST", "/admin/tenants/" + env.tenant + "/users", {{"role", role}, {"label", label}});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  core::Json u = Body(r);
  CHECK(u["secret"].get<std::string>().rfind("usk_", 0) == 0);
  return u["id"];
}

}  // namespace

TEST_CASE("review: the queue, the summary, and claim, release, reassign and notes with their refusals") {
  Env env(false, {"--rate-reveals", "0"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string s1 = testing::SandboxSession(env, k, "review-1", "review");
  const std::string s2 = testing::SandboxSession(env, k, "review-2", "review");
  testing::SandboxSession(env, k, "approved-1", "approved");  // no case
  const std::string c1 = testing::ReviewCaseOf(env, k, s1), c2 = testing::ReviewCaseOf(env, k, s2);
  const std::string cases = "/v1/review/cases/";

  // The queue: both cases, open, medium (FACE_MATCH_INCONCLUSIVE), due in 24 h, oldest first.
  core::Json q = Body(env.Call(k, "GET", kQueue));
  REQUIRE(q["data"].size() == 2);
  CHECK(q["data"][0]["caseId"] == c1);
  CHECK(q["data"][1]["caseId"] == c2);
  core::Json item = q["data"][0];
  CHECK(item["object"] == "review_case");
  CHECK(item["publicId"] == "CASE-000001");
  CHECK(item["caseNumber"] == 1);
  CHECK(item["tenantId"] == env.tenant);
  CHECK(item["sessionId"] == s1);
  CHECK(item["status"] == "open");
  CHECK(item["priority"] == "medium");
  CHECK(item["reasonCodes"] == core::Json::array({"FACE_MATCH_INCONCLUSIVE"}));
  CHECK(item["assigneeApiKeyId"].is_null());
  auto created = core::ParseRfc3339(item["createdAt"].get<std::string>());
  REQUIRE(created.ok());
  CHECK(item["slaDueAt"] == core::FormatRfc3339(core::Timestamp{created->micros + 86400LL * 1000000}));
  CHECK(Body(env.Call(k, "GET", kQueue + "/summary")) ==
        core::Json({{"open", 2}, {"inProgress", 0}, {"escalated", 0}, {"resolved", 0}, {"closed", 0}, {"total", 2}}));

  // Claim: one holder at a time.
  const std::string ana = env.NewKey(env.tenant, "test", {"review:read", "review:write"});
  const std::string beto = env.NewKey(env.tenant, "test", {"review:*"});
  auto claimed = Post(env, ana, cases + c1 + "/claim");
  REQUIRE_MESSAGE(claimed.status == 200, claimed.body);
  core::Json claim = Body(claimed);
  CHECK(claim["caseId"] == c1);
  CHECK(claim["status"] == "in_progress");
  CHECK(claim["assigneeUserId"].is_null());
  const std::string ana_id = claim["assigneeApiKeyId"];
  CHECK(ana_id.rfind("key_", 0) == 0);
  CHECK(Body(Post(env, ana, cases + c1 + "/claim")) == claim);  // the holder again: as the first time
  CheckProblem(Post(env, beto, cases + c1 + "/claim"), 409, "CASE_ALREADY_CLAIMED");
  CheckProblem(Post(env, beto, cases + c1 + "/release"), 409, "CASE_CLAIM_REQUIRED");

  // Filters.
  CHECK(Body(env.Call(k, "GET", kQueue + "?status=in_progress"))["data"].size() == 1);
  CHECK(Body(env.Call(k, "GET", kQueue + "?scope=unassigned"))["data"][0]["caseId"] == c2);
  CHECK(Body(env.Call(k, "GET", kQueue + "?scope=assigned"))["data"][0]["caseId"] == c1);
  CHECK(Body(env.Call(ana, "GET", kQueue + "?mine=true"))["data"][0]["caseId"] == c1);
  CHECK(Body(env.Call(beto, "GET", kQueue + "?mine=true"))["data"].empty());
  CHECK(Body(env.Call(k, "GET", kQueue + "?priority=high"))["data"].empty());
  CHECK(Body(env.Call(k, "GET", kQueue + "?limit=1"))["data"].size() == 1);
  CHECK(Body(env.Call(k, "GET", kQueue + "?tenantId=" + env.tenant))["data"].size() == 2);
  CheckProblem(env.Call(k, "GET", kQueue + "?status=lost"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", kQueue + "?mine=maybe"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", kQueue + "?tenantId=ten_00000000000000000000000000000000"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", kQueue + "?color=red"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(k, "GET", kQueue + "/summary?color=red"), 400, "BAD_REQUEST");
  CHECK(Body(env.Call(k, "GET", kQueue + "/summary?scope=assigned"))["inProgress"] == 1);
  CHECK(Body(env.Call(k, "GET", kQueue + "/summary?scope=assigned"))["total"] == 1);
  CHECK(Body(env.Call(k, "GET", kQueue + "/summary"))["inProgress"] == 1);

  // Release: back to the queue.
  auto released = Post(env, ana, cases + c1 + "/release");
  CHECK(released.status == 204);
  CHECK(Body(env.Call(k, "GET", kQueue + "?status=open"))["data"].size() == 2);

  // Notes: no claim needed; refused when empty or not JSON.
  CHECK(Post(env, beto, cases + c1 + "/notes", R"({"note":"called the applicant; document on file"})").status == 204);
  CheckProblem(Post(env, beto, cases + c1 + "/notes", R"({"note":""})"), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, beto, cases + c1 + "/notes", R"({})"), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, beto, cases + c1 + "/notes", R"({"note":"x","extra":1})"), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, beto, cases + c1 + "/notes", "{not json"), 400, "BAD_REQUEST");

  // Reassign: only to an active reviewer of the tenant.
  const std::string reviewer = UserOf(env, "reviewer", "team north 3");
  auto moved = Post(env, beto, cases + c2 + "/reassign", core::Json({{"assigneeUserId", reviewer}}).dump());
  REQUIRE_MESSAGE(moved.status == 200, moved.body);
  CHECK(Body(moved)["assigneeUserId"] == reviewer);
  CHECK(Body(moved)["assigneeApiKeyId"].is_null());
  CHECK(Body(moved)["status"] == "in_progress");
  CheckProblem(Post(env, ana, cases + c2 + "/claim"), 409, "CASE_ALREADY_CLAIMED");
  CheckProblem(Post(env, beto, cases + c1 + "/reassign",
                    core::Json({{"assigneeUserId", "usr_00000000000000000000000000000000"}}).dump()),
               422, "NOT_A_REVIEWER");
  CheckProblem(Post(env, beto, cases + c1 + "/reassign", R"({"assigneeUserId":"ana"})"), 400, "INVALID_ID");
  CheckProblem(Post(env, beto, cases + c1 + "/reassign", R"({})"), 422, "VALIDATION_ERROR");
  auto off = env.Admin("POST", "/admin/tenants/" + env.tenant + "/users/" + reviewer + "/disable");
  REQUIRE_MESSAGE(off.status == 200, off.body);
  CHECK(Body(off)["disabledAt"].is_string());
  CheckProblem(Post(env, beto, cases + c1 + "/reassign", core::Json({{"assigneeUserId", reviewer}}).dump()), 422,
               "NOT_A_REVIEWER");
  auto users = env.Admin("GET", "/admin/tenants/" + env.tenant + "/users");
  REQUIRE(users.status == 200);
  CHECK(Body(users)["data"].size() == 1);
  CHECK(users.body.find("usk_") == std::string::npos);  // the secret was shown once

  // Unknown, malformed, and other environments' cases; scopes.
  CheckProblem(Post(env, ana, cases + "cas_00000000000000000000000000000000/claim"), 404, "CASE_NOT_FOUND");
  CheckProblem(Post(env, ana, cases + "nope/claim"), 400, "INVALID_ID");
  CheckProblem(Post(env, env.live_key, cases + c1 + "/claim"), 404, "CASE_NOT_FOUND");
  CHECK(Body(env.Call(env.live_key, "GET", kQueue))["data"].empty());
  const std::string reader = env.NewKey(env.tenant, "test", {"review:read"});
  CHECK(env.Call(reader, "GET", kQueue).status == 200);
  CheckProblem(Post(env, reader, cases + c1 + "/claim"), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(Post(env, reader, cases + c1 + "/notes", R"({"note":"x"})"), 403, "INSUFFICIENT_SCOPE");
  const std::string outsider = env.NewKey(env.tenant, "test", {"verification:read"});
  CheckProblem(env.Call(outsider, "GET", kQueue), 403, "INSUFFICIENT_SCOPE");
  // Another tenant sees none of it.
  const std::string other_tenant = env.NewTenant("Other");
  const std::string other = env.NewKey(other_tenant, "test", {"*"});
  CHECK(Body(env.Call(other, "GET", kQueue))["data"].empty());
  CheckProblem(Post(env, other, cases + c1 + "/claim"), 404, "CASE_NOT_FOUND");
}

TEST_CASE("review: of 50 concurrent claims of one case, exactly one wins") {
  Env env(false, {"--rate-reveals", "0", "--rate-writes", "0"}, Sharing::kIsolated);
  const std::string session = testing::SandboxSession(env, env.test_key, "review-race", "review");
  const std::string c = testing::ReviewCaseOf(env, env.test_key, session);
  std::vector<std::string> keys;
  for (int i = 0; i < 50; ++i) keys.push_back(env.NewKey(env.tenant, "test", {"review:write"}));
  std::atomic<int> won{0}, lost{0}, other{0};
  std::vector<std::thread> threads;
  for (const auto& key : keys) {
    threads.emplace_back([&, key] {
      auto r = env.Call(key, "POST", "/v1/review/cases/" + c + "/claim");
      if (r.status == 200) {
        ++won;
      } else if (r.status == 409 && r.body.find("CASE_ALREADY_CLAIMED") != std::string::npos) {
        ++lost;
      } else {
        ++other;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(won == 1);
  CHECK(lost == 49);
  CHECK(other == 0);
  core::Json q = Body(env.Call(env.test_key, "GET", kQueue + "?status=in_progress"));
  REQUIRE(q["data"].size() == 1);
  CHECK(q["data"][0]["assigneeApiKeyId"].is_string());
}

TEST_CASE("review: resolutions move the session and send its webhook; escalation sends case.escalated") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--rate-reveals", "0", "--webhooks-allow-private-urls"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto hook = env.Call(k, "POST", "/v1/developer/webhooks",
                       core::Json{{"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/r"},
                                  {"events", {"verification.approved", "verification.declined",
                                              "verification.more_info_requested", "case.*"}}}
                           .dump(),
                       {{"Idempotency-Key", "hook-review"}});
  REQUIRE_MESSAGE(hook.status == 201, hook.body);
  receiver.AddSecret(Body(hook)["secret"]);
  const std::string s1 = testing::SandboxSession(env, k, "rv-1", "review");
  const std::string s2 = testing::SandboxSession(env, k, "rv-2", "review");
  const std::string s3 = testing::SandboxSession(env, k, "rv-3", "review");
  const std::string c1 = testing::ReviewCaseOf(env, k, s1), c2 = testing::ReviewCaseOf(env, k, s2), c3 = testing::ReviewCaseOf(env, k, s3);
  const std::string ana = env.NewKey(env.tenant, "test", {"review:*"});
  const std::string beto = env.NewKey(env.tenant, "test", {"review:*"});
  auto resolve = [&](const std::string& key, const std::string& c, const core::Json& body) {
    return Post(env, key, "/v1/review/cases/" + c + "/resolve", body.dump());
  };

  // Refusals.
  CheckProblem(resolve(ana, c1, {{"action", "approve"}}), 409, "CASE_CLAIM_REQUIRED");
  CheckProblem(resolve(ana, c1, {{"action", "bless"}}), 422, "VALIDATION_ERROR");
  CheckProblem(resolve(ana, c1, {{"action", "note"}}), 422, "VALIDATION_ERROR");
  CheckProblem(resolve(ana, c1, {{"action", "approve"}, {"reasonCodes", "x"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, ana, "/v1/review/cases/" + c1 + "/resolve", "{not json"), 400, "BAD_REQUEST");

  // Approve: the case is resolved, the session approved, its webhook sent.
  REQUIRE(Post(env, ana, "/v1/review/cases/" + c1 + "/claim").status == 200);
  REQUIRE(resolve(ana, c1, {{"action", "note"}, {"note", "document checked by hand"}}).status == 200);
  auto approved = resolve(ana, c1, {{"action", "approve"}, {"reasonCodes", {"MANUAL_DOCUMENT_CHECK"}}});
  REQUIRE_MESSAGE(approved.status == 200, approved.body);
  core::Json a = Body(approved);
  CHECK(a["caseId"] == c1);
  CHECK(a["caseStatus"] == "resolved");
  CHECK(a["sessionStatus"] == "approved");
  CHECK(a["outcome"] == "approved");
  CHECK(a["awaitingSecondApproval"] == false);
  CHECK(Body(env.Call(k, "GET", "/v1/verification-sessions/" + s1))["status"] == "approved");
  core::Json evidence = Body(env.Call(k, "GET", "/v1/verification-sessions/" + s1 + "/evidence"));
  CHECK(evidence["decision"]["outcome"] == "approved");
  CHECK(evidence["decision"]["decidedBy"] == "review");
  CHECK(evidence["decision"]["reasonCodes"] == core::Json::array({"MANUAL_DOCUMENT_CHECK"}));
  CheckProblem(resolve(ana, c1, {{"action", "decline"}}), 409, "CASE_CLOSED");

  // Escalate: priority one step up, back in the queue, case.escalated sent.
  REQUIRE(Post(env, beto, "/v1/review/cases/" + c2 + "/claim").status == 200);
  auto up = resolve(beto, c2, {{"action", "escalate"}, {"note", "possible impersonation"}});
  REQUIRE_MESSAGE(up.status == 200, up.body);
  CHECK(Body(up)["caseStatus"] == "escalated");
  CHECK(Body(up)["sessionStatus"] == "review");
  CHECK(Body(up)["outcome"].is_null());
  core::Json escalated = Body(env.Call(k, "GET", kQueue + "?status=escalated"))["data"][0];
  CHECK(escalated["caseId"] == c2);
  CHECK(escalated["priority"] == "high");
  CHECK(escalated["escalationLevel"] == 1);
  CHECK(escalated["assigneeApiKeyId"].is_null());

  // Double approval of declines (the tenant's policy): a second, different reviewer.
  auto policy = env.Admin("POST", "/admin/tenants/" + env.tenant + "/review-policy", {{"doubleApproval", "declines"}});
  REQUIRE_MESSAGE(policy.status == 200, policy.body);
  REQUIRE(Post(env, ana, "/v1/review/cases/" + c3 + "/claim").status == 200);
  auto first = resolve(ana, c3, {{"action", "decline"}, {"reasonCodes", {"FACE_MISMATCH"}}});
  REQUIRE_MESSAGE(first.status == 200, first.body);
  CHECK(Body(first)["awaitingSecondApproval"] == true);
  CHECK(Body(first)["caseStatus"] == "open");
  CHECK(Body(first)["sessionStatus"] == "review");
  CHECK(Body(env.Call(k, "GET", "/v1/verification-sessions/" + s3))["status"] == "review");
  REQUIRE(Post(env, ana, "/v1/review/cases/" + c3 + "/claim").status == 200);
  CheckProblem(resolve(ana, c3, {{"action", "decline"}}), 409, "SECOND_APPROVAL_REQUIRED");
  REQUIRE(Post(env, ana, "/v1/review/cases/" + c3 + "/release").status == 204);
  REQUIRE(Post(env, beto, "/v1/review/cases/" + c3 + "/claim").status == 200);
  auto second = resolve(beto, c3, {{"action", "decline"}});
  REQUIRE_MESSAGE(second.status == 200, second.body);
  CHECK(Body(second)["caseStatus"] == "resolved");
  CHECK(Body(second)["sessionStatus"] == "declined");
  core::Json declined = Body(env.Call(k, "GET", "/v1/verification-sessions/" + s3 + "/evidence"));
  CHECK(declined["decision"]["reviewers"].size() == 2);
  CHECK(Body(env.Call(k, "GET", kQueue + "/summary")) ==
        core::Json({{"open", 0}, {"inProgress", 0}, {"escalated", 1}, {"resolved", 2}, {"closed", 0}, {"total", 3}}));

  // The webhooks: service.test, the two verdicts, the escalation; each verified by the reference package.
  REQUIRE(receiver.WaitFor("/r", 4));
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  std::map<std::string, int> types;
  for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) {
    types[m["type"]]++;
    CHECK(m["verifiedBy"] == core::Json::array({0}));
  }
  CHECK(types["verification.approved"] == 1);
  CHECK(types["verification.declined"] == 1);
  CHECK(types["case.escalated"] == 1);
}

TEST_CASE("review: a resolution interrupted by a crash before the session moved reaches it after the restart") {
  // The outcome writer, the one writer of the session's move, is paused (a test flag): the case's
  // resolution is durable, the session still in review, when the server is killed.
  Env env(false, {"--rate-reveals", "0", "--debug-review-outcomes-paused"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string s = testing::SandboxSession(env, k, "rv-crash", "review");
  const std::string c = testing::ReviewCaseOf(env, k, s);
  REQUIRE(Post(env, k, "/v1/review/cases/" + c + "/claim").status == 200);
  auto resolved = Post(env, k, "/v1/review/cases/" + c + "/resolve", R"({"action":"decline"})");
  REQUIRE_MESSAGE(resolved.status == 200, resolved.body);
  CHECK(Body(resolved)["caseStatus"] == "resolved");
  CHECK(Body(resolved)["sessionStatus"] == "review");  // not moved yet
  env.server->Kill();
  const std::string data = env.server->data_dir();
  std::vector<std::string> flags = {"--rate-reveals", "0"};
  flags.insert(flags.end(), env.blob_flags.begin(), env.blob_flags.end());
  env.server = std::make_unique<testing::SvcServer>(data, flags);
  env.server->Start();
  REQUIRE(env.Admin("POST", "/admin/review/wait-idle").status == 200);
  CHECK(Body(env.Call(k, "GET", "/v1/verification-sessions/" + s))["status"] == "declined");
  core::Json evidence = Body(env.Call(k, "GET", "/v1/verification-sessions/" + s + "/evidence"));
  CHECK(evidence["decision"]["decidedBy"] == "review");
  CHECK(evidence["decision"]["outcome"] == "declined");
  core::Json q = Body(env.Call(k, "GET", kQueue + "?status=resolved"));
  REQUIRE(q["data"].size() == 1);
  CHECK(q["data"][0]["resolution"] == "decline");
  // Idle again: nothing left to move, and a second wait finds nothing.
  REQUIRE(env.Admin("POST", "/admin/review/wait-idle").status == 200);
}

TEST_CASE("review: 'more information' names the captures and carries the reviewer's words, sealed at rest") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--rate-reveals", "0", "--webhooks-allow-private-urls", "--log-level", "debug"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto hook = env.Call(k, "POST", "/v1/developer/webhooks",
                       core::Json{{"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/r"},
                                  {"events", {"verification.more_info_requested"}}}
                           .dump(),
                       {{"Idempotency-Key", "hook-more"}});
  REQUIRE_MESSAGE(hook.status == 201, hook.body);
  receiver.AddSecret(Body(hook)["secret"]);
  const std::string hook_id = Body(hook)["id"];
  const std::string s = testing::SandboxSession(env, k, "more-1", "review");
  const std::string c = testing::ReviewCaseOf(env, k, s);
  const std::string path = "/v1/review/cases/" + c + "/resolve";
  REQUIRE(Post(env, k, "/v1/review/cases/" + c + "/claim").status == 200);
  // A distinctive word, to look for wherever the service keeps data.
  const std::string words = "Zorzalcanario: el reverso salió con reflejo; tómalo de nuevo sin flash.";

  // Refusals: the words go with request_more_info only, 500 characters at most, a string.
  CheckProblem(Post(env, k, path, core::Json{{"action", "approve"}, {"applicantMessage", words}}.dump()), 422,
               "VALIDATION_ERROR");
  CheckProblem(Post(env, k, path, core::Json{{"action", "escalate"}, {"applicantMessage", words}}.dump()), 422,
               "VALIDATION_ERROR");
  std::string long_words;
  for (int i = 0; i < 501; ++i) long_words += "ñ";  // 501 characters, 1002 bytes
  CheckProblem(Post(env, k, path,
                    core::Json{{"action", "request_more_info"}, {"applicantMessage", long_words}}.dump()),
               422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, path, R"({"action":"request_more_info","applicantMessage":7})"), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, path,
                    core::Json{{"action", "request_more_info"}, {"reasonCodes", {"FACE_MISMATCH"}}}.dump()),
               422, "VALIDATION_ERROR");  // a reason of another action
  CHECK(Body(env.Call(k, "GET", "/v1/verification-sessions/" + s))["status"] == "review");

  auto asked = Post(env, k, path,
                    core::Json{{"action", "request_more_info"},
                               {"reasonCodes", {"DOCUMENT_BACK_REQUIRED", "SELFIE_UNUSABLE"}},
                               {"applicantMessage", words}}
                        .dump());
  REQUIRE_MESSAGE(asked.status == 200, asked.body);
  CHECK(Body(asked)["caseStatus"] == "closed");
  CHECK(Body(asked)["sessionStatus"] == "awaiting_input");

  // The session resource, read and listed.
  const core::Json expected_captures = core::Json::array({"document_back", "selfie"});
  core::Json session = Body(env.Call(k, "GET", "/v1/verification-sessions/" + s));
  CHECK(session["status"] == "awaiting_input");
  const core::Json requested = session["requestedInput"];
  CHECK(requested["reasonCodes"] == core::Json::array({"DOCUMENT_BACK_REQUIRED", "SELFIE_UNUSABLE"}));
  CHECK(requested["captures"] == expected_captures);
  CHECK(requested["message"] == words);
  CHECK(requested["requestedAt"].is_string());
  CHECK(!requested.contains("messageSealed"));
  core::Json listed = Body(env.Call(k, "GET", "/v1/verification-sessions?status=awaiting_input"));
  REQUIRE(listed["data"].size() == 1);
  CHECK(listed["data"][0]["requestedInput"] == requested);

  // The webhook: the same, verified by the reference package; verify-signature knows its bytes.
  REQUIRE(receiver.WaitFor("/r", 2));
  core::Json delivered;
  for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) {
    if (m["type"] == "verification.more_info_requested") delivered = m;
  }
  REQUIRE(delivered.is_object());
  CHECK(delivered["verifiedBy"] == core::Json::array({0}));
  const core::Json body = core::ParseJsonOrDiscarded(delivered["body"].get<std::string>());
  CHECK(body["data"]["sessionId"] == s);
  CHECK(body["data"]["requestedInput"]["captures"] == expected_captures);
  CHECK(body["data"]["requestedInput"]["message"] == words);
  CHECK(!body["data"]["requestedInput"].contains("messageSealed"));
  auto check = env.Call(k, "POST", "/v1/developer/webhooks/" + hook_id + "/verify-signature",
                        core::Json{{"messageId", delivered["id"]},
                                   {"payload", delivered["body"]},
                                   {"timestamp", 1767225600},
                                   {"signature", "v1,AAAA"}}
                            .dump());
  REQUIRE_MESSAGE(check.status == 200, check.body);
  CHECK(Body(check)["expectedSignature"].get<std::string>().rfind("v1,", 0) == 0);  // the bytes sent
  CHECK(Body(check)["valid"] == false);

  // The resubmission: asked no more.
  const std::string base = "/v1/verification-sessions/" + s;
  REQUIRE(testing::Upload(env, k, s, "document_back", "image/jpeg", testing::Jpeg(1280, 802)).status == 201);
  REQUIRE(env.Call(k, "POST", base + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  CHECK(!Body(env.Call(k, "GET", base)).contains("requestedInput"));
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);

  // Nowhere at rest in clear: not in the log, the read models, the files, the server's logs.
  env.server->Stop();
  const std::vector<std::string> none;
  CHECK(testing::PlacesHolding(env.server->data_dir(), "Zorzalcanario") == none);
  CHECK(!testing::PlacesHolding(env.server->data_dir(), c).empty());  // a control: the scan finds what is there
  std::ifstream err(env.server->stderr_path(), std::ios::binary);
  std::stringstream logs;
  logs << env.server->stdout_text() << err.rdbuf();
  CHECK(logs.str().find(c) != std::string::npos);  // the requests were logged
  CHECK(logs.str().find("Zorzalcanario") == std::string::npos);
}

}  // namespace integration_review_test
