// The compliance area through a real svc: the limits in force follow the flags that enforce
// them, the datacenters and subprocessors come from the operator's compliance file, a file the
// server cannot report truthfully stops it from starting, and only compliance:read reads them.
#include <doctest/doctest.h>

#include <fstream>

#include "tests/support/api_env.h"
#include "tests/support/receiver_process.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::HeaderOf;
using svc::testing::Sharing;

namespace {

const char* kComplianceFile = R"({
  "datacenters": [
    {"id": "mx-qro-1", "provider": "KIO Networks", "region": "Querétaro", "country": "MX", "role": "primary",
     "certifications": ["ISO 27001"]},
    {"id": "mx-mty-1", "provider": "KIO Networks", "region": "Monterrey", "country": "MX", "role": "backup"}
  ],
  "subprocessors": [
    {"name": "Example SMS", "purpose": "one-time codes", "country": "MX", "dataCategories": ["phone"]}
  ]
})";

core::Json Get(Env& env, const std::string& key, const std::string& path) {
  auto r = env.Call(key, "GET", path);
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r);
}

}  // namespace

TEST_CASE("compliance: the limits in force, the datacenters and subprocessors of the file") {
  testing::TempDir dir;
  const std::string file = dir.Sub("compliance.json");
  { std::ofstream(file) << kComplianceFile; }
  Env env(false, {"--rate-reads", "700", "--rate-writes", "300", "--rate-reveals", "3", "--reveal-budget-per-day", "123",
                  "--compliance-file", file},
          Sharing::kIsolated);
  std::string officer = env.NewKey(env.tenant, "test", {"compliance:read"});

  core::Json limits = Get(env, officer, "/v1/compliance/limits");
  CHECK(limits["object"] == "compliance.limits");
  REQUIRE(limits["families"].size() == 3);
  CHECK(limits["families"][0]["family"] == "reads");
  CHECK(limits["families"][0]["ratePerSecond"] == 700);
  CHECK(limits["families"][0]["burst"] == 1400);
  CHECK(limits["families"][1]["family"] == "writes");
  CHECK(limits["families"][1]["ratePerSecond"] == 300);
  CHECK(limits["families"][2]["family"] == "pii_reveals");
  CHECK(limits["families"][2]["ratePerSecond"] == 3);
  CHECK(limits["families"][2]["enforced"] == true);
  CHECK(limits["revealBudget"]["personsPerDay"] == 123);
  CHECK(limits["decryptSlo"]["p99Milliseconds"] == 20);
  CHECK(limits["maskedDegradationPolicy"].get<std::string>().find("never decrypt") != std::string::npos);

  core::Json dcs = Get(env, officer, "/v1/compliance/datacenters");
  CHECK(dcs["object"] == "list");
  REQUIRE(dcs["data"].size() == 2);
  CHECK(dcs["data"][0]["id"] == "mx-qro-1");
  CHECK(dcs["data"][0]["region"] == "Querétaro");
  CHECK(dcs["data"][0]["certifications"] == core::Json::array({"ISO 27001"}));
  core::Json subs = Get(env, officer, "/v1/compliance/subprocessors");
  REQUIRE(subs["data"].size() == 1);
  CHECK(subs["data"][0]["name"] == "Example SMS");

  // Scopes: nothing else reads them.
  std::string reader = env.NewKey(env.tenant, "test", {"persons:read", "verification:read"});
  for (const char* path : {"/v1/compliance/limits", "/v1/compliance/datacenters", "/v1/compliance/subprocessors"}) {
    CheckProblem(env.Call(reader, "GET", path), 403, "INSUFFICIENT_SCOPE");
    CheckProblem(env.Call("", "GET", path), 401, "AUTHENTICATION_REQUIRED");
  }
}

TEST_CASE("compliance: without a file the lists are empty; the defaults are reported") {
  Env env(false);
  CHECK(Get(env, env.test_key, "/v1/compliance/datacenters")["data"].empty());
  CHECK(Get(env, env.test_key, "/v1/compliance/subprocessors")["data"].empty());
  core::Json limits = Get(env, env.test_key, "/v1/compliance/limits");
  CHECK(limits["revealBudget"]["personsPerDay"] == 10000);
  CHECK(limits["pageLimitMax"] == 100);
}

TEST_CASE("compliance: a compliance file the server cannot report truthfully stops it from starting") {
  testing::TempDir dir;
  const std::string file = dir.Sub("compliance.json");
  for (const char* bad : {R"([])", R"({"datacenters": {}})", R"({"datacenters": [{"id": "x"}]})",
                          R"({"subprocessors": [{"name": "n", "purpose": "p", "country": "Mexico"}]})",
                          R"({"datacentres": []})", "not json"}) {
    CAPTURE(bad);
    { std::ofstream(file, std::ios::trunc) << bad; }
    auto refused = testing::RunSvc({"serve", "--data-dir", dir.Sub("data"), "--listen", "127.0.0.1:0",
                                    "--dev-keys-in-data-dir", "--face-engine", "model-free", "--compliance-file", file});
    CHECK(refused.exit_code != 0);
    CHECK(refused.err.find("--compliance-file") != std::string::npos);
  }
  auto missing = testing::RunSvc({"serve", "--data-dir", dir.Sub("data"), "--listen", "127.0.0.1:0",
                                  "--dev-keys-in-data-dir", "--face-engine", "model-free", "--compliance-file", dir.Sub("nope.json")});
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find("--compliance-file") != std::string::npos);
}

TEST_CASE("compliance: breach notifications are events, replayed on their key, sent as webhooks") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls"});
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto made = env.Call(env.test_key, "POST", "/v1/developer/webhooks",
                       core::Json{{"url", hooks + "/breach"}, {"events", {"compliance.*"}}}.dump(),
                       {{"Idempotency-Key", "hook-1"}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  receiver.AddSecret(Body(made)["secret"]);
  std::string writer = env.NewKey(env.tenant, "test", {"compliance:write"});
  const std::string path = "/v1/compliance/breach-notifications";
  const std::string body = core::Json{{"severity", "high"},
                                      {"scope", "a backup of the sessions table was readable for two hours"},
                                      {"detectedAt", "2026-11-20T10:00:00Z"},
                                      {"subprocessorsAffected", {"Example SMS"}}}.dump();

  auto first = env.Call(writer, "POST", path, body, {{"Idempotency-Key", "breach-1"}});
  REQUIRE_MESSAGE(first.status == 201, first.body);
  core::Json b = Body(first);
  CHECK(b["object"] == "compliance.breach_notification");
  CHECK(b["breachId"].get<std::string>().rfind("brc_", 0) == 0);
  CHECK(b["severity"] == "high");
  CHECK(b["detectedAt"] == "2026-11-20T10:00:00.000Z");
  // The same key answers the same notification, and sends nothing twice.
  auto again = env.Call(writer, "POST", path, body, {{"Idempotency-Key", "breach-1"}});
  REQUIRE(again.status == 201);
  CHECK(Body(again) == b);
  CHECK(HeaderOf(again, "Idempotent-Replayed") == "true");
  CheckProblem(env.Call(writer, "POST", path, R"({"severity":"low","scope":"other"})", {{"Idempotency-Key", "breach-1"}}),
               409, "IDEMPOTENCY_KEY_REUSED");
  CheckProblem(env.Call(writer, "POST", path, body), 400, "IDEMPOTENCY_KEY_REQUIRED");
  // Without detectedAt: now.
  auto now = env.Call(writer, "POST", path, R"({"severity":"low","scope":"a laptop was lost"})", {{"Idempotency-Key", "breach-2"}});
  REQUIRE_MESSAGE(now.status == 201, now.body);
  CHECK(Body(now)["detectedAt"].is_string());

  // The webhook, verified by the reference Standard Webhooks package.
  REQUIRE(receiver.WaitFor("/breach", 3));  // service.test on registration, then the two breaches
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  core::Json log = core::ParseJsonOrDiscarded(receiver.LogJson());
  int breaches = 0;
  for (const auto& m : log) {
    if (m["type"] != "compliance.breach_notified") continue;
    ++breaches;
    CHECK(m["verifiedBy"] == core::Json::array({0}));
  }
  CHECK(breaches == 2);
  auto deliveries = Body(env.Call(env.test_key, "GET", "/v1/developer/webhooks/" + Body(made)["id"].get<std::string>() + "/deliveries"));
  int listed = 0;
  for (const auto& d : deliveries["data"]) listed += d["eventType"] == "compliance.breach_notified";
  CHECK(listed == 2);

  // Validation, scope.
  auto post = [&](const std::string& text, const std::string& idem) {
    return env.Call(writer, "POST", path, text, {{"Idempotency-Key", idem}});
  };
  CheckProblem(post(R"({"scope":"x"})", "v1"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"apocalyptic","scope":"x"})", "v2"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"low","scope":""})", "v3"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"low","scope":"x","detectedAt":"yesterday"})", "v4"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"low","scope":"x","subprocessorsAffected":[1]})", "v5"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"low","scope":"x","colour":"red"})", "v6"), 422, "VALIDATION_ERROR");
  CheckProblem(post("not json", "v7"), 400, "BAD_REQUEST");
  std::string reader = env.NewKey(env.tenant, "test", {"compliance:read"});
  CheckProblem(env.Call(reader, "POST", path, body, {{"Idempotency-Key", "r-1"}}), 403, "INSUFFICIENT_SCOPE");
}

