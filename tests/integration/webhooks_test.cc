// Webhook endpoint management through a real svc: registration (secret shown once), reads without
// the secret, PATCH and deactivation, rotation under an Idempotency-Key, signature verification,
// the catalogue and policy, SSRF refusals, and environment isolation.
#include <doctest/doctest.h>

#include <filesystem>

#include "core/clock.h"
#include "pipeline/webhooks/signing.h"
#include "tests/support/api_env.h"
#include "tests/support/receiver_process.h"
#include "tests/support/session_flow.h"

namespace integration_webhooks_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;
using svc::testing::HeaderOf;

namespace {
const std::string kBase = "/v1/developer/webhooks";
}

TEST_CASE("webhooks: endpoints are managed, secrets shown once, signatures verifiable") {
  // Registering sends service.test: the receiver is a real process on loopback (development
  // switch on), so nothing leaves the machine.
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls"});
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  const std::string registration = core::Json{{"url", hooks + "/ok"}, {"description", "main"},
                                              {"events", {"verification.*", "service.test"}}}.dump();
  auto made = env.Call(env.test_key, "POST", kBase, registration, {{"Idempotency-Key", "reg-1"}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  // A retry with the same Idempotency-Key: the same endpoint and the same secret, marked as a
  // replay; no second endpoint (and no second service.test below).
  auto made_again = env.Call(env.test_key, "POST", kBase, registration, {{"Idempotency-Key", "reg-1"}});
  REQUIRE_MESSAGE(made_again.status == 201, made_again.body);
  CHECK(Body(made_again) == Body(made));
  CHECK(HeaderOf(made_again, "Idempotent-Replayed") == "true");
  core::Json ep = Body(made);
  std::string id = ep["id"];
  std::string secret = ep["secret"];
  CHECK(secret.rfind("whsec_", 0) == 0);
  CHECK(pipeline::webhooks::SecretKey(secret)->size() == 32);
  CHECK(ep["environment"] == "test");
  CHECK(ep["isActive"] == true);
  CHECK(ep["events"] == core::Json::array({"verification.*", "service.test"}));
  receiver.AddSecret(secret);  // secret 0
  // Registration sent service.test; the reference package verifies our signature.
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  core::Json got_log = core::ParseJsonOrDiscarded(receiver.LogJson());
  REQUIRE(got_log.size() == 1);
  CHECK(got_log[0]["type"] == "service.test");
  CHECK(got_log[0]["verifiedBy"] == core::Json::array({0}));
  CHECK(got_log[0]["signatures"] == 1);

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
  CheckProblem(env.Call(env.test_key, "PATCH", kBase + "/" + id, R"({"url":"ftp://10.1.2.3/x"})"), 422,
               "VALIDATION_ERROR");

  // Rotation: a new secret once; a replay with the same Idempotency-Key does not rotate again
  // and answers the same body, the same secret included (a caller whose first call timed out
  // has not lost it). Without a key (accepted, not required) each call rotates: see below.
  auto rotated = env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret", "",
                          {{"Idempotency-Key", "rot-1"}});
  REQUIRE_MESSAGE(rotated.status == 200, rotated.body);
  std::string fresh = Body(rotated)["secret"];
  CHECK(fresh.rfind("whsec_", 0) == 0);
  CHECK(fresh != secret);
  auto again = env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret", "",
                        {{"Idempotency-Key", "rot-1"}});
  REQUIRE(again.status == 200);
  CHECK(Body(again)["secret"] == fresh);
  CHECK(Body(again) == Body(rotated));
  CHECK(HeaderOf(again, "Idempotent-Replayed") == "true");
  CHECK(HeaderOf(rotated, "Idempotent-Replayed").empty());
  CheckProblem(env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret", "{\"x\":1}",
                        {{"Idempotency-Key", "rot-1"}}),
               409, "IDEMPOTENCY_KEY_REUSED");

  // The test operation: refused while the endpoint is inactive; then, after the rotation, the
  // message carries both signatures and the reference package accepts it with either secret.
  CheckProblem(env.Call(env.test_key, "POST", kBase + "/" + id + "/test", "{}"), 409, "WEBHOOK_ENDPOINT_INACTIVE");
  REQUIRE(env.Call(env.test_key, "PATCH", kBase + "/" + id, R"({"isActive":true})").status == 200);
  receiver.AddSecret(fresh);                                  // secret 1
  receiver.AddSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");  // secret 2: someone else's
  auto tested = env.Call(env.test_key, "POST", kBase + "/" + id + "/test", R"({"eventType":"verification.approved"})");
  REQUIRE_MESSAGE(tested.status == 200, tested.body);
  CHECK(Body(tested)["delivered"] == true);
  CHECK(Body(tested)["statusCode"] == 200);
  CHECK(Body(tested)["error"].is_null());
  CHECK(Body(tested)["sentPayload"]["type"] == "verification.approved");
  CHECK(Body(tested)["sentPayload"]["apiVersion"] == "2026-01-01");
  got_log = core::ParseJsonOrDiscarded(receiver.LogJson());
  REQUIRE(got_log.size() == 2);
  CHECK(got_log[1]["signatures"] == 2);
  CHECK(got_log[1]["verifiedBy"] == core::Json::array({0, 1}));  // old and new secret; not 2
  CheckProblem(env.Call(env.test_key, "POST", kBase + "/" + id + "/test", R"({"eventType":"verification.*"})"), 422,
               "UNKNOWN_EVENT_TYPE");

  // verify-signature checks against the current secret, constant-time.
  int64_t ts = 1700000000;
  std::string payload = R"({"apiVersion":"2026-01-01","id":"evt_1","type":"service.test","data":{}})";
  std::string sig = *pipeline::webhooks::Sign(fresh, "evt_1", ts, payload);
  core::Json req = {{"messageId", "evt_1"}, {"payload", payload}, {"signature", sig}, {"timestamp", ts}};
  auto ok = env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", req.dump());
  REQUIRE_MESSAGE(ok.status == 200, ok.body);
  CHECK(Body(ok)["valid"] == true);
  // A payload this endpoint was never sent: no expected signature, or any webhook:read key could
  // have a forged verification.approved signed (issue 68, item 9).
  CHECK(Body(ok)["expectedSignature"] == "");
  {
    // A message it was sent (its service.test, the same id and bytes): the expected signature
    // with the current secret, for the timestamp asked.
    core::Json sent = {{"messageId", got_log[0]["id"]}, {"payload", got_log[0]["body"]}, {"signature", "v1,AAAA"},
                       {"timestamp", ts}};
    auto shown = env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", sent.dump());
    REQUIRE_MESSAGE(shown.status == 200, shown.body);
    CHECK(Body(shown)["valid"] == false);
    CHECK(Body(shown)["expectedSignature"] ==
          *pipeline::webhooks::Sign(fresh, got_log[0]["id"].get<std::string>(), ts, got_log[0]["body"].get<std::string>()));
    sent["payload"] = got_log[0]["body"].get<std::string>() + " ";  // one byte more: not what was sent
    CHECK(Body(env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", sent.dump()))["expectedSignature"] == "");
  }
  req["signature"] = *pipeline::webhooks::Sign(secret, "evt_1", ts, payload);  // the old secret
  CHECK(Body(env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", req.dump()))["valid"] == false);
  req.erase("timestamp");
  CheckProblem(env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", req.dump()), 422,
               "VALIDATION_ERROR");

  // Without an Idempotency-Key every call rotates: two calls, two new secrets; the one just
  // replaced still signs (it is the previous secret now), the one before it does not.
  auto r1 = env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret");
  REQUIRE_MESSAGE(r1.status == 200, r1.body);
  auto r2 = env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret");
  REQUIRE_MESSAGE(r2.status == 200, r2.body);
  std::string s1 = Body(r1)["secret"], s2 = Body(r2)["secret"];
  CHECK(s1 != fresh);
  CHECK(s2 != s1);
  req["timestamp"] = ts;
  req["signature"] = *pipeline::webhooks::Sign(s2, "evt_1", ts, payload);
  CHECK(Body(env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", req.dump()))["valid"] == true);

  // Catalogue and policy.
  core::Json cat = Body(env.Call(env.test_key, "GET", kBase + "/event-types"));
  CHECK(cat["eventTypes"].size() == 23);  // 12, and the 11 arco.* types (issue 35)
  CHECK(cat["patterns"] == core::Json::array({"*", "verification.*", "case.*", "service.*", "compliance.*", "audit.*",
                                              "company.*", "aml.*", "arco.*"}));
  core::Json policy = Body(env.Call(env.test_key, "GET", kBase + "/delivery-policy"));
  CHECK(policy["backoffBaseSeconds"] == 30);
  CHECK(policy["maxBackoffSeconds"] == 21600);
  CHECK(policy["recommendedToleranceSeconds"] == 300);
  CHECK(policy["signatureScheme"].get<std::string>().find("Standard Webhooks") != std::string::npos);
}

TEST_CASE("webhooks: a v1a endpoint signs with Ed25519; the integrator holds only our public key") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls"});
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  const core::Json registration = {{"url", hooks + "/ok"}, {"signatureScheme", "v1a"}};
  auto made = env.Call(env.test_key, "POST", kBase, registration.dump(), {{"Idempotency-Key", "v1a-1"}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  core::Json ep = Body(made);
  const std::string id = ep["id"];
  const std::string public_key = ep["secret"];  // what to verify with: our public key, no secret
  CHECK(public_key.rfind("whpk_", 0) == 0);
  CHECK(ep["signatureScheme"] == "v1a");
  REQUIRE(ep["publicKeys"].size() == 1);
  CHECK(ep["publicKeys"][0]["publicKey"] == public_key);
  CHECK(ep["publicKeys"][0]["validUntil"].is_null());
  CHECK(made.body.find("whsk_") == std::string::npos);
  // A replay answers the same public key.
  auto replayed = env.Call(env.test_key, "POST", kBase, registration.dump(), {{"Idempotency-Key", "v1a-1"}});
  CHECK(Body(replayed) == ep);
  // The registration's service.test, checked with Node's Ed25519 (the receiver), not ours.
  receiver.AddSecret(public_key);                                // key 0
  receiver.AddSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");  // key 1: a v1 secret verifies nothing
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  core::Json log = core::ParseJsonOrDiscarded(receiver.LogJson());
  REQUIRE(log.size() == 1);
  CHECK(log[0]["type"] == "service.test");
  CHECK(log[0]["verifiedBy"] == core::Json::array({0}));
  CHECK(log[0]["signatures"] == 1);
  // Reads show the public keys, never the signing key.
  auto got = env.Call(env.test_key, "GET", kBase + "/" + id);
  REQUIRE(got.status == 200);
  CHECK(Body(got)["publicKeys"] == ep["publicKeys"]);
  CHECK_FALSE(Body(got).contains("secret"));
  CHECK(got.body.find("whsk_") == std::string::npos);
  CHECK(env.Call(env.test_key, "GET", kBase).body.find("whsk_") == std::string::npos);

  // Rotation: a new key pair of the same scheme; both sign for the overlap, either verifies.
  auto rotated = env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret", "", {{"Idempotency-Key", "rot-a"}});
  REQUIRE_MESSAGE(rotated.status == 200, rotated.body);
  const std::string next = Body(rotated)["secret"];
  CHECK(next.rfind("whpk_", 0) == 0);
  CHECK(next != public_key);
  core::Json keys = Body(rotated)["publicKeys"];
  REQUIRE(keys.size() == 2);
  CHECK(keys[0]["publicKey"] == next);
  CHECK(keys[0]["validUntil"].is_null());
  CHECK(keys[1]["publicKey"] == public_key);
  CHECK(keys[1]["validUntil"].is_string());
  CHECK(Body(env.Call(env.test_key, "POST", kBase + "/" + id + "/rotate-secret", "", {{"Idempotency-Key", "rot-a"}}))
            ["secret"] == next);
  receiver.AddSecret(next);  // key 2
  auto tested = env.Call(env.test_key, "POST", kBase + "/" + id + "/test", R"({"eventType":"verification.approved"})");
  REQUIRE_MESSAGE(tested.status == 200, tested.body);
  CHECK(Body(tested)["delivered"] == true);
  log = core::ParseJsonOrDiscarded(receiver.LogJson());
  REQUIRE(log.size() == 2);
  CHECK(log[1]["signatures"] == 2);
  CHECK(log[1]["verifiedBy"] == core::Json::array({0, 2}));

  // verify-signature: the expected v1a signature (deterministic) of a message the endpoint was sent
  // (its service.test), checked with the public key here too.
  const int64_t ts = core::SystemClock().Now().micros / 1000000;
  const std::string payload = log[0]["body"];
  const std::string message = log[0]["id"];
  core::Json ask = {{"messageId", message}, {"payload", payload}, {"signature", "v1a,AAAA"}, {"timestamp", ts}};
  auto checked = env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", ask.dump());
  REQUIRE_MESSAGE(checked.status == 200, checked.body);
  CHECK(Body(checked)["valid"] == false);
  const std::string expected = Body(checked)["expectedSignature"];
  CHECK(expected.rfind("v1a,", 0) == 0);
  CHECK(pipeline::webhooks::VerifyWithPublicKey(next, message, std::to_string(ts), payload, expected, ts).ok());
  ask["signature"] = expected;
  CHECK(Body(env.Call(env.test_key, "POST", kBase + "/" + id + "/verify-signature", ask.dump()))["valid"] == true);

  // A scheme that is not one; a v1 endpoint says so and has no public keys.
  CheckProblem(env.Call(env.test_key, "POST", kBase, core::Json{{"url", hooks + "/ok"}, {"signatureScheme", "v2"}}.dump()),
               422, "VALIDATION_ERROR");
  auto v1 = env.Call(env.test_key, "POST", kBase, core::Json{{"url", hooks + "/ok"}}.dump());
  REQUIRE(v1.status == 201);
  CHECK(Body(v1)["signatureScheme"] == "v1");
  CHECK(Body(v1)["publicKeys"] == core::Json::array());
  CHECK(Body(v1)["secret"].get<std::string>().rfind("whsec_", 0) == 0);
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
                          "https://[::ffff:0:7f00:1]/x",   // IPv4-translated loopback (issue 68)
                          "https://[64:ff9b:1::7f00:1]/x",  // local-use NAT64 (issue 68)
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

// Per-session callbacks (issue 35, item 5): a session created with a callbackUrl gets its own
// events there, signed (Standard Webhooks v1) with the session's callbackSecret, shown once in the
// 201; in the delivery log, retried like a webhook. Checked by the reference verifier.
TEST_CASE("webhooks: a session's callbackUrl receives its verdict, signed with the session's own secret") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls"});
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto idle = [&] {
    REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
    REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  };
  auto create = [&](const std::string& idem, const std::string& path) {
    core::Json body = {{"channel", "api"}, {"callbackUrl", hooks + path}, {"policy", {{"testOutcome", "approved"}}}};
    auto r = env.Create(env.test_key, idem, body.dump());
    REQUIRE_MESSAGE(r.status == 201, r.body);
    return Body(r);
  };
  auto run = [&](const std::string& session) {
    const std::string base = "/v1/verification-sessions/" + session;
    REQUIRE(env.Call(env.test_key, "POST", base + "/consent", R"({"accepted":true})").status == 200);
    for (const auto& [kind, mime, bytes] : std::vector<testing::Capture>{
             {"document_front", "image/jpeg", testing::Jpeg(1280, 800)},
             {"document_back", "image/jpeg", testing::Jpeg(1280, 801)},
             {"selfie", "image/jpeg", testing::Jpeg(720, 960)},
             {"liveness_video", "video/mp4", testing::Mp4()}}) {
      auto up = testing::Upload(env, env.test_key, session, kind, mime, bytes);
      REQUIRE_MESSAGE(up.status == 201, up.body);
    }
    REQUIRE(env.Call(env.test_key, "POST", base + "/submit").status == 200);
    idle();
  };

  core::Json created = create("cb-session-1", "/ok");
  const std::string session = created["id"];
  const std::string secret = created["callbackSecret"];
  CHECK(secret.rfind("whsec_", 0) == 0);
  CHECK(secret != "whsec_");
  // A retry with the same Idempotency-Key answers the same session and the same secret; the
  // session's record never shows it.
  CHECK(create("cb-session-1", "/ok")["callbackSecret"] == secret);
  core::Json record = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + session));
  CHECK_FALSE(record.contains("callbackSecret"));
  CHECK(record.dump().find(secret.substr(6)) == std::string::npos);

  run(session);
  REQUIRE(receiver.WaitFor("/ok", 1));
  receiver.AddSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");  // another secret: must not verify
  receiver.AddSecret(secret);
  core::Json log = core::ParseJsonOrDiscarded(receiver.LogJson());
  REQUIRE(log.size() == 1);
  CHECK(log[0]["type"] == "verification.approved");
  CHECK(log[0]["verifiedBy"] == core::Json::array({1}));  // the reference verifier, this session's secret only
  core::Json sent = core::ParseJsonOrDiscarded(log[0]["body"].get<std::string>());
  CHECK(sent["data"]["sessionId"] == session);

  // In the delivery log: no endpoint, the session named; its attempts listed.
  auto all = Body(env.Call(env.test_key, "GET", kBase + "/deliveries"));
  REQUIRE(all["data"].size() == 1);
  core::Json dl = all["data"][0];
  CHECK(dl["endpointId"].is_null());
  CHECK(dl["callbackSessionId"] == session);
  CHECK(dl["status"] == "sent");
  CHECK(dl["eventId"] == log[0]["id"]);
  CHECK(dl["targetUrl"] == hooks + "/ok");
  auto attempts = env.Call(env.test_key, "GET", kBase + "/deliveries/" + dl["id"].get<std::string>() + "/attempts");
  REQUIRE_MESSAGE(attempts.status == 200, attempts.body);
  CHECK(Body(attempts)["data"].size() == 1);

  // A callback that refuses (4xx) is not retried; a retry by hand is a new delivery, signed again.
  core::Json refused = create("cb-session-2", "/bad");
  run(refused["id"]);
  REQUIRE(receiver.WaitFor("/bad", 1));
  all = Body(env.Call(env.test_key, "GET", kBase + "/deliveries"));
  REQUIRE(all["data"].size() == 2);
  CHECK(all["data"][0]["status"] == "failed");
  CHECK(all["data"][0]["lastStatusCode"] == 400);
  CHECK(all["data"][0]["callbackSessionId"] == refused["id"]);
  auto retried = env.Call(env.test_key, "POST", kBase + "/deliveries/" + all["data"][0]["id"].get<std::string>() + "/retry");
  REQUIRE_MESSAGE(retried.status == 200, retried.body);
  CHECK(Body(retried)["callbackSessionId"] == refused["id"]);
  CHECK(Body(retried)["eventId"] == all["data"][0]["eventId"]);
  idle();
  REQUIRE(receiver.WaitFor("/bad", 2));
  receiver.AddSecret(refused["callbackSecret"]);
  log = core::ParseJsonOrDiscarded(receiver.LogJson());
  REQUIRE(log.size() == 3);
  CHECK(log[1]["verifiedBy"] == core::Json::array({2}));
  CHECK(log[2]["verifiedBy"] == core::Json::array({2}));
  CHECK(log[1]["id"] == log[2]["id"]);  // webhook-id stable across the retry

  // A session without callbackUrl has no secret; an embedded session's create shows its own.
  CHECK(Body(env.Create(env.test_key, "cb-none"))["callbackSecret"].is_null());
  auto embedded = env.Call(env.test_key, "POST", "/v1/embedded/sessions",
                           core::Json{{"allowedOrigins", {"https://shop.example.com"}}, {"callbackUrl", hooks + "/ok"}}.dump(),
                           {{"Idempotency-Key", "cb-embedded"}});
  REQUIRE_MESSAGE(embedded.status == 201, embedded.body);
  CHECK(Body(embedded)["callbackSecret"].get<std::string>().rfind("whsec_", 0) == 0);
}

TEST_CASE("webhooks: a session's callbackUrl must be a public https URL") {
  Env env(false);
  auto create = [&](const std::string& url) {
    return env.Create(env.test_key, "cb-" + url, core::Json{{"channel", "api"}, {"callbackUrl", url}}.dump());
  };
  for (const char* url : {"http://93.184.216.34/x", "https://127.0.0.1/x", "https://10.0.0.7/x",
                          "https://169.254.169.254/latest/meta-data", "https://[::1]/x", "https://localhost/x"}) {
    CAPTURE(url);
    CheckProblem(create(url), 422, "URL_NOT_PUBLIC");
  }
  for (const char* url : {"ftp://93.184.216.34/x", "https://user:pw@93.184.216.34/x", "https://93.184.216.34/x#frag"}) {
    CAPTURE(url);
    CheckProblem(create(url), 422, "VALIDATION_ERROR");
  }
  // A public one is taken as it is (its name is resolved, and checked again, when it is sent to).
  auto ok = create("https://hooks.example.com/svc");
  REQUIRE_MESSAGE(ok.status == 201, ok.body);
  CHECK(Body(ok)["callbackSecret"].get<std::string>().rfind("whsec_", 0) == 0);
}

// Deliveries: registration sends service.test; 2xx delivered, 4xx not retried, 5xx retried with
// growing waits (fake clock), 410 deactivates; verification events fan out to subscribers of the
// same environment only.
TEST_CASE("webhooks: deliveries, retries and the delivery log") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls", "--fake-clock"});
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto idle = [&] { REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200); };
  auto endpoint = [&](const std::string& path, const std::string& key, core::Json events = nullptr) {
    core::Json body = {{"url", hooks + path}};
    if (!events.is_null()) body["events"] = events;
    auto r = env.Call(key, "POST", kBase, body.dump());
    REQUIRE_MESSAGE(r.status == 201, r.body);
    return Body(r)["id"].get<std::string>();
  };
  auto deliveries = [&](const std::string& id, const std::string& key) {
    auto r = env.Call(key, "GET", kBase + "/" + id + "/deliveries");
    REQUIRE_MESSAGE(r.status == 200, r.body);
    return Body(r)["data"];
  };

  std::string ok = endpoint("/ok", env.test_key, core::Json::array({"verification.*"}));
  std::string bad = endpoint("/bad", env.test_key);
  std::string retry = endpoint("/retry", env.test_key);
  std::string gone = endpoint("/gone", env.test_key);
  std::string live = endpoint("/ok", env.live_key);
  idle();

  core::Json d = deliveries(ok, env.test_key);
  REQUIRE(d.size() == 1);  // service.test goes to every new endpoint, whatever it subscribed to
  CHECK(d[0]["eventType"] == "service.test");
  CHECK(d[0]["status"] == "sent");
  CHECK(d[0]["attempts"] == 1);
  CHECK(d[0]["lastStatusCode"] == 200);
  CHECK(d[0]["sentAt"].is_string());
  CHECK(d[0]["targetUrl"] == hooks + "/ok");
  auto attempts = env.Call(env.test_key, "GET", kBase + "/deliveries/" + d[0]["id"].get<std::string>() + "/attempts");
  REQUIRE_MESSAGE(attempts.status == 200, attempts.body);
  REQUIRE(Body(attempts)["data"].size() == 1);
  CHECK(Body(attempts)["data"][0]["statusCode"] == 200);
  CHECK(Body(attempts)["data"][0]["latencyMs"].is_number_integer());

  core::Json b = deliveries(bad, env.test_key);
  REQUIRE(b.size() == 1);
  CHECK(b[0]["status"] == "failed");  // 4xx: permanent
  CHECK(b[0]["lastStatusCode"] == 400);
  CHECK(b[0]["nextRetryAt"].is_null());

  core::Json g = deliveries(gone, env.test_key);
  CHECK(g[0]["status"] == "failed");
  CHECK(g[0]["lastStatusCode"] == 410);
  CHECK(Body(env.Call(env.test_key, "GET", kBase + "/" + gone))["isActive"] == false);  // 410 deactivates

  core::Json r = deliveries(retry, env.test_key);
  CHECK(r[0]["status"] == "pending");
  CHECK(r[0]["attempts"] == 1);
  CHECK(r[0]["lastStatusCode"] == 503);
  auto now = core::ParseRfc3339(r[0]["updatedAt"].get<std::string>());
  auto next = core::ParseRfc3339(r[0]["nextRetryAt"].get<std::string>());
  REQUIRE((now.ok() && next.ok()));
  int64_t first_wait = (next->micros - now->micros) / 1'000'000;
  CHECK(first_wait >= 24);  // 30 s +-20 %, above the receiver's Retry-After of 7 s
  CHECK(first_wait <= 36);
  // Nothing happens until the clock reaches the retry time; then the second attempt, with a
  // longer wait after it.
  idle();
  CHECK(deliveries(retry, env.test_key)[0]["attempts"] == 1);
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 40}}).status == 200);
  idle();
  r = deliveries(retry, env.test_key);
  CHECK(r[0]["attempts"] == 2);
  auto now2 = core::ParseRfc3339(r[0]["updatedAt"].get<std::string>());
  auto next2 = core::ParseRfc3339(r[0]["nextRetryAt"].get<std::string>());
  int64_t second_wait = (next2->micros - now2->micros) / 1'000'000;
  CHECK(second_wait >= 48);  // 60 s +-20 %
  CHECK(second_wait <= 72);
  // The failed and the delivered ones were not tried again.
  CHECK(deliveries(bad, env.test_key)[0]["attempts"] == 1);
  CHECK(deliveries(ok, env.test_key)[0]["attempts"] == 1);

  // Retry by hand: a new delivery of the same event; the original stays. Not for an inactive
  // endpoint; not for an unknown delivery.
  std::string original = b[0]["id"];
  auto retried = env.Call(env.test_key, "POST", kBase + "/deliveries/" + original + "/retry");
  REQUIRE_MESSAGE(retried.status == 200, retried.body);
  core::Json again = Body(retried);
  CHECK(again["id"] != original);
  CHECK(again["eventId"] == b[0]["eventId"]);
  CHECK(again["status"] == "pending");
  CHECK(again["attempts"] == 0);
  idle();
  b = deliveries(bad, env.test_key);
  REQUIRE(b.size() == 2);
  CHECK(b[0]["id"] == again["id"]);
  CHECK(b[0]["attempts"] == 1);  // sent again (and refused again: 400)
  CHECK(b[1]["id"] == original);
  CHECK(b[1]["attempts"] == 1);  // the original is untouched
  CheckProblem(env.Call(env.test_key, "POST", kBase + "/deliveries/" + g[0]["id"].get<std::string>() + "/retry"),
               409, "WEBHOOK_ENDPOINT_INACTIVE");
  CheckProblem(env.Call(env.test_key, "POST", kBase + "/deliveries/whd_00000000000000000000000000000000/retry"),
               404, "WEBHOOK_DELIVERY_NOT_FOUND");

  // A verification event: the test session expires (fake clock) -> verification.expired to the
  // test endpoints subscribed to it, not to the live one.
  auto created = env.Create(env.test_key, "wh-expire");
  REQUIRE(created.status == 201);
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 86401}}).status == 200);
  idle();
  d = deliveries(ok, env.test_key);
  REQUIRE(d.size() == 2);
  CHECK(d[0]["eventType"] == "verification.expired");  // newest first
  CHECK(d[0]["status"] == "sent");
  CHECK(deliveries(live, env.live_key).size() == 1);  // its own service.test only
  CHECK(deliveries(gone, env.test_key).size() == 1);  // inactive: nothing new
  // All endpoints' deliveries, and isolation between environments.
  auto all = env.Call(env.test_key, "GET", kBase + "/deliveries");
  REQUIRE(all.status == 200);
  // 4 service.test, 1 retry by hand, verification.expired to the 3 active endpoints subscribed.
  CHECK(Body(all)["data"].size() == 8);
  // includeTotal on every list: counted on the index, the same number the pages add up to.
  auto counted = Body(env.Call(env.test_key, "GET", kBase + "/deliveries?includeTotal=true&limit=3"));
  CHECK(counted["data"].size() == 3);
  CHECK(counted["totalCount"] == 8);
  CHECK(counted["hasMore"] == true);
  CHECK(Body(env.Call(env.test_key, "GET", kBase + "?includeTotal=true"))["totalCount"] == 4);
  CHECK(Body(env.Call(env.live_key, "GET", kBase + "/deliveries?includeTotal=true"))["totalCount"] == 1);
  CheckProblem(env.Call(env.live_key, "GET", kBase + "/deliveries/" + d[0]["id"].get<std::string>() + "/attempts"),
               404, "WEBHOOK_DELIVERY_NOT_FOUND");

  // Issue 31: the spec's applicationId filter of the delivery log (deliveries to the endpoints of
  // that application) was refused.
  const std::string app2 = env.NewApplication(env.tenant, "Second");
  auto other = env.Call(env.test_key, "POST", kBase, core::Json{{"url", hooks + "/ok"}, {"applicationId", app2}}.dump());
  REQUIRE_MESSAGE(other.status == 201, other.body);
  idle();
  auto of_app2 = env.Call(env.test_key, "GET", kBase + "/deliveries?includeTotal=true&applicationId=" + app2);
  REQUIRE_MESSAGE(of_app2.status == 200, of_app2.body);
  REQUIRE(Body(of_app2)["data"].size() == 1);
  CHECK(Body(of_app2)["data"][0]["endpointId"] == Body(other)["id"]);
  CHECK(Body(of_app2)["totalCount"] == 1);
  CHECK(Body(env.Call(env.test_key, "GET", kBase + "/deliveries?includeTotal=true"))["totalCount"] == 9);
  CheckProblem(env.Call(env.test_key, "GET", kBase + "/deliveries?applicationId=nope"), 400, "INVALID_ID");

  // Issue 68, item 6: an applicationId must be one of the tenant's (another tenant's, or a made-up
  // one, was taken), on create and on PATCH; nothing is made or changed.
  const std::string stranger = env.NewTenant("Stranger");
  const std::string theirs = env.NewApplication(stranger, "Theirs");
  const std::string made_up = "app_" + std::string(32, 'e');
  for (const std::string& app : {theirs, made_up}) {
    CAPTURE(app);
    CheckProblem(env.Call(env.test_key, "POST", kBase, core::Json{{"url", hooks + "/ok"}, {"applicationId", app}}.dump()),
                 404, "APPLICATION_NOT_FOUND");
    CheckProblem(env.Call(env.test_key, "PATCH", kBase + "/" + Body(other)["id"].get<std::string>(),
                          core::Json{{"applicationId", app}}.dump()),
                 404, "APPLICATION_NOT_FOUND");
  }
  CHECK(Body(env.Call(env.test_key, "GET", kBase + "/" + Body(other)["id"].get<std::string>()))["applicationId"] == app2);
  CHECK(Body(env.Call(env.test_key, "GET", kBase + "?includeTotal=true"))["totalCount"] == 5);
}

// One slow receiver cannot starve the others: at most 4 of its deliveries are in flight while
// another endpoint's are all delivered. Operators can pause deliveries (they queue) and resume.
TEST_CASE("webhooks: per-endpoint lanes; pause, queue and resume") {
  testing::ReceiverProcess receiver;
  // Scans of 3 due rows at a time: the held lane's rows come first in the index, and the other
  // lane's are still reached (the scan goes on where it stopped).
  Env env(false, {"--webhooks-allow-private-urls", "--fake-clock", "--webhooks-scan-rows", "3"},
          Sharing::kIsolated);  // the whole queue
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto endpoint = [&](const std::string& path) {
    auto r = env.Call(env.test_key, "POST", kBase,
                      core::Json{{"url", hooks + path}, {"events", {"verification.expired"}}}.dump());
    REQUIRE_MESSAGE(r.status == 201, r.body);
    return Body(r)["id"].get<std::string>();
  };
  auto queue = [&] {
    auto r = env.Admin("GET", "/admin/webhooks/queue");
    REQUIRE_MESSAGE(r.status == 200, r.body);
    return Body(r);
  };
  auto count_at = [&](const std::string& path) {
    int n = 0;
    for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) n += m["path"] == path ? 1 : 0;
    return n;
  };

  SUBCASE("a held endpoint holds at most 4 sends; the other is served") {
    std::string held = endpoint("/hold");
    std::string fast = endpoint("/ok");
    for (int i = 0; i < 6; ++i) REQUIRE(env.Create(env.test_key, "lane-" + std::to_string(i)).status == 201);
    REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 86401}}).status == 200);
    // 7 deliveries each (service.test and 6 expiries). Every one to /ok arrives while /hold
    // answers none.
    REQUIRE(receiver.WaitFor("/ok", 7));
    REQUIRE(receiver.WaitFor("/hold", 4));
    CHECK(count_at("/hold") == 4);
    core::Json q = queue();
    CHECK(q["inFlight"].get<int>() >= 4);
    CHECK(q["scheduled"].get<int>() >= 7);  // /hold's, and /ok's not recorded yet
    receiver.Release();
    REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
    CHECK(count_at("/hold") == 7);
    CHECK(count_at("/ok") == 7);
    for (const auto& id : {held, fast}) {
      auto d = Body(env.Call(env.test_key, "GET", kBase + "/" + id + "/deliveries"))["data"];
      REQUIRE(d.size() == 7);
      for (const auto& x : d) CHECK(x["status"] == "sent");
    }
    q = queue();
    CHECK(q["scheduled"] == 0);
    CHECK(q["inFlight"] == 0);
  }

  SUBCASE("paused deliveries queue, and go on resume") {
    core::Json q = Body(env.Admin("POST", "/admin/webhooks/pause"));
    CHECK(q["paused"] == true);
    std::string ok = endpoint("/ok");
    for (int i = 0; i < 3; ++i) REQUIRE(env.Create(env.test_key, "paused-" + std::to_string(i)).status == 201);
    REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 86401}}).status == 200);
    // wait-idle while paused answers at once: not idle, 4 deliveries wait.
    CHECK(env.Admin("POST", "/admin/webhooks/wait-idle").status == 503);
    q = queue();
    CHECK(q["paused"] == true);
    CHECK(q["dueNow"] == 4);
    CHECK(q["scheduled"] == 4);
    CHECK(q["inFlight"] == 0);
    CHECK(count_at("/ok") == 0);
    auto d = Body(env.Call(env.test_key, "GET", kBase + "/" + ok + "/deliveries"))["data"];
    REQUIRE(d.size() == 4);
    CHECK(d[0]["status"] == "pending");

    // The CLI shows the same through the admin socket.
    auto status = testing::RunSvc({"admin", "webhooks", "status", "--data-dir", env.dir.Sub("data")});
    CHECK_MESSAGE(status.exit_code == 0, status.err);
    core::Json cli = core::ParseJsonOrDiscarded(status.out);
    CHECK(cli["paused"] == true);
    CHECK(cli["dueNow"] == 4);

    // Without a running server there is nothing to show (and no data directory is created).
    auto none = testing::RunSvc({"admin", "webhooks", "status", "--data-dir", env.dir.Sub("no-server")});
    CHECK(none.exit_code == 1);
    CHECK(none.err.find("no server runs") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(env.dir.Sub("no-server")));

    auto resumed = testing::RunSvc({"admin", "webhooks", "resume", "--data-dir", env.dir.Sub("data")});
    CHECK_MESSAGE(resumed.exit_code == 0, resumed.err);
    CHECK(core::ParseJsonOrDiscarded(resumed.out)["paused"] == false);
    REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
    CHECK(count_at("/ok") == 4);
    CHECK(queue()["scheduled"] == 0);
    CHECK(env.Admin("POST", "/admin/webhooks/pause", core::Json::object()).status == 200);
    CHECK(env.Admin("GET", "/admin/webhooks/queue").status == 200);
    auto anon = api::HttpCall(env.server->admin_target(), "POST", "/admin/webhooks/resume", {}, "{}");
    REQUIRE(anon.ok());
    CheckProblem(*anon, 401, "SERVICE_KEY_REQUIRED");
  }
}

// Receivers that time out or drop the connection are retried; an endpoint gets at most its
// delivery rate (a token bucket on the service clock: deterministic with the fake clock).
TEST_CASE("webhooks: timeouts, dropped connections and the delivery rate") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls", "--fake-clock", "--webhooks-timeout-seconds", "1",
                  "--webhooks-rate-limit-rpm", "60"});
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto idle = [&] { REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200); };
  auto endpoint = [&](const std::string& path, core::Json events) {
    auto r = env.Call(env.test_key, "POST", kBase, core::Json{{"url", hooks + path}, {"events", events}}.dump());
    REQUIRE_MESSAGE(r.status == 201, r.body);
    return Body(r)["id"].get<std::string>();
  };
  auto deliveries = [&](const std::string& id) {
    auto r = env.Call(env.test_key, "GET", kBase + "/" + id + "/deliveries");
    REQUIRE_MESSAGE(r.status == 200, r.body);
    return Body(r)["data"];
  };
  auto count_at = [&](const std::string& path) {
    int n = 0;
    for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) n += m["path"] == path ? 1 : 0;
    return n;
  };
  auto policy = Body(env.Call(env.test_key, "GET", kBase + "/delivery-policy"));
  CHECK(policy["rateLimitDefaultRpm"] == 60);
  CHECK(policy["httpTimeoutSeconds"] == 1);

  // service.test to a receiver that never answers (1 s budget) and to one that drops the
  // connection: both attempts recorded with their error, both retried later.
  std::string held = endpoint("/hold", {"case.*"});
  std::string closing = endpoint("/close", {"case.*"});
  idle();
  for (const auto& [id, error] : {std::pair{held, "timeout"}, std::pair{closing, "connection_closed"}}) {
    core::Json d = deliveries(id);
    REQUIRE(d.size() == 1);
    CHECK(d[0]["status"] == "pending");
    CHECK(d[0]["attempts"] == 1);
    CHECK(d[0]["lastError"] == error);
    CHECK(d[0]["lastStatusCode"].is_null());
    CHECK(d[0]["nextRetryAt"].is_string());
    auto at = Body(env.Call(env.test_key, "GET", kBase + "/deliveries/" + d[0]["id"].get<std::string>() + "/attempts"));
    REQUIRE(at["data"].size() == 1);
    CHECK(at["data"][0]["error"] == error);
    CHECK(at["data"][0]["outcome"] == "retrying");
  }
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 40}}).status == 200);
  idle();
  CHECK(deliveries(held)[0]["attempts"] == 2);
  CHECK(deliveries(closing)[0]["attempts"] == 2);
  CHECK(count_at("/hold") == 2);
  CHECK(count_at("/close") == 2);

  // 60 a minute: 1 a second, bursts of 6. service.test takes one token; after the expiries the
  // bucket is full again (6): of 7 expiry deliveries 6 go, the 7th waits for the clock.
  std::string ok = endpoint("/ok", {"verification.expired"});
  idle();
  CHECK(count_at("/ok") == 1);
  for (int i = 0; i < 7; ++i) REQUIRE(env.Create(env.test_key, "rate-" + std::to_string(i)).status == 201);
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 86401}}).status == 200);
  idle();  // idle: what is left waits for its rate
  CHECK(count_at("/ok") == 7);
  core::Json q = Body(env.Admin("GET", "/admin/webhooks/queue"));
  CHECK(q["rateLimited"] == 1);
  CHECK(q["dueNow"].get<int>() >= 1);  // and the two failing endpoints' next retries, if due
  int pending = 0;
  for (const auto& x : deliveries(ok)) pending += x["status"] == "pending" ? 1 : 0;
  CHECK(pending == 1);
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 1}}).status == 200);
  idle();
  CHECK(count_at("/ok") == 8);
  CHECK(Body(env.Admin("GET", "/admin/webhooks/queue"))["rateLimited"] == 0);
  for (const auto& x : deliveries(ok)) CHECK(x["status"] == "sent");
  // The attempts are counted in /metrics by outcome (no tenant or endpoint labels).
  auto metrics = env.Call("", "GET", "/metrics");
  REQUIRE(metrics.status == 200);
  CHECK(metrics.body.find("svc_webhook_attempts_total{outcome=\"delivered\"} 8\n") != std::string::npos);
  CHECK(metrics.body.find("svc_webhook_attempts_total{outcome=\"retrying\"} ") != std::string::npos);
  CHECK(metrics.body.find("svc_webhook_attempt_seconds_count ") != std::string::npos);
  receiver.Release();
}

// The same on the Kafka backend (svc dev-broker): deliveries derive from the events read back
// from the broker, and attempts are appended to it.
TEST_CASE("webhooks: on the Kafka log, delivered, verified and logged") {
  testing::ReceiverProcess receiver;
  Env env(true, {"--webhooks-allow-private-urls", "--fake-clock"});
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto made = env.Call(env.test_key, "POST", kBase,
                       core::Json{{"url", hooks + "/ok"}, {"events", {"verification.expired"}}}.dump());
  REQUIRE_MESSAGE(made.status == 201, made.body);
  std::string id = Body(made)["id"];
  receiver.AddSecret(Body(made)["secret"]);
  for (int i = 0; i < 3; ++i) REQUIRE(env.Create(env.test_key, "kafka-" + std::to_string(i)).status == 201);
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 86401}}).status == 200);
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  core::Json log = core::ParseJsonOrDiscarded(receiver.LogJson());
  REQUIRE(log.size() == 4);  // service.test and 3 expiries
  int expired = 0;
  for (const auto& m : log) {
    if (m["type"] == "service.test") {
      CHECK(m["verifiedBy"] == core::Json::array({0}));
    } else {
      // Signed at the fake clock's time, a day ahead of the receiver's: the reference verifier
      // refuses the timestamp, as it should.
      CHECK(m["error"].get<std::string>().find("timestamp") != std::string::npos);
      ++expired;
    }
  }
  CHECK(expired == 3);
  auto d = Body(env.Call(env.test_key, "GET", kBase + "/" + id + "/deliveries"))["data"];
  REQUIRE(d.size() == 4);
  for (const auto& x : d) {
    CHECK(x["status"] == "sent");
    CHECK(x["attempts"] == 1);
  }
}

// At least once across a crash: kill -9 of svc loses no pending delivery. A delivery waiting for
// its retry is retried after the restart; a delivery created just before the kill (sent or not)
// ends delivered, and every copy the receiver got verifies.
TEST_CASE("webhooks: kill -9 loses no pending delivery") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls", "--fake-clock"}, Sharing::kIsolated);  // kills it
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto idle = [&] { REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200); };
  auto make = [&](const std::string& path) {
    auto r = env.Call(env.test_key, "POST", kBase, core::Json{{"url", hooks + path}}.dump());
    REQUIRE_MESSAGE(r.status == 201, r.body);
    receiver.AddSecret(Body(r)["secret"].get<std::string>());
    return Body(r)["id"].get<std::string>();
  };
  auto first = [&](const std::string& id) {
    auto r = env.Call(env.test_key, "GET", kBase + "/" + id + "/deliveries");
    REQUIRE(r.status == 200);
    REQUIRE(Body(r)["data"].size() == 1);
    return Body(r)["data"][0];
  };
  std::string waiting = make("/retry");
  idle();
  CHECK(first(waiting)["attempts"] == 1);
  CHECK(first(waiting)["status"] == "pending");
  std::string fresh = make("/ok");  // its service.test may or may not go out before the kill

  env.server->Kill();
  env.server->Start();

  idle();
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 40}}).status == 200);
  idle();
  core::Json w = first(waiting);
  CHECK(w["attempts"] == 2);  // the retry scheduled before the crash happened after it
  CHECK(w["status"] == "pending");
  // The fresh one: sent, or (the kill fell between its start and its record) recorded as
  // interrupted once its lease passed (20 s) and sent by its next attempt (30 s +-20 % later).
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 40}}).status == 200);
  idle();
  core::Json f = first(fresh);
  CHECK(f["status"] == "sent");
  core::Json log = core::ParseJsonOrDiscarded(receiver.LogJson());
  int ok_copies = 0;
  for (const auto& m : log) {
    CHECK(!m["verifiedBy"].empty());  // every copy verifies with the reference package
    if (m["path"] == "/ok") ++ok_copies;
  }
  CHECK(ok_copies >= 1);  // at least once
  CHECK(ok_copies <= f["attempts"].get<int>());  // at most once per attempt
}

// At most once per attempt: the attempt is started (an event) before its post, so a node killed
// mid-send does not post that attempt again after its restart. The attempt stays open until its
// lease (the send timeout, 15 s, + 5 s) has passed; then it is recorded as interrupted and the
// next attempt, with the usual backoff, posts again (the same webhook-id).
TEST_CASE("webhooks: an attempt cut by kill -9 is posted once, then recorded as interrupted") {
  testing::ReceiverProcess receiver;
  // A fixed start for the fake clock, so that the restarted node starts where the first one did.
  const std::string t0 = core::FormatRfc3339(core::Timestamp{core::SystemClock().Now().micros / 1'000'000 * 1'000'000});
  Env env(false, {"--webhooks-allow-private-urls", "--fake-clock", "--fake-clock-at", t0}, Sharing::kIsolated);
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto idle = [&] { REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200); };
  auto r = env.Call(env.test_key, "POST", kBase, core::Json{{"url", hooks + "/hold"}}.dump());
  REQUIRE_MESSAGE(r.status == 201, r.body);
  receiver.AddSecret(Body(r)["secret"].get<std::string>());
  const std::string id = Body(r)["id"];
  auto delivery = [&] {
    auto d = env.Call(env.test_key, "GET", kBase + "/" + id + "/deliveries");
    REQUIRE(d.status == 200);
    REQUIRE(Body(d)["data"].size() == 1);
    return Body(d)["data"][0];
  };
  auto posts = [&] {
    int n = 0;
    for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) n += m["path"] == "/hold" ? 1 : 0;
    return n;
  };
  // service.test is posted and held by the receiver: the node dies in the middle of the send.
  REQUIRE(receiver.WaitFor("/hold", 1));
  env.server->Kill();
  receiver.Release();  // later posts are answered at once
  env.server->Start();

  idle();
  CHECK(posts() == 1);  // not posted again: attempt 1 was started
  core::Json d = delivery();
  CHECK(d["attempts"] == 0);
  CHECK(d["status"] == "pending");
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 10}}).status == 200);
  idle();
  CHECK(posts() == 1);
  CHECK(delivery()["attempts"] == 0);  // its lease has not passed

  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 11}}).status == 200);
  idle();
  CHECK(posts() == 1);
  d = delivery();
  CHECK(d["attempts"] == 1);
  CHECK(d["status"] == "pending");
  CHECK(d["lastError"] == "interrupted");
  CHECK(d["lastStatusCode"].is_null());
  CHECK(d["nextRetryAt"].is_string());
  auto at = Body(env.Call(env.test_key, "GET", kBase + "/deliveries/" + d["id"].get<std::string>() + "/attempts"));
  REQUIRE(at["data"].size() == 1);
  CHECK(at["data"][0]["error"] == "interrupted");
  CHECK(at["data"][0]["outcome"] == "retrying");
  auto metrics = env.Call("", "GET", "/metrics");
  CHECK(metrics.body.find("svc_webhook_attempts_interrupted_total 1\n") != std::string::npos);

  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 40}}).status == 200);
  idle();
  d = delivery();
  CHECK(d["attempts"] == 2);
  CHECK(d["status"] == "sent");
  CHECK(posts() == 2);  // one post per attempt
  for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) {
    CHECK(!m["verifiedBy"].empty());
    CHECK(m["id"] == core::ParseJsonOrDiscarded(receiver.LogJson())[0]["id"]);  // the same webhook-id
  }
}

}  // namespace integration_webhooks_test
