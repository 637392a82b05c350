// The embedded channel through a real svc (docs/embedded.md): flows and applications at the admin
// socket, sessions following their flow, the five embedded routes with their keys, origins and
// flows, the applicant token's reach, on both log backends for the session path.
#include <doctest/doctest.h>

#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/session_flow.h"

namespace integration_embedded_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

core::Json Step(const std::string& id, const std::string& type, const std::string& next = "") {
  core::Json s = {{"id", id}, {"type", type}};
  if (!next.empty()) s["next"] = next;
  return s;
}

// Consent, document front and back, selfie, passive liveness, submit.
core::Json FullFlow() {
  return {{"steps", core::Json::array({Step("c", "consent", "f"), Step("f", "document_front", "b"),
                                       Step("b", "document_back", "s"), Step("s", "selfie", "l"),
                                       Step("l", "liveness", "x"), Step("x", "submit")})},
          {"checks", {{"document", true}, {"faceMatch", true}, {"governmentLookup", true}, {"liveness", true}}},
          {"policy", {{"faceMatchThreshold", 0.85}}}};
}

// Consent, document front, submit: the document only.
core::Json DocumentFlow() {
  return {{"steps", core::Json::array({Step("c", "consent", "f"), Step("f", "document_front", "x"), Step("x", "submit")})},
          {"checks", {{"faceMatch", false}, {"liveness", false}}}};
}

std::string Flow(Env& env, const std::string& tenant, const std::string& key, const core::Json& def, bool publish = true) {
  auto r = env.Admin("POST", "/admin/tenants/" + tenant + "/flows", {{"key", key}, {"name", key}, {"definition", def}});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  const std::string id = Body(r)["id"];
  if (publish) {
    auto p = env.Admin("POST", "/admin/tenants/" + tenant + "/flows/" + id + "/publish");
    REQUIRE_MESSAGE(p.status == 200, p.body);
  }
  return id;
}

api::HttpResponse Settings(Env& env, const std::string& tenant, const std::string& app, const core::Json& body) {
  return env.Admin("POST", "/admin/tenants/" + tenant + "/applications/" + app + "/settings", body);
}

std::string PublishableKey(Env& env, const std::string& tenant, const std::string& app,
                           std::vector<std::string> flows = {}) {
  core::Json body = {{"environment", "test"}, {"type", "publishable"}, {"scopes", {"embedded:create_session"}},
                     {"applicationId", app}};
  if (!flows.empty()) body["flows"] = flows;
  auto r = env.Admin("POST", "/admin/tenants/" + tenant + "/keys", body);
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["secret"];
}

std::string DefaultApp(Env& env, const std::string& tenant) {
  const core::Json tenants = Body(env.Admin("GET", "/admin/tenants"));
  for (const auto& t : tenants["data"]) {
    if (t["id"] == tenant) return t["defaultApplicationId"];
  }
  FAIL("no tenant " << tenant);
  return "";
}

api::HttpResponse Init(Env& env, const std::string& secret, const std::string& parent) {
  return env.Call("", "POST", "/v1/embedded/sessions/init",
                  core::Json{{"clientSecret", secret}, {"parentOrigin", parent}}.dump());
}

}  // namespace

TEST_CASE("embedded: flows at the admin socket — create, validate, publish as versions, archive; their refusals") {
  Env env(false);
  const std::string t = "/admin/tenants/" + env.tenant;
  core::Json broken = FullFlow();
  broken["steps"][0]["type"] = "dance";
  broken["checks"]["proofOfAddress"] = true;
  auto made = env.Admin("POST", t + "/flows", {{"key", "kyc-full"}, {"name", "KYC full"}, {"definition", broken}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  const std::string id = Body(made)["id"];
  CHECK(Body(made)["status"] == "draft");
  CHECK(Body(made)["version"] == 0);
  CheckProblem(env.Admin("POST", t + "/flows", {{"key", "kyc-full"}, {"name", "again"}, {"definition", FullFlow()}}),
               409, "FLOW_KEY_TAKEN");
  CheckProblem(env.Admin("POST", t + "/flows", {{"key", "Bad Key"}, {"name", "x"}, {"definition", FullFlow()}}), 422,
               "VALIDATION_ERROR");
  CheckProblem(env.Admin("POST", t + "/flows", {{"key", "k2"}, {"name", "x"}, {"definition", core::Json::array()}}),
               422, "VALIDATION_ERROR");
  CheckProblem(env.Admin("POST", "/admin/tenants/ten_00000000000000000000000000000099/flows",
                         {{"key", "k"}, {"name", "x"}, {"definition", FullFlow()}}),
               404, "TENANT_NOT_FOUND");
  // Publishing the broken draft: every issue, with its JSON pointer.
  auto refused = env.Admin("POST", t + "/flows/" + id + "/publish");
  CheckProblem(refused, 422, "FLOW_VALIDATION_FAILED");
  core::Json issues = Body(refused)["issues"];
  REQUIRE(issues.is_array());
  CHECK(issues.size() >= 2);
  bool unknown_step = false, unsupported = false;
  for (const auto& i : issues) {
    unknown_step |= i["code"] == "step_type_unknown" && i["path"] == "/steps/0/type";
    unsupported |= i["code"] == "check_unsupported" && i["path"] == "/checks/proofOfAddress";
  }
  CHECK(unknown_step);
  CHECK(unsupported);
  CHECK(Body(env.Admin("POST", t + "/flows/" + id + "/validate"))["publishable"] == false);
  REQUIRE(env.Admin("POST", t + "/flows/" + id + "/draft", {{"definition", FullFlow()}}).status == 200);
  CHECK(Body(env.Admin("POST", t + "/flows/" + id + "/validate"))["publishable"] == true);
  auto published = env.Admin("POST", t + "/flows/" + id + "/publish");
  REQUIRE_MESSAGE(published.status == 200, published.body);
  CHECK(Body(published)["version"] == 1);
  CHECK(Body(published)["status"] == "published");
  CHECK(Body(env.Admin("POST", t + "/flows/" + id + "/publish"))["version"] == 1);  // unchanged: the same version
  core::Json v2 = FullFlow();
  v2["policy"]["faceMatchThreshold"] = 0.9;
  REQUIRE(env.Admin("POST", t + "/flows/" + id + "/draft", {{"definition", v2}}).status == 200);
  CHECK(Body(env.Admin("POST", t + "/flows/" + id + "/publish"))["version"] == 2);
  core::Json shown = Body(env.Admin("GET", t + "/flows/" + id));
  REQUIRE(shown["versions"].size() == 2);
  CHECK(shown["versions"][0]["definition"]["policy"]["faceMatchThreshold"] == 0.85);
  CHECK(shown["versions"][1]["definitionHash"].get<std::string>().size() == 64);
  core::Json list = Body(env.Admin("GET", t + "/flows"));
  REQUIRE(list["data"].size() == 1);
  CHECK(list["data"][0]["key"] == "kyc-full");
  CHECK(!list["data"][0].contains("draft"));
  REQUIRE(env.Admin("POST", t + "/flows/" + id + "/archive").status == 200);
  CheckProblem(env.Admin("POST", t + "/flows/" + id + "/publish"), 409, "FLOW_NOT_PUBLISHABLE");
  CheckProblem(env.Admin("POST", t + "/flows/" + id + "/draft", {{"definition", FullFlow()}}), 409,
               "FLOW_NOT_PUBLISHABLE");
  CheckProblem(env.Admin("POST", t + "/flows/flw_00000000000000000000000000000099/publish"), 404, "FLOW_NOT_FOUND");
  CheckProblem(env.Admin("POST", t + "/flows/nonsense/publish"), 400, "INVALID_ID");
  // A session cannot start with an archived flow.
  auto s = env.Create(env.test_key, "arch-1", core::Json{{"channel", "api"}, {"flowId", id}}.dump());
  CheckProblem(s, 409, "FLOW_NOT_PUBLISHABLE");
  // Nor with a draft never published.
  const std::string draft = Flow(env, env.tenant, "draft-only", FullFlow(), false);
  CheckProblem(env.Create(env.test_key, "arch-2", core::Json{{"channel", "api"}, {"flowId", draft}}.dump()), 409,
               "FLOW_NOT_PUBLISHABLE");
  CheckProblem(env.Create(env.test_key, "arch-3", core::Json{{"channel", "api"}, {"flowId", "flw_00000000000000000000000000000099"}}.dump()),
               404, "FLOW_NOT_FOUND");
  CheckProblem(env.Create(env.test_key, "arch-4", core::Json{{"channel", "api"}, {"flow", "no-such-key"}}.dump()), 404,
               "FLOW_NOT_FOUND");
  // Another tenant's flow is not found.
  const std::string other = env.NewTenant("Other");
  const std::string theirs = Flow(env, other, "theirs", DocumentFlow());
  CheckProblem(env.Create(env.test_key, "arch-5", core::Json{{"channel", "api"}, {"flowId", theirs}}.dump()), 404,
               "FLOW_NOT_FOUND");
}

TEST_CASE("embedded: applications — settings, origins, archive; the application and the key guard flows independently") {
  Env env(false);
  const std::string t = "/admin/tenants/" + env.tenant;
  const std::string def_app = DefaultApp(env, env.tenant);
  const std::string shop = env.NewApplication(env.tenant, "Shop");
  const std::string lend = env.NewApplication(env.tenant, "Lending");
  const std::string full = Flow(env, env.tenant, "full", FullFlow());
  const std::string doc = Flow(env, env.tenant, "doc", DocumentFlow());
  CheckProblem(Settings(env, env.tenant, shop, {{"allowedFlows", {full}}, {"defaultFlow", doc}}), 422,
               "DEFAULT_FLOW_NOT_IN_ALLOWED");
  CheckProblem(Settings(env, env.tenant, shop, {{"allowedOrigins", {"http://shop.example"}}}), 422, "ORIGIN_INVALID");
  CheckProblem(Settings(env, env.tenant, shop, {{"allowedFlows", {"flw_00000000000000000000000000000099"}}}), 404,
               "FLOW_NOT_FOUND");
  auto set = Settings(env, env.tenant, shop,
                      {{"allowedFlows", {full, doc}}, {"defaultFlow", doc}, {"allowedOrigins", {"https://Shop.example"}}});
  REQUIRE_MESSAGE(set.status == 200, set.body);
  CHECK(Body(set)["allowedOrigins"] == core::Json::array({"https://shop.example"}));
  CHECK(Body(set)["defaultFlow"] == doc);
  CheckProblem(Settings(env, env.tenant, lend, {{"allowedOrigins", {"https://shop.example"}}}), 409, "ORIGIN_CONFLICT");
  REQUIRE(Settings(env, env.tenant, lend, {{"allowedFlows", {full}}}).status == 200);
  CHECK(Body(env.Admin("GET", t + "/applications"))["data"].size() == 3);
  CheckProblem(env.Admin("POST", t + "/applications/" + def_app + "/archive"), 409, "CANNOT_ARCHIVE_DEFAULT");
  CheckProblem(env.Admin("POST", t + "/applications/app_00000000000000000000000000000099/archive"), 404,
               "APPLICATION_NOT_FOUND");

  // Sessions: the application's default flow when none is named; its allowed flows only.
  const std::string shop_key = env.NewKey(env.tenant, "test", {"*"}, shop);
  auto s = env.Create(shop_key, "app-1");
  REQUIRE_MESSAGE(s.status == 201, s.body);
  CHECK(Body(s)["flowId"] == doc);
  const std::string sid = Body(s)["id"];
  // The document flow has no selfie step: the capture is refused.
  REQUIRE(env.Call(shop_key, "POST", "/v1/verification-sessions/" + sid + "/consent", R"({"accepted":true})").status == 200);
  CheckProblem(svc::testing::Upload(env, shop_key, sid, "selfie", "image/jpeg", svc::testing::Jpeg(720, 960)), 409,
               "CAPTURE_NOT_ALLOWED");
  CHECK(svc::testing::Upload(env, shop_key, sid, "document_front", "image/jpeg", svc::testing::Jpeg(1280, 800)).status == 201);
  // A check the flow has off cannot be turned on by the session.
  auto on = env.Create(shop_key, "app-2", core::Json{{"channel", "api"}, {"checks", {{"faceMatch", true}}}}.dump());
  CheckProblem(on, 400, "CHECK_NOT_ENABLED_FOR_FLOW");
  CHECK(Body(on)["check"] == "face_match");
  auto active = env.Create(shop_key, "app-3", core::Json{{"channel", "api"}, {"flowId", full},
                                                         {"checks", {{"livenessMode", "active"}}}}.dump());
  CheckProblem(active, 400, "CHECK_NOT_ENABLED_FOR_FLOW");
  CHECK(Body(active)["check"] == "active_liveness");
  // Lending allows only the full flow: the document flow is refused by the application.
  const std::string lend_key = env.NewKey(env.tenant, "test", {"*"}, lend);
  CheckProblem(env.Create(lend_key, "app-4", core::Json{{"channel", "api"}, {"flowId", doc}}.dump()), 403,
               "FLOW_NOT_ALLOWED_FOR_APPLICATION");
  CheckProblem(env.Create(lend_key, "app-5"), 422, "FLOW_REQUIRED");  // restricted, no default
  CHECK(env.Create(lend_key, "app-6", core::Json{{"channel", "api"}, {"flow", "full"}}.dump()).status == 201);
  // A key restricted to a flow: an independent guard (the default application allows any flow).
  auto restricted = env.Admin("POST", t + "/keys", {{"environment", "test"}, {"scopes", {"*"}}, {"flows", {doc}}});
  REQUIRE_MESSAGE(restricted.status == 201, restricted.body);
  CHECK(Body(restricted)["flows"] == core::Json::array({doc}));
  const std::string rkey = Body(restricted)["secret"];
  CheckProblem(env.Create(rkey, "app-7", core::Json{{"channel", "api"}, {"flowId", full}}.dump()), 403,
               "FLOW_NOT_ALLOWED_FOR_KEY");
  CheckProblem(env.Create(rkey, "app-8"), 422, "FLOW_REQUIRED");
  auto with_doc = env.Create(rkey, "app-9", core::Json{{"channel", "api"}, {"flowId", doc}}.dump());
  REQUIRE_MESSAGE(with_doc.status == 201, with_doc.body);
  CHECK(Body(with_doc)["flowId"] == doc);
  CheckProblem(env.Admin("POST", t + "/keys", {{"environment", "test"}, {"scopes", {"*"}},
                                                {"flows", {"flw_00000000000000000000000000000099"}}}),
               404, "FLOW_NOT_FOUND");
  // Archiving the application stops its keys.
  REQUIRE(env.Admin("POST", t + "/applications/" + lend + "/archive").status == 200);
  CheckProblem(env.Call(lend_key, "GET", "/v1/verification-sessions"), 403, "APPLICATION_ARCHIVED");
  CheckProblem(Settings(env, env.tenant, lend, {{"allowedFlows", {full}}}), 403, "APPLICATION_ARCHIVED");
  CHECK(env.Call(shop_key, "GET", "/v1/verification-sessions").status == 200);
}

TEST_CASE("embedded sessions: backend and browser create, init once from an allowed origin, policy, the token's reach, verify") {
  BOTH_BACKENDS;
  Env env(kafka, {}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string shop = env.NewApplication(env.tenant, "Shop");
  const std::string full = Flow(env, env.tenant, "full", FullFlow());
  const std::string doc = Flow(env, env.tenant, "doc", DocumentFlow());
  REQUIRE(Settings(env, env.tenant, shop, {{"allowedFlows", {full, doc}}, {"allowedOrigins", {"https://shop.example", "http://localhost:5173"}}})
              .status == 200);

  // Backend create: a secret key, allowedOrigins validated, Idempotency-Key honoured.
  const core::Json body = {{"allowedOrigins", {"https://shop.example"}}, {"flowId", full},
                           {"clientReference", "order-7"}, {"policy", {{"testOutcome", "approved"}}}};
  auto created = env.Call(k, "POST", "/v1/embedded/sessions", body.dump(), {{"Idempotency-Key", "emb-1"}});
  REQUIRE_MESSAGE(created.status == 201, created.body);
  core::Json c = Body(created);
  const std::string ems = c["id"], secret = c["clientSecret"], vrf = c["verificationSessionId"];
  CHECK(ems.rfind("ems_", 0) == 0);
  CHECK(secret.rfind(ems + "_secret_", 0) == 0);
  CHECK(c["status"] == "open");
  CHECK(c["allowedOrigins"] == core::Json::array({"https://shop.example"}));
  auto again = env.Call(k, "POST", "/v1/embedded/sessions", body.dump(), {{"Idempotency-Key", "emb-1"}});
  CHECK(again.status == 201);
  CHECK(Body(again)["id"] == ems);
  CHECK(Body(again)["clientSecret"] == secret);  // the same secret, never stored
  core::Json session = Body(env.Call(k, "GET", "/v1/verification-sessions/" + vrf));
  CHECK(session["channel"] == "embed");
  CHECK(session["flowId"] == full);
  CheckProblem(env.Call(k, "POST", "/v1/embedded/sessions", core::Json{{"flowId", full}}.dump()), 422,
               "ALLOWED_ORIGINS_REQUIRED");
  CheckProblem(env.Call(k, "POST", "/v1/embedded/sessions", core::Json{{"allowedOrigins", {"http://shop.example"}}}.dump()),
               422, "ORIGIN_INVALID");
  CheckProblem(env.Call(k, "POST", "/v1/embedded/sessions", core::Json{{"allowedOrigins", {"https://*.example"}}}.dump()),
               422, "ORIGIN_INVALID");
  CheckProblem(env.Call(env.live_key, "POST", "/v1/embedded/sessions",
                        core::Json{{"allowedOrigins", {"https://shop.example"}}, {"testMode", true}}.dump()),
               400, "TEST_MODE_CONFLICTS_WITH_KEY_ENVIRONMENT");
  // Live sessions of the embedded and link channels need the application's privacy notice (the
  // consent links it); test sessions and the api channel do not.
  const std::string live_body = core::Json{{"allowedOrigins", {"https://shop.example"}}}.dump();
  CheckProblem(env.Call(env.live_key, "POST", "/v1/embedded/sessions", live_body), 422, "PRIVACY_NOTICE_REQUIRED");
  CheckProblem(env.Create(env.live_key, "live-link", R"({"channel":"link"})"), 422, "PRIVACY_NOTICE_REQUIRED");
  CHECK(env.Create(env.live_key, "live-api", R"({"channel":"api"})").status == 201);
  const std::string live_app = Body(env.Create(env.live_key, "live-api", R"({"channel":"api"})"))["applicationId"];
  CheckProblem(env.Admin("POST", "/admin/tenants/" + env.tenant + "/applications/" + live_app + "/settings",
                         {{"privacyNoticeUrl", "http://shop.example/aviso"}}),
               422, "VALIDATION_ERROR");
  REQUIRE(env.Admin("POST", "/admin/tenants/" + env.tenant + "/applications/" + live_app + "/settings",
                    {{"privacyNoticeUrl", "https://shop.example/aviso-de-privacidad"}})
              .status == 200);
  CHECK(env.Call(env.live_key, "POST", "/v1/embedded/sessions", live_body).status == 201);
  CHECK(env.Create(env.live_key, "live-link", R"({"channel":"link"})").status == 201);
  CHECK(env.Call(k, "POST", "/v1/embedded/sessions",
                 core::Json{{"allowedOrigins", {"https://shop.example"}}, {"testMode", true}}.dump())
            .status == 201);
  CheckProblem(env.Call(k, "POST", "/v1/embedded/sessions",
                        core::Json{{"allowedOrigins", {"https://shop.example"}}, {"channel", "api"}}.dump()),
               422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", "/v1/embedded/sessions", "{not json"), 400, "BAD_REQUEST");
  CheckProblem(env.Call("", "POST", "/v1/embedded/sessions", body.dump()), 401, "AUTHENTICATION_REQUIRED");

  // Policy: public, the CSP frame-ancestors of the widget.
  auto policy = env.Call("", "GET", "/v1/embedded/sessions/" + ems + "/policy");
  REQUIRE(policy.status == 200);
  CHECK(Body(policy)["frameAncestors"] == "https://shop.example");
  CheckProblem(env.Call("", "GET", "/v1/embedded/sessions/ems_00000000000000000000000000000099/policy"), 404,
               "SESSION_NOT_FOUND");
  CheckProblem(env.Call("", "GET", "/v1/embedded/sessions/nonsense/policy"), 404, "SESSION_NOT_FOUND");

  // Init: the secret swapped once, from an allowed origin.
  CheckProblem(Init(env, ems + "_secret_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "https://shop.example"), 401, "SESSION_INVALID");
  CheckProblem(Init(env, "garbage", "https://shop.example"), 401, "SESSION_INVALID");
  CheckProblem(env.Call("", "POST", "/v1/embedded/sessions/init", "{}"), 422, "VALIDATION_ERROR");
  CheckProblem(Init(env, secret, "https://evil.example"), 403, "ORIGIN_NOT_ALLOWED");
  auto init = Init(env, secret, "https://shop.example");
  REQUIRE_MESSAGE(init.status == 200, init.body);
  core::Json in = Body(init);
  const std::string token = in["applicantToken"];
  CHECK(token.rfind("atok_", 0) == 0);
  CHECK(in["sessionId"] == ems);
  CHECK(in["verificationSessionId"] == vrf);
  CHECK(in["flow"]["steps"] ==
        core::Json::array({"consent", "document_front", "document_back", "selfie", "liveness", "submit"}));
  // Again from the same page (its frame reloaded, issue 69): a new token, where the session is.
  auto remounted = Init(env, secret, "https://shop.example");
  REQUIRE_MESSAGE(remounted.status == 200, remounted.body);
  CHECK(Body(remounted)["applicantToken"] != token);
  CHECK(Body(remounted)["resume"] == core::Json{{"consentGiven", false},
                                                {"requestedCaptures", core::Json::array()},
                                                {"requestedInput", nullptr},
                                                {"processing", false},
                                                {"submission", nullptr},
                                                {"capturedKinds", core::Json::array()}});

  // The applicant token: its session's capture routes only.
  const std::string base = "/v1/verification-sessions/" + vrf;
  CHECK(env.Call(token, "GET", base).status == 200);
  CheckProblem(env.Call(token, "GET", "/v1/verification-sessions"), 401, "SESSION_INVALID");
  CheckProblem(env.Call(token, "GET", base + "/evidence"), 401, "SESSION_INVALID");
  auto other = env.Create(k, "emb-other");
  CheckProblem(env.Call(token, "GET", "/v1/verification-sessions/" + Body(other)["id"].get<std::string>()), 401,
               "SESSION_INVALID");
  CheckProblem(env.Call("atok_forged", "GET", base), 401, "SESSION_INVALID");
  REQUIRE(env.Call(token, "POST", base + "/consent", R"({"accepted":true})").status == 200);
  for (const auto& [kind, mime, bytes] : std::vector<svc::testing::Capture>{
           {"document_front", "image/jpeg", svc::testing::Jpeg(1280, 800)},
           {"document_back", "image/jpeg", svc::testing::Jpeg(1280, 801)},
           {"selfie", "image/jpeg", svc::testing::Jpeg(720, 960)},
           {"liveness_video", "video/mp4", svc::testing::Mp4()}}) {
    auto up = svc::testing::Upload(env, token, vrf, kind, mime, bytes);
    REQUIRE_MESSAGE(up.status == 201, up.body);
  }
  // Verify, from the backend: processing until the verdict, then completed and final.
  auto early = env.Call(k, "POST", "/v1/embedded/sessions/" + ems + "/verify");
  REQUIRE_MESSAGE(early.status == 200, early.body);
  CHECK(Body(early)["phase"] == "processing");
  CHECK(Body(early)["isFinal"] == false);
  CHECK(Body(early)["status"] == "mounted");
  CHECK(Body(early)["mountedAt"].is_string());
  REQUIRE(env.Call(token, "POST", base + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  core::Json v = Body(env.Call(k, "POST", "/v1/embedded/sessions/" + ems + "/verify"));
  CHECK(v["phase"] == "completed");
  CHECK(v["isFinal"] == true);
  CHECK(v["verificationStatus"] == "approved");
  CHECK(v["decision"].is_object());
  CHECK(v["clientReference"] == "order-7");
  CHECK(v["trustScore"].is_number());
  // The session is over: the token can no longer capture.
  CHECK(svc::testing::Upload(env, token, vrf, "selfie", "image/jpeg", svc::testing::Jpeg(720, 960)).status == 409);
  CheckProblem(env.Call(k, "POST", "/v1/embedded/sessions/ems_00000000000000000000000000000099/verify"), 404,
               "SESSION_NOT_FOUND");
  const std::string stranger = env.NewKey(env.NewTenant("Stranger"), "test", {"*"});
  CheckProblem(env.Call(stranger, "POST", "/v1/embedded/sessions/" + ems + "/verify"), 404, "SESSION_NOT_FOUND");
  CheckProblem(env.Call(env.live_key, "POST", "/v1/embedded/sessions/" + ems + "/verify"), 404, "SESSION_NOT_FOUND");

  // Browser create: a publishable key, from a page of the application's origins, a published flow.
  const std::string pk = PublishableKey(env, env.tenant, shop);
  const std::map<std::string, std::string> from_shop = {{"Origin", "https://shop.example"}};
  auto browser = env.Call(pk, "POST", "/v1/embedded/sessions/browser",
                          core::Json{{"allowedOrigins", {"https://shop.example"}}, {"flow", "doc"}}.dump(), from_shop);
  REQUIRE_MESSAGE(browser.status == 201, browser.body);
  CHECK(svc::testing::HeaderOf(browser, "Access-Control-Allow-Origin") == "*");
  const std::string bsecret = Body(browser)["clientSecret"];
  const std::string bvrf = Body(browser)["verificationSessionId"];
  CHECK(Body(env.Call(k, "GET", "/v1/verification-sessions/" + bvrf))["flowId"] == doc);
  auto binit = Init(env, bsecret, "https://shop.example");
  REQUIRE(binit.status == 200);
  CHECK(Body(binit)["flow"]["steps"] == core::Json::array({"consent", "document_front", "submit"}));
  auto preflight = env.Call("", "OPTIONS", "/v1/embedded/sessions/browser", "", from_shop);
  CHECK(preflight.status == 204);
  CHECK(svc::testing::HeaderOf(preflight, "Access-Control-Allow-Origin") == "*");
  const std::string bbody = core::Json{{"allowedOrigins", {"https://shop.example"}}, {"flow", "doc"}}.dump();
  CheckProblem(env.Call(k, "POST", "/v1/embedded/sessions/browser", bbody, from_shop), 403, "PUBLISHABLE_KEY_REQUIRED");
  CheckProblem(env.Call(pk, "POST", "/v1/embedded/sessions/browser", bbody), 403, "ORIGIN_NOT_ALLOWED");
  CheckProblem(env.Call(pk, "POST", "/v1/embedded/sessions/browser", bbody, {{"Origin", "https://evil.example"}}), 403,
               "ORIGIN_NOT_ALLOWED");
  CheckProblem(env.Call(pk, "POST", "/v1/embedded/sessions/browser",
                        core::Json{{"allowedOrigins", {"https://shop.example", "https://other.example"}}, {"flow", "doc"}}.dump(),
                        from_shop),
               422, "NOT_ALLOWED_BY_APPLICATION");
  CheckProblem(env.Call(pk, "POST", "/v1/embedded/sessions/browser", core::Json{{"flow", "doc"}}.dump(), from_shop), 422,
               "ALLOWED_ORIGINS_REQUIRED");
  CheckProblem(env.Call(pk, "POST", "/v1/embedded/sessions/browser",
                        core::Json{{"allowedOrigins", {"https://shop.example"}}}.dump(), from_shop),
               422, "FLOW_REQUIRED");
  Flow(env, env.tenant, "unpublished", DocumentFlow(), false);
  CheckProblem(env.Call(pk, "POST", "/v1/embedded/sessions/browser",
                        core::Json{{"allowedOrigins", {"https://shop.example"}}, {"flow", "unpublished"}}.dump(), from_shop),
               409, "FLOW_NOT_PUBLISHABLE");
  CheckProblem(env.Call(pk, "POST", "/v1/embedded/sessions/browser",
                        core::Json{{"allowedOrigins", {"https://shop.example"}}, {"flow", "doc"}, {"personId", "per_1"}}.dump(),
                        from_shop),
               422, "VALIDATION_ERROR");
  const std::string pk_doc = PublishableKey(env, env.tenant, shop, {doc});
  CheckProblem(env.Call(pk_doc, "POST", "/v1/embedded/sessions/browser",
                        core::Json{{"allowedOrigins", {"https://shop.example"}}, {"flow", "full"}}.dump(), from_shop),
               403, "FLOW_NOT_ALLOWED_FOR_KEY");
  // A publishable key opens nothing else.
  CheckProblem(env.Call(pk, "GET", "/v1/verification-sessions"), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(pk, "POST", "/v1/embedded/sessions", body.dump()), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(pk, "POST", "/v1/embedded/sessions/" + ems + "/verify"), 403, "INSUFFICIENT_SCOPE");
  // The default application has no origins: its publishable key opens no browser session.
  const std::string pk_default = PublishableKey(env, env.tenant, DefaultApp(env, env.tenant));
  CheckProblem(env.Call(pk_default, "POST", "/v1/embedded/sessions/browser", bbody, from_shop), 403, "ORIGIN_NOT_ALLOWED");
}

TEST_CASE("embedded: the widget's files, the frame's CSP from the session, and the hosted page of a link session") {
  Env env(false);
  const std::string k = env.test_key;
  auto loader = env.Call("", "GET", "/embed/v1/loader.js");
  REQUIRE(loader.status == 200);
  CHECK(loader.content_type.find("text/javascript") == 0);
  CHECK(svc::testing::HeaderOf(loader, "Cross-Origin-Resource-Policy") == "cross-origin");
  CHECK(loader.body.find("SvcEmbed") != std::string::npos);
  CHECK(env.Call("", "GET", "/embed/v1/widget.js").status == 200);
  // Served gzipped when accepted, with a strong ETag: a revalidation is a 304 with no body.
  auto plain = env.Call("", "GET", "/embed/v1/widget.js");
  auto zipped = env.Call("", "GET", "/embed/v1/widget.js", "", {{"Accept-Encoding", "gzip, deflate, br"}});
  REQUIRE(zipped.status == 200);
  CHECK(svc::testing::HeaderOf(zipped, "Content-Encoding") == "gzip");
  CHECK(svc::testing::HeaderOf(zipped, "Vary") == "Accept-Encoding");
  CHECK(zipped.body.size() < plain.body.size() / 2);
  CHECK(zipped.body.substr(0, 2) == std::string("\x1f\x8b", 2));
  CHECK(svc::testing::HeaderOf(plain, "Content-Encoding").empty());
  const std::string etag = svc::testing::HeaderOf(plain, "ETag");
  CHECK(etag.size() == 34);
  CHECK(svc::testing::HeaderOf(zipped, "ETag") == etag);
  auto revalidated = env.Call("", "GET", "/embed/v1/widget.js", "", {{"If-None-Match", etag}, {"Accept-Encoding", "gzip"}});
  CHECK(revalidated.status == 304);
  CHECK(revalidated.body.empty());
  CHECK(env.Call("", "GET", "/embed/v1/widget.js", "", {{"If-None-Match", "\"other\""}}).status == 200);
  CHECK(env.Call("", "GET", "/embed/v1/widget.js", "", {{"Accept-Encoding", "gzip;q=0"}}).body == plain.body);
  CHECK(env.Call("", "GET", "/console/app.js", "", {{"If-None-Match", svc::testing::HeaderOf(env.Call("", "GET", "/console/app.js"), "ETag")}}).status == 304);
  CHECK(env.Call("", "GET", "/embed/v1/widget.css").status == 200);
  auto created = env.Call(k, "POST", "/v1/embedded/sessions",
                          core::Json{{"allowedOrigins", {"https://shop.example", "http://localhost:3000"}}}.dump());
  REQUIRE(created.status == 201);
  auto frame = env.Call("", "GET", "/embed/v1/frame/" + Body(created)["id"].get<std::string>());
  REQUIRE(frame.status == 200);
  CHECK(frame.content_type.find("text/html") == 0);
  const std::string csp = svc::testing::HeaderOf(frame, "Content-Security-Policy");
  CHECK(csp.find("frame-ancestors https://shop.example http://localhost:3000") != std::string::npos);
  CHECK(csp.find("default-src 'none'") != std::string::npos);
  CHECK(svc::testing::HeaderOf(frame, "Cache-Control") == "no-store");
  auto unknown = env.Call("", "GET", "/embed/v1/frame/ems_00000000000000000000000000000099");
  CheckProblem(unknown, 404, "SESSION_NOT_FOUND");
  CHECK(svc::testing::HeaderOf(unknown, "Content-Security-Policy").find("frame-ancestors 'none'") != std::string::npos);

  // The hosted page of a link session: the same page, never framed; the link is its credential.
  auto link = env.Create(k, "hosted-1", core::Json{{"channel", "link"}, {"checks", {{"liveness", false}}},
                                                   {"redirectUrl", "https://shop.example/kyc/done?order=7"},
                                                   {"policy", {{"testOutcome", "declined"}}}}.dump());
  REQUIRE_MESSAGE(link.status == 201, link.body);
  const std::string token = Body(link)["linkToken"], vrf = Body(link)["id"];
  // Without --public-base-url the link names where this server answers (its bound port).
  CHECK(Body(link)["hostedUrl"] ==
        "http://127.0.0.1:" + std::to_string(env.server->target().port) + "/v/" + token);
  auto page = env.Call("", "GET", "/v/" + token);
  REQUIRE(page.status == 200);
  CHECK(svc::testing::HeaderOf(page, "Content-Security-Policy").find("frame-ancestors 'none'") != std::string::npos);
  CHECK(svc::testing::HeaderOf(page, "X-Frame-Options") == "DENY");
  auto open = env.Call("", "POST", "/embed/v1/hosted/init", core::Json{{"linkToken", token}}.dump());
  REQUIRE_MESSAGE(open.status == 200, open.body);
  const std::string atok = Body(open)["applicantToken"];
  CHECK(Body(open)["verificationSessionId"] == vrf);
  CHECK(Body(open)["redirectUrl"] == "https://shop.example/kyc/done?order=7");
  CHECK(Body(open)["flow"]["steps"] == core::Json::array({"consent", "document_front", "document_back", "selfie", "submit"}));
  CheckProblem(env.Call("", "POST", "/embed/v1/hosted/init", core::Json{{"linkToken", "forged"}}.dump()), 401,
               "SESSION_INVALID");
  CheckProblem(env.Call("", "POST", "/embed/v1/hosted/init", "{}"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call("", "POST", "/embed/v1/hosted/init", "[1"), 400, "BAD_REQUEST");
  // The token walks the session; a second open (another device) gets another token.
  const std::string base = "/v1/verification-sessions/" + vrf;
  REQUIRE(env.Call(atok, "POST", base + "/consent", R"({"accepted":true})").status == 200);
  auto again = env.Call("", "POST", "/embed/v1/hosted/init", core::Json{{"linkToken", token}}.dump());
  REQUIRE(again.status == 200);
  const std::string atok2 = Body(again)["applicantToken"];
  CHECK(atok2 != atok);
  // A handoff (issue 69, item 8): the page asks for a link to continue on a phone; it opens once,
  // where the session is (consent given), and is no credential for anything else.
  auto handoff = env.Call(atok, "POST", base + "/handoff");
  REQUIRE_MESSAGE(handoff.status == 201, handoff.body);
  CHECK(Body(handoff)["object"] == "handoff");
  CHECK(Body(handoff)["sessionId"] == vrf);
  const std::string handoff_url = Body(handoff)["url"];
  const std::string prefix = "http://127.0.0.1:" + std::to_string(env.server->target().port) + "/v/";
  REQUIRE(handoff_url.rfind(prefix, 0) == 0);
  const std::string handoff_token = handoff_url.substr(prefix.size());
  CHECK(handoff_token != token);
  CHECK(Body(handoff)["expiresAt"].is_string());
  CHECK(svc::testing::HeaderOf(handoff, "Cache-Control") == "no-store");
  CheckProblem(env.Call(atok, "POST", base + "/handoff", "{}", {{"Content-Type", "application/json"}}), 400, "BAD_REQUEST");
  auto phone = env.Call("", "POST", "/embed/v1/hosted/init", core::Json{{"linkToken", handoff_token}}.dump());
  REQUIRE_MESSAGE(phone.status == 200, phone.body);
  CHECK(Body(phone)["verificationSessionId"] == vrf);
  CHECK(Body(phone)["resume"]["consentGiven"] == true);
  CHECK(Body(phone)["flow"]["steps"] == Body(open)["flow"]["steps"]);
  CheckProblem(env.Call("", "POST", "/embed/v1/hosted/init", core::Json{{"linkToken", handoff_token}}.dump()), 409,
               "SESSION_ALREADY_USED");
  CheckProblem(env.Call(k, "POST", "/v1/verification-sessions/" + Body(env.Create(k, "hosted-api"))["id"].get<std::string>() +
                                        "/handoff"),
               409, "CAPTURE_NOT_ALLOWED");
  for (const auto& [kind, mime, bytes] : std::vector<svc::testing::Capture>{
           {"document_front", "image/jpeg", svc::testing::Jpeg(1280, 800)},
           {"document_back", "image/jpeg", svc::testing::Jpeg(1280, 801)},
           {"selfie", "image/jpeg", svc::testing::Jpeg(720, 960)}}) {
    REQUIRE(svc::testing::Upload(env, atok2, vrf, kind, mime, bytes).status == 201);
  }
  CheckProblem(svc::testing::Upload(env, atok2, vrf, "liveness_video", "video/mp4", svc::testing::Mp4()), 409,
               "CAPTURE_NOT_ALLOWED");
  REQUIRE(env.Call(atok, "POST", base + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  CHECK(Body(env.Call(k, "GET", base))["status"] == "declined");
  // Over: the link opens the outcome (issue 69); its token reads, and can no longer capture or submit.
  auto after = env.Call("", "POST", "/embed/v1/hosted/init", core::Json{{"linkToken", token}}.dump());
  REQUIRE_MESSAGE(after.status == 200, after.body);
  CHECK(Body(after)["verificationStatus"] == "declined");
  CHECK(Body(after)["resume"]["consentGiven"] == true);
  CHECK(Body(after)["resume"]["submission"].is_string());
  const std::string late = Body(after)["applicantToken"];
  CHECK(env.Call(late, "GET", base).status == 200);
  CheckProblem(svc::testing::Upload(env, late, vrf, "selfie", "image/jpeg", svc::testing::Jpeg(720, 960)), 409,
               "SESSION_COMPLETED");
  CheckProblem(env.Call(late, "POST", base + "/submit"), 409, "SESSION_COMPLETED");
  // An API-channel session has no link.
  CHECK(Body(env.Create(k, "hosted-2"))["hostedUrl"].is_null());
}

TEST_CASE("embedded: an active-liveness flow through the applicant token — the challenge, then the video with it") {
  Env env(false);
  const std::string k = env.test_key;
  core::Json def = {{"steps", core::Json::array({Step("c", "consent", "f"), Step("f", "document_front", "s"),
                                                 Step("s", "selfie", "l"),
                                                 {{"id", "l"}, {"type", "liveness"}, {"mode", "active"}, {"next", "x"}},
                                                 Step("x", "submit")})},
                    {"checks", {{"document", false}, {"governmentLookup", false}, {"livenessMode", "active"}}}};
  const std::string flow = Flow(env, env.tenant, "active", def);
  auto created = env.Call(k, "POST", "/v1/embedded/sessions",
                          core::Json{{"allowedOrigins", {"https://shop.example"}}, {"flowId", flow}}.dump());
  REQUIRE_MESSAGE(created.status == 201, created.body);
  auto init = Init(env, Body(created)["clientSecret"], "https://shop.example");
  REQUIRE(init.status == 200);
  CHECK(Body(init)["flow"]["livenessMode"] == "active");
  CHECK(Body(init)["flow"]["steps"] == core::Json::array({"consent", "document_front", "selfie", "liveness", "submit"}));
  const std::string token = Body(init)["applicantToken"], vrf = Body(init)["verificationSessionId"];
  const std::string base = "/v1/verification-sessions/" + vrf;
  REQUIRE(env.Call(token, "POST", base + "/consent", R"({"accepted":true})").status == 200);
  // A passive video is refused: the flow's liveness is active.
  CheckProblem(svc::testing::Upload(env, token, vrf, "liveness_video", "video/mp4", svc::testing::Mp4()), 400,
               "CHALLENGE_ID_REQUIRED");
  CheckProblem(svc::testing::Upload(env, token, vrf, "document_back", "image/jpeg", svc::testing::Jpeg(1280, 801)), 409,
               "CAPTURE_NOT_ALLOWED");
  auto ch = env.Call(token, "POST", base + "/liveness-challenges");
  REQUIRE_MESSAGE(ch.status == 201, ch.body);
  CHECK(Body(ch)["actions"].size() == 3);
  const std::string boundary = "svc-test-boundary-7MA4YWxkTrZu0gW";
  const std::string body = svc::testing::Multipart(
      boundary, {{"kind", "", "", "liveness_video"},
                 {"challengeId", "", "", Body(ch)["challengeId"].get<std::string>()},
                 {"file", "liveness.mp4", "video/mp4", svc::testing::Mp4()}});
  auto up = env.Call(token, "POST", base + "/media", body, {{"Content-Type", "multipart/form-data; boundary=" + boundary}});
  CHECK_MESSAGE(up.status == 201, up.body);
}

}  // namespace integration_embedded_test
