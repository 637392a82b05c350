// Uploads under attack (issue 68, items 2 and 5): the upload slots are shared out per source
// address and per tenant, a body that stalls loses its slot after the stall deadline, a request
// header that stalls is cut before the read timeout, and the captures held in memory come out of
// one budget. The attackers are raw sockets from other loopback addresses (127.0.0.2, …).
#include <doctest/doctest.h>

#include <memory>
#include <thread>

#include "tests/support/api_env.h"
#include "tests/support/raw_connection.h"
#include "tests/support/session_flow.h"

namespace integration_uploads_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::HeaderOf;
using svc::testing::RawConnection;
using svc::testing::Sharing;

namespace {

using namespace std::chrono_literals;

int64_t Metric(Env& env, const std::string& series) {
  const std::string text = env.Call("", "GET", "/metrics").body;
  const auto at = text.find("\n" + series + " ");
  return at == std::string::npos ? 0 : std::stoll(text.substr(at + series.size() + 2));
}

// Polls the server's own gauge until it reads `want` (what the server says it holds).
void AwaitMetric(Env& env, const std::string& series, int64_t want) {
  for (int i = 0; i < 600 && Metric(env, series) != want; ++i) std::this_thread::sleep_for(50ms);
  REQUIRE(Metric(env, series) == want);
}

std::string ConsentedSession(Env& env, const std::string& key, const std::string& idem) {
  auto r = env.Create(key, idem);
  REQUIRE_MESSAGE(r.status == 201, r.body);
  const std::string id = Body(r)["id"];
  auto c = env.Call(key, "POST", "/v1/verification-sessions/" + id + "/consent",
                    R"({"accepted":true,"policyVersion":"privacy-2026-01","subjectIpAddress":"203.0.113.7"})");
  REQUIRE_MESSAGE(c.status == 200, c.body);
  return id;
}

// The header of an upload of `length` bytes; `form` is the start of its body.
std::string UploadHead(const std::string& key, const std::string& session, size_t length, const std::string& form = "") {
  return "POST /v1/verification-sessions/" + session + "/media HTTP/1.1\r\nHost: svc\r\nAuthorization: Bearer " + key +
         "\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: " + std::to_string(length) +
         "\r\n\r\n" + form;
}

// A connection from `from` that sends an upload's header and stalls.
std::unique_ptr<RawConnection> Stalled(Env& env, const std::string& from, const std::string& key,
                                       const std::string& session) {
  auto c = std::make_unique<RawConnection>(env.server->target().port, from);
  c->Send(UploadHead(key, session, 5'000'000));
  return c;
}

// The answer a raw connection got, whole (the server closes after a refusal of an unread body).
std::string Answer(RawConnection& c) {
  bool closed = false;
  std::string got = c.ReadUntilClosed(30s, &closed);
  return got;
}

}  // namespace

TEST_CASE("uploads: a stalled-upload attack takes its source's and its tenant's share of the slots, not another tenant's") {
  Env env(false,
          {"--max-uploads-in-flight", "8", "--max-uploads-per-source", "2", "--max-uploads-per-tenant", "4",
           "--upload-stall-ms", "600000"},
          Sharing::kIsolated);
  const std::string sa = ConsentedSession(env, env.test_key, "slots-a");
  const std::string tenant_b = env.NewTenant("Other");
  const std::string key_b = env.NewKey(tenant_b, "test", {"*"});
  const std::string sb = ConsentedSession(env, key_b, "slots-b");

  // One source: two uploads hold slots; its third is refused at once, 429.
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 1; i <= 2; ++i) {
    held.push_back(Stalled(env, "127.0.0.2", env.test_key, sa));
    AwaitMetric(env, "svc_uploads_in_progress", i);
  }
  auto third = Stalled(env, "127.0.0.2", env.test_key, sa);
  std::string refused = Answer(*third);
  CHECK(refused.rfind("HTTP/1.1 429", 0) == 0);
  CHECK(refused.find("Retry-After: 1") != std::string::npos);
  CHECK(refused.find("\"RATE_LIMITED\"") != std::string::npos);
  CHECK(refused.find("this address") != std::string::npos);
  // Other sources, the same tenant: up to the tenant's share (4), then 429 whatever the source.
  for (const char* from : {"127.0.0.3", "127.0.0.4"}) {
    held.push_back(Stalled(env, from, env.test_key, sa));
    AwaitMetric(env, "svc_uploads_in_progress", static_cast<int64_t>(held.size()));
  }
  auto fifth = Stalled(env, "127.0.0.5", env.test_key, sa);
  refused = Answer(*fifth);
  CHECK(refused.rfind("HTTP/1.1 429", 0) == 0);
  CHECK(refused.find("this account") != std::string::npos);
  CHECK(Metric(env, "svc_uploads_in_progress") == 4);

  // Another tenant's capture is taken while the attack holds its slots.
  auto victim = testing::Upload(env, key_b, sb, "selfie", "image/jpeg", testing::Jpeg(640, 480));
  CHECK_MESSAGE(victim.status == 201, victim.body);
  for (auto& c : held) CHECK(!c->Readable(0ms));  // the stalled uploads are still held

  // The attacker goes: its slots come back, and its tenant uploads again.
  held.clear();
  AwaitMetric(env, "svc_uploads_in_progress", 0);
  auto again = testing::Upload(env, env.test_key, sa, "selfie", "image/jpeg", testing::Jpeg(640, 480));
  CHECK_MESSAGE(again.status == 201, again.body);
}

TEST_CASE("uploads: a body that stalls loses its slot at the stall deadline; a header that stalls is cut before the read timeout") {
  // Every slot taken by two sources; no shares, so only the deadline frees them.
  Env env(false,
          {"--max-uploads-in-flight", "2", "--max-uploads-per-source", "0", "--max-uploads-per-tenant", "0",
           "--upload-stall-ms", "500", "--header-timeout-ms", "500", "--read-timeout-ms", "60000"},
          Sharing::kIsolated);
  const std::string sa = ConsentedSession(env, env.test_key, "stall-a");
  const std::string tenant_b = env.NewTenant("Other");
  const std::string key_b = env.NewKey(tenant_b, "test", {"*"});
  const std::string sb = ConsentedSession(env, key_b, "stall-b");

  auto one = Stalled(env, "127.0.0.2", env.test_key, sa);
  auto two = Stalled(env, "127.0.0.3", env.test_key, sa);
  // The slots are taken: both stalled uploads hold one (or one of them was already cut).
  const int64_t taken = Metric(env, "svc_uploads_in_progress");
  CHECK(taken <= 2);
  // Neither sends a byte more: the server closes both long before the 60-s read timeout.
  bool closed = false;
  one->ReadUntilClosed(20s, &closed);
  CHECK(closed);
  two->ReadUntilClosed(20s, &closed);
  CHECK(closed);
  AwaitMetric(env, "svc_uploads_in_progress", 0);
  auto victim = testing::Upload(env, key_b, sb, "selfie", "image/jpeg", testing::Jpeg(640, 480));
  CHECK_MESSAGE(victim.status == 201, victim.body);

  // A body that keeps coming, slowly but above the minimum rate, is not cut: 64 KiB in pieces.
  {
    RawConnection slow(env.server->target().port, "127.0.0.4");
    const std::string file = testing::Jpeg(640, 480) + std::string(64 * 1024, 'x');
    const std::string form = "--XyZ\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nselfie\r\n"
                             "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\"\r\n"
                             "Content-Type: image/jpeg\r\n\r\n" + file + "\r\n--XyZ--\r\n";
    slow.Send(UploadHead(env.test_key, sa, form.size()));
    for (size_t at = 0; at < form.size(); at += 16 * 1024) {
      slow.Send(form.substr(at, 16 * 1024));
      std::this_thread::sleep_for(100ms);  // the client's pace, not a synchronisation
    }
    const std::string answer = Answer(slow);
    CHECK_MESSAGE(answer.rfind("HTTP/1.1 201", 0) == 0, answer.substr(0, 400));
  }

  // A request header that starts and stalls: the connection is closed at the header deadline.
  RawConnection header(env.server->target().port, "127.0.0.5");
  header.Send("POST /v1/verification-sessions HTTP/1.1\r\nHost: svc\r\n");
  header.ReadUntilClosed(20s, &closed);
  CHECK(closed);
  // An idle keep-alive connection is not: it waits for its next request under the read timeout.
  RawConnection idle(env.server->target().port, "127.0.0.6");
  CHECK(!idle.Readable(1500ms));
  idle.Send("GET /healthz HTTP/1.1\r\nHost: svc\r\nConnection: close\r\n\r\n");
  CHECK(Answer(idle).rfind("HTTP/1.1 200", 0) == 0);
}

TEST_CASE("uploads: captures held in memory come out of one budget; past it 503 ADMISSION_FULL with Retry-After") {
  Env env(false, {"--upload-memory-mib", "8", "--upload-stall-ms", "600000"}, Sharing::kIsolated);
  const std::string sa = ConsentedSession(env, env.test_key, "memory-a");
  CHECK(Metric(env, "svc_upload_memory_bytes") == 0);

  // A file sent before its kind is held in memory until the kind comes: 3 MiB of it, then a stall.
  RawConnection first(env.server->target().port, "127.0.0.2");
  const std::string head = "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"v.mp4\"\r\n"
                           "Content-Type: video/mp4\r\n\r\n" + testing::Mp4();
  first.Send(UploadHead(env.test_key, sa, 20'000'000, head + std::string(3 << 20, 'v')));
  for (int i = 0; i < 600 && Metric(env, "svc_upload_memory_bytes") < (3 << 20); ++i) std::this_thread::sleep_for(50ms);
  const int64_t held = Metric(env, "svc_upload_memory_bytes");
  CHECK(held >= (3 << 20));
  CHECK(held <= (4 << 20) + (64 << 10));  // what it holds, not twice that

  // Another file-first upload of 6 MiB does not fit beside it: 503, nothing recorded.
  const std::string body = head + std::string(6 << 20, 'w') + "\r\n--XyZ\r\nContent-Disposition: form-data; "
                           "name=\"kind\"\r\n\r\nliveness_video\r\n--XyZ--\r\n";
  auto refused = env.Call(env.test_key, "POST", "/v1/verification-sessions/" + sa + "/media", body,
                          {{"Content-Type", "multipart/form-data; boundary=XyZ"}});
  CheckProblem(refused, 503, "ADMISSION_FULL");
  CHECK(HeaderOf(refused, "Retry-After") == "1");
  CHECK(Metric(env, "svc_upload_memory_bytes") == held);
  // The same with the kind first is streamed (sealed as it comes), so it needs no budget: 201.
  const std::string streamed = "--XyZ\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nliveness_video\r\n" +
                               head + std::string(6 << 20, 'w') + "\r\n--XyZ--\r\n";
  auto ok = env.Call(env.test_key, "POST", "/v1/verification-sessions/" + sa + "/media", streamed,
                     {{"Content-Type", "multipart/form-data; boundary=XyZ"}});
  CHECK_MESSAGE(ok.status == 201, ok.body);
  // Analysed, it is held whole: out of the budget too.
  auto analysed = env.Call(env.test_key, "POST", "/v1/verification-sessions/" + sa + "/media?analyze=true", streamed,
                           {{"Content-Type", "multipart/form-data; boundary=XyZ"}});
  CheckProblem(analysed, 503, "ADMISSION_FULL");

  // The first upload goes away: its memory comes back.
  first.Close();
  AwaitMetric(env, "svc_upload_memory_bytes", 0);
  auto fits = env.Call(env.test_key, "POST", "/v1/verification-sessions/" + sa + "/media", body,
                       {{"Content-Type", "multipart/form-data; boundary=XyZ"}});
  CHECK_MESSAGE(fits.status == 201, fits.body);
  auto evidence = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + sa + "/evidence"));
  CHECK(evidence["media"].size() == 2);
}

}  // namespace integration_uploads_test
