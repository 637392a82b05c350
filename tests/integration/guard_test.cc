// The credential guard (api/http/credential_guard.h) on the five routes whose credential is not
// an API key: refused credentials are counted, a source that keeps failing gets 429 with
// Retry-After, a target (a token, an embedded session) that keeps being tried gets 429 whatever
// the source, the operator sees it in /metrics and in one warning, and no secret is logged.
// Issue 31: each took about 2,000 guesses a second with no 429 and no signal.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "core/crypto.h"
#include "core/ids.h"
#include "tests/support/api_env.h"

namespace integration_guard_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::HeaderOf;
using svc::testing::Sharing;

namespace {

int64_t Metric(Env& env, const std::string& series) {
  const std::string text = env.Call("", "GET", "/metrics").body;
  const auto at = text.find("\n" + series + " ");
  return at == std::string::npos ? 0 : std::stoll(text.substr(at + series.size() + 2));
}

std::string Hex(size_t n) { return core::HexEncode(core::RandomBytes(n)); }

// Sends `attempt` until it is refused 429; every answer before must be `refused_code`.
int AttemptsUntilThrottled(const std::function<api::HttpResponse()>& attempt, const std::string& refused_code, int limit) {
  for (int i = 1; i <= limit; ++i) {
    auto r = attempt();
    if (r.status == 429) {
      CheckProblem(r, 429, "RATE_LIMITED");
      CHECK(std::stoi(HeaderOf(r, "Retry-After")) >= 1);
      return i;
    }
    REQUIRE_MESSAGE(Body(r)["code"] == refused_code, r.body);
  }
  return -1;
}

}  // namespace

TEST_CASE("guard: refused credentials without an API key are counted, then throttled per source and per target") {
  REQUIRE(core::InitCrypto().ok());
  Env env(false, {}, Sharing::kIsolated);
  const std::string secret_tried = "usk_" + Hex(24);

  // Sign-in: 20 refusals a minute from one source (the default), then 429.
  CHECK(AttemptsUntilThrottled(
            [&] {
              return env.Call("", "POST", "/console/api/sign-in",
                              core::Json{{"secret", secret_tried}, {"environment", "test"}}.dump());
            },
            "API_KEY_INVALID", 40) == 21);
  CHECK(Metric(env, "svc_credential_failures_total{route=\"reviewer_sign_in\"}") == 20);
  CHECK(Metric(env, "svc_credential_throttled_total{route=\"reviewer_sign_in\"}") >= 1);

  // Media links: an altered link, the same way.
  CHECK(AttemptsUntilThrottled([&] { return env.Call("", "GET", "/v1/media-links/mlk1." + Hex(40) + "." + Hex(16)); },
                               "MEDIA_LINK_INVALID", 40) == 21);
  // The hosted page's init.
  CHECK(AttemptsUntilThrottled(
            [&] { return env.Call("", "POST", "/embed/v1/hosted/init", core::Json{{"linkToken", Hex(24)}}.dump()); },
            "SESSION_INVALID", 40) == 21);

  // Per target: one client token tried 10 times is throttled, whoever tries it; another token from
  // the same source is still answered (its source has 10 refusals of its 20).
  const std::string person = Body(env.Call(env.test_key, "POST", "/v1/persons", R"({"externalRef":"guard-1"})"))["id"];
  const std::string decrypt = "/v1/persons/" + person + "/decrypt";
  const std::string body = R"({"fields":["email"],"purpose":"identity_verification","reason":"guard test"})";
  const std::string token = "ctok_" + Hex(16) + "." + Hex(16);
  CHECK(AttemptsUntilThrottled([&] { return env.Call(token, "POST", decrypt, body); }, "CLIENT_TOKEN_INVALID", 40) == 11);
  CheckProblem(env.Call("ctok_" + Hex(16) + "." + Hex(16), "POST", decrypt, body), 401, "CLIENT_TOKEN_INVALID");
  // The embedded init: a clientSecret of one embedded session, 10 times.
  const std::string ems = "ems_" + Hex(16);
  CHECK(AttemptsUntilThrottled(
            [&] {
              return env.Call("", "POST", "/v1/embedded/sessions/init",
                              core::Json{{"clientSecret", ems + "_secret_" + Hex(16)}}.dump());
            },
            "SESSION_INVALID", 40) == 11);

  // API keys are not slowed by any of this.
  CHECK(env.Call(env.test_key, "GET", "/v1/persons/" + person).status == 200);
  // The operator is told once per source and minute, with a hash, never the secret or address.
  std::ifstream in(env.server->stderr_path());
  std::stringstream log;
  log << in.rdbuf();
  CHECK(log.str().find("credential guessing throttled") != std::string::npos);
  CHECK(log.str().find(secret_tried) == std::string::npos);
  CHECK(log.str().find(token) == std::string::npos);
}

TEST_CASE("guard: guessed API keys, applicant tokens and reviewer tokens are throttled per source; a working key is not") {
  // Issue 68, item 10: 2,400–3,600 refusals a second, no 429. The default: 60 refusals a minute
  // per source and kind of credential. The clock stands still (--fake-clock): no refill.
  REQUIRE(core::InitCrypto().ok());
  Env env(false, {"--fake-clock"}, Sharing::kIsolated);
  auto guess = [&] { return env.Call("svc_test_sk_" + Hex(16).substr(0, env.test_key.size() - 12), "GET", "/v1/persons"); };
  // The first refusal; then the tenant's working key, accepted from this source, is remembered.
  CheckProblem(guess(), 401, "API_KEY_INVALID");
  REQUIRE(env.Call(env.test_key, "GET", "/v1/persons").status == 200);
  CHECK(AttemptsUntilThrottled(guess, "API_KEY_INVALID", 100) == 60);
  CHECK(Metric(env, "svc_credential_failures_total{route=\"api_key\"}") == 60);
  CHECK(Metric(env, "svc_credential_throttled_total{route=\"api_key\"}") >= 1);
  // Throttled: the key that worked from here still works; a key never used from here waits.
  CHECK(env.Call(env.test_key, "GET", "/v1/persons").status == 200);
  auto unseen = env.Call(env.live_key, "GET", "/v1/persons");
  CheckProblem(unseen, 429, "RATE_LIMITED");
  CHECK(std::stoi(HeaderOf(unseen, "Retry-After")) >= 1);
  // Another source is not throttled by this one's refusals.
  {
    api::HttpResponse other = env.Call(env.live_key, "GET", "/v1/persons", "", {{"X-Forwarded-For", "198.51.100.7"}});
    CHECK(other.status == 429);  // the peer is the source unless --client-ip-header says otherwise
  }

  // Applicant tokens on the capture routes, and reviewer tokens on the review routes: the same.
  auto session = env.Create(env.test_key, "guard-applicant");
  REQUIRE(session.status == 201);
  const std::string events = "/v1/verification-sessions/" + Body(session)["id"].get<std::string>() + "/events";
  CHECK(AttemptsUntilThrottled([&] { return env.Call("atok_" + Hex(24), "GET", events); }, "SESSION_INVALID", 100) ==
        61);
  CHECK(AttemptsUntilThrottled(
            [&] { return env.Call("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0." + Hex(32), "GET", events); },
            "API_KEY_INVALID", 100) == 61);
}

TEST_CASE("guard: behind a proxy (--client-ip-header), each client address has its own refusals") {
  REQUIRE(core::InitCrypto().ok());
  Env env(false, {"--fake-clock", "--client-ip-header", "X-Forwarded-For", "--guard-key-failures-per-minute", "3"},
          Sharing::kIsolated);
  auto guess = [&](const std::string& from) {
    return env.Call("svc_test_sk_" + Hex(16).substr(0, env.test_key.size() - 12), "GET", "/v1/persons", "",
                    {{"X-Forwarded-For", from + ", 10.0.0.1"}});
  };
  CHECK(AttemptsUntilThrottled([&] { return guess("203.0.113.9"); }, "API_KEY_INVALID", 10) == 4);
  CheckProblem(guess("198.51.100.7"), 401, "API_KEY_INVALID");
  CHECK(env.Call(env.test_key, "GET", "/v1/persons", "", {{"X-Forwarded-For", "198.51.100.7"}}).status == 200);
}

}  // namespace integration_guard_test
