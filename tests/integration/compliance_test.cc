// The compliance area through a real svc: the limits in force follow the flags that enforce
// them, the datacenters and subprocessors come from the operator's compliance file, a file the
// server cannot report truthfully stops it from starting, and only compliance:read reads them.
#include <doctest/doctest.h>

#include <fstream>

#include "tests/support/api_env.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
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
