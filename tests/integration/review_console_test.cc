// The review console in a real browser (Debian's chromium, driven by playwright-core from
// tests/browser/console.mjs) against a real svc: a reviewer signs in, sees the queue update live
// over the SSE reviewer feed, opens a case created by a real verification, claims it, writes a
// note and approves it; the session moves and the webhook-visible state follows. The screenshots
// go to $SVC_SCREENSHOT_DIR when set (docs/review.md shows them), else to the test's directory.
#include <doctest/doctest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"
#include "tests/support/session_flow.h"

using namespace svc;
using svc::testing::Body;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

std::string Sample(const std::string& name) {
  std::ifstream in(std::string(SVC_TEST_SOURCE_DIR) + "/../docs/samples/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE_MESSAGE(!ss.str().empty(), name);
  return ss.str();
}

// A session of `person` that the sandbox sends to review, with the demo captures of
// docs/samples/ (real photographs, so that the console shows real images).
std::string ReviewSessionWithSamples(Env& env, const std::string& key, const std::string& idem, const std::string& person) {
  return testing::SandboxSessionWith(env, key, idem, "review", person,
                                     {{"document_front", "image/jpeg", Sample("front.jpg")},
                                      {"document_back", "image/jpeg", Sample("back.jpg")},
                                      {"selfie", "image/jpeg", Sample("selfie.jpg")},
                                      {"liveness_video", "video/mp4", Sample("video.mp4")}});
}

}  // namespace

TEST_CASE("review console: a reviewer signs in, sees the queue live, and resolves a case in chromium") {
  Env env(false, {"--rate-reveals", "0", "--rate-reads", "0"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto person = env.Call(k, "POST", "/v1/persons",
                         R"({"pii":{"curp":"PEPJ800101HDFRRN03","fullName":"JUAN PEREZ PEREZ","birthDate":"1980-01-01"}})");
  REQUIRE_MESSAGE(person.status == 201, person.body);
  const std::string s1 = ReviewSessionWithSamples(env, k, "console-1", Body(person)["id"]);
  auto user = env.Admin("POST", "/admin/tenants/" + env.tenant + "/users", {{"role", "reviewer"}, {"label", "Ana (compliance)"}});
  REQUIRE_MESSAGE(user.status == 201, user.body);
  const std::string secret = Body(user)["secret"];

  std::string shots = env.dir.path() + "/screenshots";
  if (const char* d = std::getenv("SVC_SCREENSHOT_DIR"); d != nullptr && *d != '\0') shots = d;
  std::filesystem::create_directories(shots);
  const std::string base = "http://127.0.0.1:" + std::to_string(env.server->target().port);
  testing::ChildProcess browser({"node", std::string(SVC_TEST_SOURCE_DIR) + "/browser/console.mjs", base, secret, shots});
  const std::string first = browser.ReadLine();
  REQUIRE_MESSAGE(first == "queue", first);
  // A second case, opened while the reviewer watches the queue.
  const std::string s2 = ReviewSessionWithSamples(env, k, "console-2", "");
  browser.WriteLine("go");
  core::Json out = core::ParseJsonOrDiscarded(browser.ReadLine());
  INFO(out.dump(2));
  REQUIRE(out["ok"] == true);
  CHECK(out["thirdParty"].empty());
  CHECK(out["consoleErrors"].empty());
  CHECK(out["pageErrors"].empty());
  CHECK(out["csp"].get<std::string>().find("default-src 'none'") != std::string::npos);
  CHECK(out["wrongSecret"].get<std::string>().find("not valid") != std::string::npos);
  CHECK(out["who"].get<std::string>().find("Ana (compliance)") != std::string::npos);
  CHECK(out["firstQueue"].size() == 1);
  CHECK(out["liveQueue"].size() == 2);
  CHECK(out["curp"] == "PEPJ800101HDFRRN03");
  CHECK(out["mineQueue"] == core::Json::array({out["firstQueue"][0]}));
  CHECK(out["unassignedQueue"].size() == 1);
  CHECK(out["unassignedQueue"][0] != out["firstQueue"][0]);
  CHECK(out["images"].size() == 3);  // front, back, selfie (the video is a <video>)
  for (const auto& w : out["images"]) CHECK(w.get<int>() > 0);
  CHECK(out["resolved"].get<std::string>().find("session approved") != std::string::npos);
  CHECK(out["finalQueue"].size() == 1);

  // What the browser did is what the API shows: the session approved by review, the user named.
  core::Json session = Body(env.Call(k, "GET", "/v1/verification-sessions/" + s1));
  CHECK(session["status"] == "approved");
  core::Json evidence = Body(env.Call(k, "GET", "/v1/verification-sessions/" + s1 + "/evidence"));
  CHECK(evidence["decision"]["decidedBy"] == "review");
  core::Json audit = Body(env.Call(k, "GET", "/v1/audit-logs?actorType=user"));
  CHECK(audit["data"].size() >= 3);  // the case opened (several times) and its captures viewed
  CHECK(Body(env.Call(k, "GET", "/v1/verification-sessions/" + s2))["status"] == "review");
}
