// History as of a moment (docs/audit.md): a session that went to review, was approved by a
// reviewer, and whose person was then forgotten, replayed at each of those moments through a
// real svc on the fake clock. Each replay shows the stage of its moment; each bundle verifies
// offline with docs/verify_history.py and the verifier key of the access log's checkpoints, and
// not once altered; each replay is an entry of the access log. Its error paths. The same replay
// of the stopped node's data directory (`svc audit history`) gives the same bundle. The tenant's
// compliance report as it stood at each moment.
#include <doctest/doctest.h>

#include <fstream>

#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"
#include "tests/support/session_flow.h"
#include "tests/support/temp_dir.h"

namespace integration_audit_history_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

api::HttpResponse Post(Env& env, const std::string& key, const std::string& path, const core::Json& body) {
  return env.Call(key, "POST", path, body.dump());
}

// A moment half a minute after the stage that just happened, and the next stage half a minute
// after it (the fake clock stands still between advances).
std::string Moment(Env& env) {
  auto now = env.Admin("POST", "/admin/clock", {{"advanceSeconds", 30}});
  REQUIRE_MESSAGE(now.status == 200, now.body);
  const std::string at = core::ParseJsonOrDiscarded(now.body)["now"];
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 30}}).status == 200);
  return at;
}

api::HttpResponse History(Env& env, const std::string& key, const std::string& type, const std::string& id,
                          const std::string& as_of) {
  std::string q = "/v1/audit-logs/history?subjectType=" + type + "&subjectId=" + id;
  if (!as_of.empty()) q += "&asOf=" + as_of;
  return env.Call(key, "GET", q, "", {{"Service-Reason", "CNBV inquiry 12/2026"}});
}

// docs/verify_history.py's exit status on `bundle`, with the given verifier key.
int VerifyOffline(const core::Json& bundle, const std::string& verifier_key) {
  testing::TempDir dir;
  const std::string path = dir.Sub("bundle.json");
  std::ofstream(path) << bundle.dump();
  auto run = testing::RunProgram("python3", {std::string(SVC_TEST_SOURCE_DIR) + "/../docs/verify_history.py", path,
                                            "--verifier-key", verifier_key});
  INFO(run.out << run.err);
  return run.exit_code;
}

}  // namespace

TEST_CASE("history: a session reviewed, approved, then its person forgotten, replayed at each moment") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto created = Post(env, k, "/v1/persons", {{"pii", {{"fullName", "Historia Pérez"}, {"email", "historia@example.mx"}}}});
  REQUIRE_MESSAGE(created.status == 201, created.body);
  const std::string person = Body(created)["id"];
  const std::string before = Moment(env);  // the person exists, no session yet

  const std::string session = testing::SandboxSession(env, k, "history-1", "review", person);
  const std::string in_review = Moment(env);

  const std::string c = testing::ReviewCaseOf(env, k, session);
  REQUIRE(env.Call(k, "POST", "/v1/review/cases/" + c + "/claim").status == 200);
  auto approved = Post(env, k, "/v1/review/cases/" + c + "/resolve",
                       {{"action", "approve"}, {"reasonCodes", {"MANUAL_DOCUMENT_CHECK"}}});
  REQUIRE_MESSAGE(approved.status == 200, approved.body);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  REQUIRE(Body(env.Call(k, "GET", "/v1/verification-sessions/" + session))["status"] == "approved");
  auto certified = env.Call(k, "GET", "/v1/verification-sessions/" + session + "/certificate");
  REQUIRE_MESSAGE(certified.status == 200, certified.body);
  const core::Json certificate_then = Body(certified);
  const std::string after_approval = Moment(env);

  auto forget = Post(env, k, "/v1/persons/" + person + "/forget", {{"mode", "purge"}});
  REQUIRE_MESSAGE(forget.status == 200, forget.body);
  REQUIRE(env.Admin("POST", "/admin/persons/purge").status == 200);
  REQUIRE(env.Call(k, "GET", "/v1/persons/" + person + "/deletion-certificate").status == 200);
  const std::string after_forget = Moment(env);

  const std::string vkey = Body(env.Call(k, "GET", "/v1/audit-logs/verify/checkpoint-key"))["verifierKey"];
  int replays = 0;
  auto at = [&](const std::string& type, const std::string& id, const std::string& as_of) {
    auto r = History(env, k, type, id, as_of);
    REQUIRE_MESSAGE(r.status == 200, r.body);
    ++replays;
    core::Json b = Body(r);
    CHECK(b["object"] == "history_bundle");
    CHECK(b["asOf"].get<std::string>().substr(0, 19) == as_of.substr(0, 19));
    CHECK(VerifyOffline(b, vkey) == 0);
    return b;
  };

  // The session: not yet, in review, approved; its events up to each moment.
  CheckProblem(History(env, k, "verification_session", session, before), 404, "RESOURCE_NOT_FOUND");
  core::Json s1 = at("verification_session", session, in_review);
  CHECK(s1["state"]["status"] == "review");
  CHECK(s1["state"]["personId"] == person);
  CHECK(s1["events"].back()["status"] == "review");
  core::Json s2 = at("verification_session", session, after_approval);
  CHECK(s2["state"]["status"] == "approved");
  CHECK(s2["events"].size() > s1["events"].size());
  std::vector<std::string> statuses;
  for (const auto& e : s2["events"]) {
    if (statuses.empty() || statuses.back() != e["status"]) statuses.push_back(e["status"]);
  }
  CHECK(std::find(statuses.begin(), statuses.end(), "review") < std::find(statuses.begin(), statuses.end(), "approved"));
  // The first events are the same events, byte for byte, in both replays.
  for (size_t i = 0; i < s1["events"].size(); ++i) CHECK(s1["events"][i] == s2["events"][i]);

  // The certificate in force: none while in review; at the approval, the one GET …/certificate
  // gave then (the same content, its hash and signatures), checked by docs/verify_certificate.py.
  CHECK(s1["certificate"].is_null());
  REQUIRE(s2["certificate"].is_object());
  CHECK(s2["certificate"]["sessionId"] == session);
  CHECK(s2["certificate"]["outcome"] == "approved");
  CHECK(s2["certificate"]["contentHash"] == certificate_then["contentHash"]);
  CHECK(s2["certificate"]["signatureEd25519"] == certificate_then["signatureEd25519"]);
  {
    const std::string pk = Body(env.Call(k, "GET", "/v1/certificate-keys"))["keys"][0]["publicKey"];
    testing::TempDir dir;
    std::ofstream(dir.Sub("c.json")) << s2["certificate"].dump();
    auto py = testing::RunProgram("python3", {std::string(SVC_TEST_SOURCE_DIR) + "/../docs/verify_certificate.py",
                                              dir.Sub("c.json"), "--public-key", pk});
    CHECK_MESSAGE(py.exit_code == 0, py.out << py.err);
  }

  // The person: active with their fields while the session ran; forgotten at the end.
  core::Json p1 = at("person", person, after_approval);
  CHECK(p1["state"]["status"] == "active");
  CHECK(p1["state"]["forgetRequested"] == false);
  core::Json p2 = at("person", person, after_forget);
  CHECK(p2["state"]["status"] == "redacted");
  CHECK(p2["state"]["forgetRequested"] == true);
  bool keys_destroyed = false;
  for (const auto& e : p2["events"]) keys_destroyed = keys_destroyed || e["type"] == "persons.keys_destroyed";
  CHECK(keys_destroyed);
  // Nothing personal: the name and the email were sealed, and sealed values are left out.
  for (const auto& b : {p1, p2, s1, s2}) {
    CHECK(b.dump().find("Historia") == std::string::npos);
    CHECK(b.dump().find("historia@example.mx") == std::string::npos);
  }

  // The case, at the approval.
  core::Json c1 = at("review_case", c, after_approval);
  CHECK(c1["state"]["status"] == "resolved");

  // Altered, a bundle no longer verifies.
  core::Json forged = s2;
  forged["state"]["status"] = "declined";
  CHECK(VerifyOffline(forged, vkey) == 1);
  forged = s2;
  forged["events"].erase(forged["events"].size() - 1);
  CHECK(VerifyOffline(forged, vkey) == 1);

  // Each replay is an access-log entry.
  core::Json entries = Body(env.Call(k, "GET", "/v1/audit-logs?channel=history&limit=100"));
  REQUIRE(entries["data"].size() == static_cast<size_t>(replays));
  CHECK(entries["data"][0]["redaction"] == "sealed");
  CHECK(entries["data"][0]["reason"] == "CNBV inquiry 12/2026");
  CHECK(entries["data"][0]["personId"] == person);
  CHECK(Body(env.Call(k, "GET", "/v1/audit-logs/verify"))["valid"] == true);

  // The tenant's compliance report as it stood at each moment: the session in review, then approved.
  auto report = [&](const std::string& as_of) {
    auto r = env.Call(k, "GET", "/v1/compliance/reports?type=cnbv&asOf=" + as_of);
    REQUIRE_MESSAGE(r.status == 200, r.body);
    return Body(r);
  };
  core::Json r0 = report(before), r1 = report(in_review), r2 = report(after_approval);
  CHECK(r0["verificationVolume"]["total"] == 0);
  CHECK(r1["verificationVolume"]["total"] == 1);
  CHECK(r1["verificationVolume"]["byStatus"]["review"] == 1);
  CHECK(r1["verificationVolume"]["byStatus"]["approved"] == 0);
  CHECK(r2["verificationVolume"]["byStatus"]["review"] == 0);
  CHECK(r2["verificationVolume"]["byStatus"]["approved"] == 1);
  CHECK(r2["auditChain"]["valid"] == true);
  CHECK(r2["asOf"]["tenantEventsReplayed"].get<int>() > r1["asOf"]["tenantEventsReplayed"].get<int>());
  CHECK(Body(env.Call(k, "GET", "/v1/compliance/reports?type=cnbv"))["asOf"].is_null());
  CheckProblem(env.Call(k, "GET", "/v1/compliance/reports?type=cnbv&asOf=soon"), 422, "VALIDATION_ERROR");

  // Its error paths.
  CheckProblem(History(env, k, "planet", session, ""), 422, "VALIDATION_ERROR");
  CheckProblem(History(env, k, "verification_session", "vrf_nope", ""), 422, "VALIDATION_ERROR");
  CheckProblem(History(env, k, "verification_session", person, ""), 422, "VALIDATION_ERROR");
  CheckProblem(History(env, k, "verification_session", session, "yesterday"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", "/v1/audit-logs/history?subjectType=person"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", "/v1/audit-logs/history?subjectType=person&subjectId=" + person + "&color=red"), 400,
               "BAD_REQUEST");
  CheckProblem(History(env, k, "person", "per_00000000000000000000000000000000", ""), 404, "RESOURCE_NOT_FOUND");
  const std::string reader = env.NewKey(env.tenant, "test", {"verification:read"});
  CheckProblem(History(env, reader, "person", person, ""), 403, "INSUFFICIENT_SCOPE");

  // The same replay of the stopped node's directory (`svc audit history`): the same bundle, byte
  // for byte, signature included.
  const std::string data = env.server->data_dir();
  env.server->Stop();
  auto cli = testing::RunProgram(SVC_BINARY, {"audit", "history", "--data-dir", data, "--tenant", env.tenant, "--env",
                                              "test", "--subject-type", "verification_session", "--subject-id", session,
                                              "--as-of", after_approval});
  REQUIRE_MESSAGE(cli.exit_code == 0, cli.err);
  CHECK(core::ParseJsonOrDiscarded(cli.out) == s2);
  auto missing = testing::RunProgram(SVC_BINARY, {"audit", "history", "--data-dir", data, "--tenant", env.tenant, "--env",
                                                  "test", "--subject-type", "verification_session", "--subject-id",
                                                  session, "--as-of", before});
  CHECK(missing.exit_code != 0);
}

}  // namespace integration_audit_history_test
