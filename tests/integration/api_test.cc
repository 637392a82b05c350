// The /v1 API as an integrator sees it, on both log backends: authentication, scopes, test/live
// and tenant isolation, Idempotency-Key, validation, pagination, consent, rate limits.
#include <doctest/doctest.h>
#include <strings.h>

#include <algorithm>
#include <fstream>
#include <atomic>
#include <optional>
#include <sstream>
#include <set>
#include <thread>

#include "api/http/http_client.h"
#include "core/clock.h"
#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/dev_broker_process.h"
#include "tests/support/http_helpers.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace integration_api_test {

using namespace svc;
using svc::testing::SvcServer;

namespace {

using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;
using svc::testing::HeaderOf;

}  // namespace

TEST_CASE("api: authentication, request ids, revocation on the next request") {
  BOTH_BACKENDS;
  Env env(kafka);
  CheckProblem(env.Call("", "GET", "/v1/verification-sessions"), 401, "AUTHENTICATION_REQUIRED");
  CheckProblem(env.Call("", "GET", "/v1/verification-sessions", "", {{"Authorization", "Basic abc"}}),
               401, "AUTHENTICATION_REQUIRED");
  CheckProblem(env.Call("not-a-key", "GET", "/v1/verification-sessions"), 401, "API_KEY_INVALID");
  CheckProblem(env.Call("svc_test_sk_" + std::string(32, 'A'), "GET", "/v1/verification-sessions"),
               401, "API_KEY_INVALID");
  auto ok = env.Call(env.test_key, "GET", "/v1/verification-sessions", "", {{"X-Request-Id", "mine-1"}});
  CHECK(ok.status == 200);
  CHECK(HeaderOf(ok, "Service-Request-Id").rfind("req_", 0) == 0);  // ours, never the caller's

  std::string doomed = env.NewKey(env.tenant, "test", {"verification:read"});
  CHECK(env.Call(doomed, "GET", "/v1/verification-sessions").status == 200);
  auto keys = Body(env.Admin("GET", "/admin/tenants/" + env.tenant + "/keys"))["data"];
  std::string doomed_id;
  for (const auto& k : keys) {
    if (doomed.substr(doomed.size() - 4) == k["last4"].get<std::string>()) doomed_id = k["id"];
  }
  REQUIRE(env.Admin("POST", "/admin/tenants/" + env.tenant + "/keys/" + doomed_id + "/revoke").status == 200);
  CheckProblem(env.Call(doomed, "GET", "/v1/verification-sessions"), 401, "API_KEY_INVALID");
}

TEST_CASE("api: every route refuses a key without its scope, naming the scope") {
  Env env(false);
  // Two keys, each with one scope: every route is called with the one that lacks its scope.
  std::string weak = env.NewKey(env.tenant, "test", {"kyb:read"});
  std::string weak_other = env.NewKey(env.tenant, "test", {"aml:read"});
  // Every operation of the served OpenAPI document (which is generated from the route table).
  auto doc_resp = env.Call("", "GET", "/v1/openapi.json");
  REQUIRE(doc_resp.status == 200);
  core::Json doc = Body(doc_resp);
  int checked = 0;
  for (auto p = doc["paths"].begin(); p != doc["paths"].end(); ++p) {
    for (auto m = p->begin(); m != p->end(); ++m) {
      if (!m->contains("x-required-scope")) continue;  // public (this document)
      std::string path = p.key();
      for (const auto& [name, id] : std::vector<std::pair<std::string, std::string>>{
               {"{session_id}", "vrf_00000000000000000000000000000000"},
               {"{person_id}", "per_00000000000000000000000000000000"},
               {"{token_id}", "ctok_00000000000000000000000000000000"}}) {
        if (auto at = path.find(name); at != std::string::npos) path.replace(at, name.size(), id);
      }
      std::string method = m.key();
      for (auto& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      CAPTURE(method);
      CAPTURE(path);
      const std::string& key = (*m)["x-required-scope"] == "kyb:read" ? weak_other : weak;
      auto resp = env.Call(key, method, path, method == "POST" ? "{}" : "",
                           {{"Idempotency-Key", "scope-test"}});
      CheckProblem(resp, 403, "INSUFFICIENT_SCOPE");
      CHECK(Body(resp)["requiredScope"] == (*m)["x-required-scope"]);
      ++checked;
    }
  }
  CHECK(checked >= 4);
  // Wildcards: per resource and total.
  std::string res = env.NewKey(env.tenant, "test", {"verification:*"});
  CHECK(env.Call(res, "GET", "/v1/verification-sessions").status == 200);
  CHECK(env.Call(env.test_key, "GET", "/v1/verification-sessions").status == 200);
}

TEST_CASE("api: test and live are separate; another tenant's id is 404, never data") {
  BOTH_BACKENDS;
  Env env(kafka);
  auto created = env.Create(env.test_key, "iso-1");
  REQUIRE(created.status == 201);
  std::string id = Body(created)["id"];
  CHECK(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + id).status == 200);
  CheckProblem(env.Call(env.live_key, "GET", "/v1/verification-sessions/" + id), 404, "SESSION_NOT_FOUND");
  CHECK(Body(env.Call(env.live_key, "GET", "/v1/verification-sessions"))["data"].empty());
  CheckProblem(env.Call(env.live_key, "POST", "/v1/verification-sessions/" + id + "/consent",
                        R"({"accepted":true})"),
               404, "SESSION_NOT_FOUND");

  std::string other = env.NewTenant("Other");
  std::string other_key = env.NewKey(other, "test", {"*"});
  CheckProblem(env.Call(other_key, "GET", "/v1/verification-sessions/" + id), 404, "SESSION_NOT_FOUND");
  CHECK(Body(env.Call(other_key, "GET", "/v1/verification-sessions"))["data"].empty());
  CheckProblem(env.Call(other_key, "POST", "/v1/verification-sessions/" + id + "/consent",
                        R"({"accepted":true})"),
               404, "SESSION_NOT_FOUND");
  // Another tenant's application id in a create is not found either.
  auto apps = Body(env.Admin("GET", "/admin/tenants"))["data"];
  std::string acme_app;
  for (const auto& t : apps) {
    if (t["id"] == env.tenant) acme_app = t["defaultApplicationId"];
  }
  CheckProblem(env.Create(other_key, "iso-2", R"({"channel":"api","applicationId":")" + acme_app + "\"}"),
               404, "APPLICATION_NOT_FOUND");
}

TEST_CASE("api: Idempotency-Key on create") {
  BOTH_BACKENDS;
  // Kills and restarts its server, on another port: the public base URL is fixed, as a deployment's
  // is, so that the link's hostedUrl is the same before and after (without it, it names the port).
  Env env(kafka, {"--public-base-url", "https://verify.example"}, Sharing::kIsolated);
  CheckProblem(env.Call(env.test_key, "POST", "/v1/verification-sessions", R"({"channel":"api"})"),
               400, "IDEMPOTENCY_KEY_REQUIRED");
  CheckProblem(env.Create(env.test_key, ""), 400, "IDEMPOTENCY_KEY_INVALID");
  CheckProblem(env.Create(env.test_key, std::string(256, 'k')), 400, "IDEMPOTENCY_KEY_INVALID");
  CHECK(env.Create(env.test_key, std::string(255, 'k')).status == 201);

  auto first = env.Create(env.test_key, "same", R"({"channel":"link","clientReference":"o-1"})");
  REQUIRE(first.status == 201);
  auto again = env.Create(env.test_key, "same", R"({"channel":"link","clientReference":"o-1"})");
  CHECK(again.status == 201);
  CHECK(again.body == first.body);  // same status and body, link token included
  // A replay says so in a header (as payment APIs do); the first answer has none.
  CHECK(HeaderOf(again, "Idempotent-Replayed") == "true");
  CHECK(HeaderOf(first, "Idempotent-Replayed").empty());
  // The same parameters written another way (spaces, member order, an escape) are the same request.
  auto reformatted = env.Create(env.test_key, "same", "{ \"clientReference\" : \"o-\\u0031\",\n \"channel\": \"link\" }");
  CHECK(reformatted.status == 201);
  CHECK(reformatted.body == first.body);
  CHECK(HeaderOf(reformatted, "Idempotent-Replayed") == "true");
  CheckProblem(env.Create(env.test_key, "same", R"({"channel":"api"})"), 409, "IDEMPOTENCY_KEY_REUSED");
  // Keys are per tenant and environment: the live key may use the same one (a live link session
  // needs the application's privacy notice).
  const std::string app = Body(first)["applicationId"];
  REQUIRE(env.Admin("POST", "/admin/tenants/" + env.tenant + "/applications/" + app + "/settings",
                    {{"privacyNoticeUrl", "https://verify.example/aviso"}})
              .status == 200);
  auto live = env.Create(env.live_key, "same", R"({"channel":"link","clientReference":"o-1"})");
  CHECK(live.status == 201);
  CHECK(Body(live)["id"] != Body(first)["id"]);

  // After a restart (the write model is rebuilt from the log if needed) the answer is the same.
  env.server->Kill();
  env.server->Start();
  auto after = env.Create(env.test_key, "same", R"({"channel":"link","clientReference":"o-1"})");
  CHECK(after.status == 201);
  CHECK(after.body == first.body);
  CHECK(HeaderOf(after, "Idempotent-Replayed") == "true");

  // Concurrent duplicates: one session; the others replay it or are told it is in progress.
  std::vector<std::thread> threads;
  std::mutex mu;
  std::vector<api::HttpResponse> answers;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&] {
      auto r = api::HttpCall(env.server->target(), "POST", "/v1/verification-sessions",
                             {{"Authorization", "Bearer " + env.test_key},
                              {"Content-Type", "application/json"},
                              {"Idempotency-Key", "race"}},
                             R"({"channel":"api"})");
      REQUIRE(r.ok());
      std::lock_guard lock(mu);
      answers.push_back(*r);
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> ids;
  for (const auto& a : answers) {
    if (a.status == 201) ids.insert(Body(a)["id"].get<std::string>());
    else CheckProblem(a, 409, "IDEMPOTENCY_KEY_IN_PROGRESS");
  }
  CHECK(ids.size() == 1);
}

TEST_CASE("api: bodies are validated; every field error is reported with its pointer") {
  Env env(false);
  CheckProblem(env.Create(env.test_key, "v1", "{not json"), 400, "BAD_REQUEST");
  CheckProblem(env.Create(env.test_key, "v2", "[1,2]"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(env.test_key, "POST", "/v1/verification-sessions", R"({"channel":"api"})",
                        {{"Idempotency-Key", "v3"}, {"Content-Type", "text/plain"}}),
               415, "UNSUPPORTED_MEDIA_TYPE");
  auto bad = env.Create(env.test_key, "v4",
                        R"({"channel":"API","country":"Mexico","callbackUrl":"ftp://x",)"
                        R"("clientReference":7,"checks":{"liveness":"yes","x":true},)"
                        R"("policy":{"faceMatchThreshold":1.5},"notificationsMode":"email","bogus":1})");
  CheckProblem(bad, 422, "VALIDATION_ERROR");
  std::map<std::string, std::string> by_pointer;
  core::Json errors = Body(bad)["errors"];
  for (const auto& e : errors) by_pointer[e["pointer"].get<std::string>()] = e["code"].get<std::string>();
  CHECK(by_pointer["/channel"] == "invalid_enum");
  CHECK(by_pointer["/country"] == "too_long");
  CHECK(by_pointer["/callbackUrl"] == "invalid_format");
  CHECK(by_pointer["/clientReference"] == "invalid_type");
  CHECK(by_pointer["/checks/liveness"] == "invalid_type");
  CHECK(by_pointer["/checks/x"] == "unknown_field");
  CHECK(by_pointer["/policy/faceMatchThreshold"] == "out_of_range");
  CHECK(by_pointer["/notificationsMode"] == "invalid_enum");
  CHECK(by_pointer["/bogus"] == "unknown_field");
  CHECK(by_pointer.size() == 9);
  CheckProblem(env.Create(env.test_key, "v5", "{}"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/verification-sessions/123e4567-e89b-12d3-a456-426614174000"),
               400, "INVALID_ID");
  // Convention 3 holds in bodies and query strings too: a raw UUID where an opaque id is
  // expected is 400 INVALID_ID (naming every such field), before any field validation.
  const std::string uuid = "123e4567-e89b-12d3-a456-426614174000";
  auto body_ids = env.Create(env.test_key, "v6",
                             R"({"channel":"api","personId":")" + uuid +
                                 R"(","applicationId":")" + uuid + R"(","country":"Mexico"})");
  CheckProblem(body_ids, 400, "INVALID_ID");
  std::set<std::string> pointers;
  core::Json id_errors = Body(body_ids)["errors"];
  for (const auto& e : id_errors) pointers.insert(e["pointer"].get<std::string>());
  CHECK_MESSAGE((pointers == std::set<std::string>{"/personId", "/applicationId"}), body_ids.body);
  CheckProblem(env.Create(env.test_key, "v7", R"({"channel":"api","flowId":"flw_XYZ"})"), 400,
               "INVALID_ID");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/verification-sessions?applicationId=" + uuid), 400,
               "INVALID_ID");
  CheckProblem(env.Call(env.test_key, "POST", "/v1/developer/webhooks",
                        R"({"url":"https://example.com/h","applicationId":")" + uuid + "\"}"),
               400, "INVALID_ID");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/developer/webhooks?applicationId=" + uuid), 400,
               "INVALID_ID");
}

TEST_CASE("api: list pagination with authenticated cursors") {
  BOTH_BACKENDS;
  Env env(kafka);
  std::vector<std::string> created;  // oldest first
  std::vector<std::pair<std::string, std::string>> order;  // (createdAt, id)
  for (int i = 0; i < 25; ++i) {
    auto r = env.Create(env.test_key, "p" + std::to_string(i));
    REQUIRE(r.status == 201);
    created.push_back(Body(r)["id"]);
    order.emplace_back(Body(r)["createdAt"], Body(r)["id"]);
  }
  // The documented order: newest createdAt first; sessions created in the same millisecond by
  // id (ascending), the tie-breaker. `created` becomes that order, reversed (oldest first).
  std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  for (size_t i = 0; i < order.size(); ++i) created[24 - i] = order[i].second;
  auto list = [&](const std::string& q) {
    return env.Call(env.test_key, "GET", "/v1/verification-sessions" + q);
  };
  auto first = Body(list(""));
  CHECK(first["object"] == "list");
  CHECK(first["limit"] == 20);
  CHECK(first["data"].size() == 20);
  CHECK(first["hasMore"] == true);
  CHECK(first["totalCount"].is_null());
  CHECK(first["previousCursor"].is_null());

  // Walk forward in pages of 7: every session once, newest first.
  std::vector<std::string> seen;
  std::string q = "?limit=7&includeTotal=true";
  core::Json page;
  for (;;) {
    page = Body(list(q));
    REQUIRE(page["data"].is_array());
    CHECK(page["totalCount"] == 25);
    for (const auto& s : page["data"]) seen.push_back(s["id"]);
    if (!page["hasMore"].get<bool>()) break;
    q = "?limit=7&includeTotal=true&startingAfter=" + page["nextCursor"].get<std::string>();
  }
  REQUIRE(seen.size() == 25);
  for (size_t i = 0; i < 25; ++i) CHECK(seen[i] == created[24 - i]);
  // And back: the page before the last one.
  auto back = Body(list("?limit=7&endingBefore=" + page["previousCursor"].get<std::string>()));
  REQUIRE(back["data"].size() == 7);
  CHECK(back["data"][0]["id"] == seen[14]);
  CHECK(back["hasMore"] == true);

  std::string cursor = first["nextCursor"];
  std::string altered = cursor;
  altered[2] = altered[2] == 'A' ? 'B' : 'A';
  CheckProblem(list("?startingAfter=" + altered), 400, "INVALID_CURSOR");
  CheckProblem(list("?status=pending&startingAfter=" + cursor), 400, "INVALID_CURSOR");  // other filter
  CheckProblem(list("?startingAfter=" + cursor + "&endingBefore=" + cursor), 400, "BAD_REQUEST");
  CheckProblem(list("?offset=20"), 400, "BAD_REQUEST");
  CheckProblem(list("?page=2"), 400, "BAD_REQUEST");
  for (const char* bad : {"0", "101", "abc", "-1"}) {
    auto r = list(std::string("?limit=") + bad);
    CheckProblem(r, 422, "LIMIT_OUT_OF_RANGE");
    CHECK(Body(r)["maximum"] == 100);
  }
  CHECK(Body(list("?limit=100"))["data"].size() == 25);
  CheckProblem(list("?status=done"), 422, "VALIDATION_ERROR");

  // Filters.
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + created[3] + "/consent",
                   R"({"accepted":true})").status == 200);
  auto in_progress = Body(list("?status=in_progress&includeTotal=true"));
  REQUIRE(in_progress["data"].size() == 1);
  CHECK(in_progress["data"][0]["id"] == created[3]);
  CHECK(in_progress["totalCount"] == 1);
  CHECK(Body(list("?status=pending&includeTotal=true"))["totalCount"] == 24);
  std::string app = Body(list("?limit=1"))["data"][0]["applicationId"];
  CHECK(Body(list("?applicationId=" + app + "&includeTotal=true"))["totalCount"] == 25);
  CHECK(Body(list("?applicationId=" + app + "&status=in_progress&includeTotal=true"))["totalCount"] == 1);
}

TEST_CASE("api: consent moves a session; its state rules hold") {
  BOTH_BACKENDS;
  Env env(kafka);
  std::string a = Body(env.Create(env.test_key, "c1"))["id"];
  std::string b = Body(env.Create(env.test_key, "c2"))["id"];
  auto consent = [&](const std::string& id, const std::string& body) {
    return env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/consent", body);
  };
  auto ok = consent(a, R"({"accepted":true,"policyVersion":"2026-01","subjectIpAddress":"203.0.113.7",)"
                       R"("subjectUserAgent":"Mozilla/5.0","consentedAt":"2026-11-22T10:00:00Z"})");
  REQUIRE(ok.status == 200);
  CHECK(Body(ok)["consentGiven"] == true);
  CHECK(Body(ok)["status"] == "in_progress");
  CHECK(Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + a))["status"] == "in_progress");
  CHECK(consent(a, R"({"accepted":true})").status == 200);  // the same answer again
  CheckProblem(consent(a, R"({"accepted":false})"), 409, "INVALID_STATE_TRANSITION");
  auto refused = consent(b, R"({"accepted":false})");
  CHECK(Body(refused)["status"] == "abandoned");
  CheckProblem(consent(b, R"({"accepted":true})"), 409, "SESSION_COMPLETED");
  CheckProblem(consent(b, R"({})"), 422, "VALIDATION_ERROR");
  CheckProblem(consent(a, R"({"accepted":true,"subjectIpAddress":"not an ip"})"), 422, "VALIDATION_ERROR");
  CheckProblem(consent("vrf_00000000000000000000000000000000", R"({"accepted":true})"), 404, "SESSION_NOT_FOUND");
  CheckProblem(consent("per_00000000000000000000000000000000", R"({"accepted":true})"), 400, "INVALID_ID");
}

TEST_CASE("api: rate limits answer 429 with Retry-After") {
  Env env(false, {"--rate-reads", "0.5"});  // bucket of 1, refilled every 2 s
  CHECK(env.Call(env.test_key, "GET", "/v1/verification-sessions").status == 200);
  auto limited = env.Call(env.test_key, "GET", "/v1/verification-sessions");
  CheckProblem(limited, 429, "RATE_LIMITED");
  CHECK(std::stoi(HeaderOf(limited, "Retry-After")) >= 1);
  // Buckets are per key.
  std::string other = env.NewKey(env.tenant, "test", {"*"});
  CHECK(env.Call(other, "GET", "/v1/verification-sessions").status == 200);
}

TEST_CASE("api: sessions expire at expiresAt (timer), then refuse with SESSION_EXPIRED") {
  BOTH_BACKENDS;
  Env env(kafka, {"--fake-clock", "--session-ttl-seconds", "60"});
  auto a = Body(env.Create(env.test_key, "e1"));
  std::string b = Body(env.Create(env.test_key, "e2"))["id"];
  std::string c = Body(env.Create(env.test_key, "e3"))["id"];
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + b + "/consent",
                   R"({"accepted":true})").status == 200);
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + c + "/consent",
                   R"({"accepted":false})").status == 200);
  auto created = core::ParseRfc3339(a["createdAt"].get<std::string>());
  auto expires = core::ParseRfc3339(a["expiresAt"].get<std::string>());
  CHECK(expires->micros - created->micros == 60'000'000);

  auto advance = [&](int seconds) {
    auto r = env.Admin("POST", "/admin/clock", {{"advanceSeconds", seconds}});
    REQUIRE(r.status == 200);
    return Body(r)["sessionsExpired"].get<int>();
  };
  CHECK(advance(59) == 0);
  CHECK(advance(2) == 2);  // the pending and the in-progress one; the abandoned one stays
  CHECK(advance(600) == 0);  // idempotent
  auto got = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + a["id"].get<std::string>()));
  CHECK(got["status"] == "expired");
  CHECK(got["completedAt"].is_string());
  CHECK(Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + c))["status"] == "abandoned");
  CheckProblem(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + a["id"].get<std::string>() + "/consent",
                        R"({"accepted":true})"),
               401, "SESSION_EXPIRED");
  auto expired = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions?status=expired&includeTotal=true"));
  CHECK(expired["totalCount"] == 2);
}

TEST_CASE("api: SIGTERM under load finishes in-flight requests; every 201 is durable") {
  Env env(false, {"--rate-writes", "0"}, Sharing::kIsolated);  // stops its server; no key rate limit
  std::atomic<bool> stop{false};
  std::atomic<int> answered{0};
  std::mutex mu;
  std::vector<std::string> acked;
  std::vector<int> statuses;
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; !stop.load(); ++i) {
        auto r = api::HttpCall(env.server->target(), "POST", "/v1/verification-sessions",
                               {{"Authorization", "Bearer " + env.test_key},
                                {"Content-Type", "application/json"},
                                {"Idempotency-Key", "g-" + std::to_string(c) + "-" + std::to_string(i)}},
                               R"({"channel":"api"})", std::chrono::milliseconds(10000));
        if (!r.ok()) {
          if (stop.load()) break;  // refused or cut before a request started: no answer, fine
          continue;
        }
        answered.fetch_add(1);
        std::lock_guard lock(mu);
        statuses.push_back(r->status);
        if (r->status == 201) acked.push_back(Body(*r)["id"]);
      }
    });
  }
  while (answered.load() < 100) std::this_thread::yield();
  env.server->Stop();  // SIGTERM, waits for the process to exit
  stop.store(true);
  for (auto& t : clients) t.join();
  for (int s : statuses) CHECK_MESSAGE((s == 201 || s == 503), s);  // never a 500, never half
  env.server->Start();
  for (const auto& id : acked) {
    CHECK(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + id).status == 200);
  }
  MESSAGE(acked.size() << " sessions acknowledged before and during shutdown, all present");
}

TEST_CASE("api: a caller's X-Request-Id is recorded in the events (correlationId), ours stays canonical") {
  Env env(true);
  auto r = env.Call(env.test_key, "POST", "/v1/verification-sessions", R"({"channel":"api"})",
                    {{"Idempotency-Key", "corr-1"}, {"X-Request-Id", "trace-abc-123"}});
  REQUIRE(r.status == 201);
  std::string ours = HeaderOf(r, "Service-Request-Id");
  auto consumed = testing::RunProgram("kcat", {"-b", env.broker->bootstraps(), "-C", "-t", "svc.events",
                                               "-o", "beginning", "-e", "-q", "-f", "%s\\n"});
  REQUIRE(consumed.exit_code == 0);
  bool found = false;
  std::istringstream in(consumed.out);
  for (std::string line; std::getline(in, line);) {
    core::Json e = core::ParseJsonOrDiscarded(line);
    if (core::StringOr(e, "type") != "verification.session_created") continue;
    if (core::StringOr(e, "tenantId") != env.tenant) continue;  // the server may be shared
    found = true;
    CHECK(e["correlationId"] == "trace-abc-123");
    CHECK(e["requestId"] == ours);
    CHECK(e["idempotencyKey"] == "corr-1");
  }
  CHECK(found);
}

}  // namespace integration_api_test
