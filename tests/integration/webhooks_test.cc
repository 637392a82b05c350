// Webhook endpoint management through a real svc: registration (secret shown once), reads without
// the secret, PATCH and deactivation, rotation under an Idempotency-Key, signature verification,
// the catalogue and policy, SSRF refusals, and environment isolation.
#include <doctest/doctest.h>

#include "pipeline/webhooks/signing.h"
#include "tests/support/api_env.h"

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;

namespace {
const std::string kBase = "/v1/developer/webhooks";
}

TEST_CASE("webhooks: endpoints are managed, secrets shown once, signatures verifiable") {
  Env env(false);
  auto create = [&](const std::string& body, const std::string& key = "") {
    return env.Call(key.empty() ? env.test_key : key, "POST", kBase, body);
  };
  // A public address literal (no DNS needed here); nothing is delivered in this test.
  auto made = create(R"({"url":"https://93.184.216.34/hooks","description":"main","events":["verification.*","service.test"]})");
  REQUIRE_MESSAGE(made.status == 201, made.body);
  core::Json ep = Body(made);
  std::string id = ep["id"];
  std::string secret = ep["secret"];
  CHECK(secret.rfind("whsec_", 0) == 0);
  CHECK(pipeline::webhooks::SecretKey(secret)->size() == 32);
  CHECK(ep["environment"] == "test");
  CHECK(ep["isActive"] == true);
  CHECK(ep["events"] == core::Json::array({"verification.*", "service.test"}));

  auto got = env.Call(env.test_key, "GET", kBase + "/" + id);
  REQUIRE(got.status == 200);
  CHECK_FALSE(Body(got).contains("secret"));
  CHECK(got.body.find("whsec_") == std::string::npos);
  auto listed = Body(env.Call(env.test_key, "GET", kBase));
  REQUIRE(listed["data"].size() == 1);
  CHECK(listed["data"][0]["id"] == id);
  CHECK(listed.dump().find("whsec_") == std::string::npos);
  // The live key sees live endpoints only.
  CheckProblem(env.Call(env.live_key, "GET", kBase + "/" + id), 404, "WEBHOOK_NOT_FOUND");
  CHECK(Body(env.Call(env.live_key, "GET", kBase))["data"].empty());
  CheckProblem(env.Call(env.test_key, "GET", kBase + "/whe_00000000000000000000000000000000"), 404,
               "WEBHOOK_NOT_FOUND");

  // PATCH: edits, deactivation (no delete), validation.
  auto patched = env.Call(env.test_key, "PATCH", kBase + "/" + id, R"({"events":["verification.approved"],"description":null})");
  REQUIRE_MESSAGE(patched.status == 200, patched.body);
  CHECK(Body(patched)["events"] == core::Json::array({"verification.approved"}));
  CHECK(Body(patched)["description"].is_null());
  auto off = env.Call(env.test_key, "PATCH", kBase + "/" + id, R"({"isActive":false})");
  REQUIRE(off.status == 200);
  CHECK(Body(off)["isActive"] == false);
  CHECK(Body(env.Call(env.test_key, "GET", kBase + "/" + id))["isActive"] == false);
  CheckProblem(env.Call(env.test_key, "PATCH", kBase + "/" + id, R"({"events":["nope.nothing"]})"), 422,
               "UNKNOWN_EVENT_TYPE");
  CheckProblem(env.Call(env.test_key, "PATCH", kBase + "/" + id, R"({"secret":"whsec_x"})"), 422,
               "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "PATCH", kBase + "/" + id, R"({"url":"https://10.1.2.3/x"})"), 422,
               "URL_NOT_PUBLIC");

  // Rotation: Idempotency-Key required; a new secret once; a replay does not rotate again.
  CheckProblem(env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret"), 400,
               "IDEMPOTENCY_KEY_REQUIRED");
  auto rotated = env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret", "",
                          {{"Idempotency-Key", "rot-1"}});
  REQUIRE_MESSAGE(rotated.status == 200, rotated.body);
  std::string fresh = Body(rotated)["secret"];
  CHECK(fresh.rfind("whsec_", 0) == 0);
  CHECK(fresh != secret);
  auto again = env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret", "",
                        {{"Idempotency-Key", "rot-1"}});
  REQUIRE(again.status == 200);
  CHECK(Body(again)["secret"].is_null());

  // verify-signature checks against the current secret, constant-time.
  int64_t ts = 1700000000;
  std::string payload = R"({"apiVersion":"2026-01-01","id":"evt_1","type":"service.test","data":{}})";
  std::string sig = *pipeline::webhooks::Sign(fresh, "evt_1", ts, payload);
  core::Json req = {{"messageId", "evt_1"}, {"payload", payload}, {"signature", sig}, {"timestamp", ts}};
  auto ok = env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", req.dump());
  REQUIRE_MESSAGE(ok.status == 200, ok.body);
  CHECK(Body(ok)["valid"] == true);
  CHECK(Body(ok)["expectedSignature"] == sig);
  req["signature"] = *pipeline::webhooks::Sign(secret, "evt_1", ts, payload);  // the old secret
  CHECK(Body(env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", req.dump()))["valid"] == false);
  req.erase("timestamp");
  CheckProblem(env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", req.dump()), 422,
               "VALIDATION_ERROR");

  // Catalogue and policy.
  core::Json cat = Body(env.Call(env.test_key, "GET", kBase + "/event-types"));
  CHECK(cat["eventTypes"].size() == 7);
  CHECK(cat["patterns"] == core::Json::array({"*", "verification.*", "case.*", "service.*"}));
  core::Json policy = Body(env.Call(env.test_key, "GET", kBase + "/delivery-policy"));
  CHECK(policy["backoffBaseSeconds"] == 30);
  CHECK(policy["maxBackoffSeconds"] == 21600);
  CHECK(policy["recommendedToleranceSeconds"] == 300);
  CHECK(policy["signatureScheme"].get<std::string>().find("Standard Webhooks") != std::string::npos);
}

TEST_CASE("webhooks: registration refuses what is not a public https URL") {
  Env env(false);
  auto create = [&](const std::string& url) {
    return env.Call(env.test_key, "POST", kBase, core::Json{{"url", url}}.dump());
  };
  for (const char* url : {"http://93.184.216.34/x",      // not https
                          "https://127.0.0.1/x",          // loopback
                          "https://10.0.0.7/x",           // RFC 1918
                          "https://172.16.5.4/x", "https://192.168.1.1/x",
                          "https://169.254.169.254/latest/meta-data",  // cloud metadata
                          "https://100.64.0.1/x",         // carrier-grade NAT
                          "https://0.0.0.0/x",
                          "https://[::1]/x",              // IPv6 loopback
                          "https://[fd00::1]/x", "https://[fe80::1]/x",
                          "https://[::ffff:127.0.0.1]/x",  // IPv4-mapped loopback
                          "https://localhost/x",          // a name for loopback
                          "https://localhost:8443/x"}) {
    CAPTURE(url);
    CheckProblem(create(url), 422, "URL_NOT_PUBLIC");
  }
  for (const char* url : {"ftp://93.184.216.34/x", "https://user:pw@93.184.216.34/x", "not a url",
                          "https://93.184.216.34/x#frag", "https://93.184.216.34:99999/"}) {
    CAPTURE(url);
    CheckProblem(create(url), 422, "VALIDATION_ERROR");
  }
  CheckProblem(env.Call(env.test_key, "POST", kBase, R"({"url":"https://93.184.216.34/x","events":["verification.nope"]})"),
               422, "UNKNOWN_EVENT_TYPE");
  CheckProblem(env.Call(env.test_key, "POST", kBase, R"({"description":"no url"})"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "POST", kBase, R"({"url":"https://93.184.216.34/x","environment":"live"})"),
               422, "VALIDATION_ERROR");

  // The development flag allows loopback receivers (never in production).
  Env dev(false, {"--webhooks-allow-private-urls"});
  auto local = dev.Call(dev.test_key, "POST", kBase, R"({"url":"http://127.0.0.1:9/hook"})");
  CHECK_MESSAGE(local.status == 201, local.body);
}
