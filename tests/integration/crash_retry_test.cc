// A retry with the same Idempotency-Key after a kill -9 gets the first answer (issue 67): 32
// writers create persons and companies with contended externalRefs, CURPs and RFCs, the server is
// killed under them, and after the restart every key is sent again with its request. Every
// request first answered 2xx is answered again with the same status and the same body, byte for
// byte; none is ever answered 5xx, before the kill or after.
//
// Before the fix a person create retried after a crash answered 500 (embedded log) or closed the
// connection (Kafka): the write model rebuilt the idempotency record of the create's claim from
// the log with a null result (the claim aggregate could not tell its answer again from its
// events), and the create read a member of that null.
#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "core/mx_ids.h"
#include "tests/support/api_env.h"
#include "tests/support/mx_samples.h"

namespace integration_crash_retry_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

std::string Curp(int i) { return testing::NumberedCurp("ROAM", 70, 'M', i); }

std::string Rfc(int i) {
  char first[16];
  std::snprintf(first, sizeof first, "EMP%02d%02d%02dA%c", 10 + i % 10, 1 + i % 12, 1 + i % 28, 'A' + i % 26);
  return std::string(first) + core::mx::RfcCheckDigit(first);
}

struct Request {
  std::string key;
  std::string path;
  std::string body;
};

struct Answer {
  bool answered = false;
  int status = 0;
  std::string body;
};

// The i-th request of a run: mostly person writes (an externalRef of 48, a CURP of 48, so that
// upserts, CURP conflicts and in-progress creates all happen), some plain person creates, and
// company creates with an RFC of 16.
Request RequestOf(int i, std::mt19937& rng) {
  Request r;
  r.key = "retry-" + std::to_string(i);
  const int kind = static_cast<int>(rng() % 10);
  if (kind < 7) {
    core::Json body = {{"pii", {{"email", "persona" + std::to_string(i) + "@example.mx"}}}};
    if (kind < 5) body["externalRef"] = "cliente-" + std::to_string(rng() % 48);
    if (rng() % 3 != 0) body["pii"]["curp"] = Curp(static_cast<int>(rng() % 48));
    r.path = "/v1/persons";
    r.body = body.dump();
  } else {
    r.path = "/v1/companies";
    r.body = core::Json{{"legalName", "Empresa " + std::to_string(i) + ", S.A. de C.V."}, {"rfc", Rfc(static_cast<int>(rng() % 16))}}
                 .dump();
  }
  return r;
}

Answer Send(Env& env, const Request& r) {
  Answer a;
  auto got = api::HttpCall(env.server->target(), "POST", r.path,
                           {{"Authorization", "Bearer " + env.test_key},
                            {"Content-Type", "application/json"},
                            {"Idempotency-Key", r.key}},
                           r.body, std::chrono::milliseconds(20000));
  if (!got.ok()) return a;  // refused or cut off: the kill
  a.answered = true;
  a.status = got->status;
  a.body = got->body;
  return a;
}

}  // namespace

TEST_CASE("crash retry: after kill -9, every Idempotency-Key retried gets its first answer, byte for byte") {
  BOTH_BACKENDS;
  Env env(kafka, {"--rate-writes", "0", "--rate-reads", "0"}, Sharing::kIsolated);
  constexpr int kWriters = 32;
  constexpr int kKillAfter = 600;  // acknowledged writes before the kill; the writers are still sending
  constexpr int kMax = 4000;

  std::mt19937 rng(67);
  std::vector<Request> requests;
  for (int i = 0; i < kMax; ++i) requests.push_back(RequestOf(i, rng));
  std::vector<Answer> first(kMax);

  std::atomic<int> next{0};
  std::atomic<int> acknowledged{0};
  std::atomic<bool> killed{false};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&] {
      for (;;) {
        if (killed.load()) return;
        const int i = next.fetch_add(1);
        if (i >= kMax) return;
        first[i] = Send(env, requests[i]);
        if (first[i].answered && first[i].status < 300) acknowledged.fetch_add(1);
      }
    });
  }
  while (acknowledged.load() < kKillAfter && next.load() < kMax) std::this_thread::yield();
  env.server->Kill();
  killed.store(true);
  for (auto& t : writers) t.join();
  const int sent = std::min(next.load(), kMax);

  int ok = 0, problems = 0, cut = 0, server_errors = 0;
  for (int i = 0; i < sent; ++i) {
    if (!first[i].answered) {
      ++cut;
    } else if (first[i].status >= 500) {
      ++server_errors;
      CHECK_MESSAGE(false, "before the kill " << requests[i].key << " -> " << first[i].status << " " << first[i].body);
    } else if (first[i].status >= 300) {
      ++problems;
    } else {
      ++ok;
    }
  }
  MESSAGE("before the kill: " << sent << " sent, " << ok << " 2xx, " << problems << " 4xx, " << cut
                              << " cut off by the kill, " << server_errors << " 5xx");
  CHECK(ok >= kKillAfter);

  // The restart, then every key again (as a client whose answer was lost would): the answered
  // ones are told their first answer; the cut-off ones are decided (or replayed) once.
  env.server->Start();
  std::vector<Answer> again(sent);
  next.store(0);
  std::vector<std::thread> retriers;
  for (int w = 0; w < 8; ++w) {
    retriers.emplace_back([&] {
      for (int i = next.fetch_add(1); i < sent; i = next.fetch_add(1)) again[i] = Send(env, requests[i]);
    });
  }
  for (auto& t : retriers) t.join();

  int identical = 0, decided = 0;
  for (int i = 0; i < sent; ++i) {
    const auto& a = again[i];
    REQUIRE_MESSAGE(a.answered, requests[i].key << " got no answer after the restart");
    CHECK_MESSAGE(a.status < 500, requests[i].key << " -> " << a.status << " " << a.body);
    if (first[i].answered && first[i].status < 300) {
      CHECK_MESSAGE(a.status == first[i].status, requests[i].key << ": " << first[i].status << " then " << a.status << " " << a.body);
      CHECK_MESSAGE(a.body == first[i].body, requests[i].key << ":\n first " << first[i].body << "\n again " << a.body);
      if (a.status == first[i].status && a.body == first[i].body) ++identical;
    } else if (!first[i].answered && a.status < 300) {
      ++decided;
    }
  }
  MESSAGE("after the restart: " << identical << " of " << ok << " 2xx answers told again byte for byte; " << decided
                                << " cut-off requests decided");
  CHECK(identical == ok);

  // Nothing acknowledged is missing: every person and company answered 2xx (before the kill or
  // after) is there.
  std::set<std::string> persons, companies;
  for (int i = 0; i < sent; ++i) {
    const Answer& a = first[i].answered && first[i].status < 300 ? first[i] : again[i];
    if (a.status >= 300) continue;
    (requests[i].path == "/v1/persons" ? persons : companies).insert(core::ParseJsonOrDiscarded(a.body)["id"].get<std::string>());
  }
  int missing = 0;
  for (const auto& id : persons) missing += env.Call(env.test_key, "GET", "/v1/persons/" + id).status != 200;
  for (const auto& id : companies) missing += env.Call(env.test_key, "GET", "/v1/companies/" + id).status != 200;
  MESSAGE(persons.size() << " persons and " << companies.size() << " companies acknowledged; " << missing << " missing");
  CHECK(missing == 0);
  // At most one holder of each CURP (the blind index's search finds every person with it).
  for (int c = 0; c < 48; ++c) {
    auto found = env.Call(env.test_key, "POST", "/v1/persons/search", core::Json{{"field", "curp"}, {"value", Curp(c)}}.dump());
    REQUIRE(found.status == 200);
    CHECK_MESSAGE(Body(found)["data"].size() <= 1, Curp(c) << " has " << Body(found)["data"].size() << " holders");
  }

  // A second retry of everything is told what the first retry was (the cut-off ones included).
  for (int i = 0; i < sent; i += 7) {
    if (again[i].status >= 300) continue;
    const Answer third = Send(env, requests[i]);
    CHECK_MESSAGE(third.status == again[i].status, requests[i].key);
    CHECK_MESSAGE(third.body == again[i].body, requests[i].key);
  }
}

}  // namespace integration_crash_retry_test
