// The webhook delivery client against a real receiver process (node) on loopback, over HTTP and
// HTTPS with a certificate made by openssl: the answers a receiver can give, the limits, TLS
// verification, and the connect-time SSRF check.
#include <doctest/doctest.h>

#include <ctime>

#include "pipeline/net/outbound_client.h"
#include "tests/support/receiver_process.h"
#include "tests/support/temp_dir.h"

namespace pipeline_net_outbound_client_test {

using namespace svc;
using namespace svc::pipeline::net;

namespace {
// Two receivers (HTTPS with an openssl-made certificate, and plain HTTP) and development options
// that trust the certificate and allow loopback, with a 1.5 s budget.
struct Receivers {
  testing::TempDir dir;
  testing::ReceiverProcess tls{dir.path()};
  testing::ReceiverProcess plain;
  const int64_t now = 1'800'000'000;
  SendOptions dev = [this] {
    SendOptions o;
    o.allow_private = true;
    o.ca_file = tls.ca_file();
    o.total_timeout = std::chrono::milliseconds(1500);
    return o;
  }();
  std::string https = "https://localhost:" + std::to_string(tls.port());
  std::string http = "http://127.0.0.1:" + std::to_string(plain.port());
  std::vector<std::pair<std::string, std::string>> headers = {{"webhook-id", "evt_1"}};
};
}  // namespace

TEST_CASE_FIXTURE(Receivers, "webhook sender: answers, limits, TLS and the connect-time address check") {

  auto ok = PostWebhook(https + "/ok", headers, R"({"a":1})", dev, now);
  CHECK(ok.error == "");
  CHECK(ok.status == 200);
  CHECK(ok.body == "ok 7 evt_1");  // the receiver saw the body and our header
  CHECK(PostWebhook(http + "/ok", headers, "{}", dev, now).status == 200);

  CHECK(PostWebhook(https + "/gone", headers, "{}", dev, now).status == 410);
  CHECK(PostWebhook(https + "/bad", headers, "{}", dev, now).status == 400);
  auto retry = PostWebhook(https + "/retry", headers, "{}", dev, now);
  CHECK(retry.status == 503);
  REQUIRE(retry.retry_after_seconds.has_value());
  CHECK(*retry.retry_after_seconds == 7);

  auto slow = PostWebhook(https + "/slow", headers, "{}", dev, now);
  CHECK(slow.status == 0);
  CHECK(slow.error == "timeout");
  auto closed = PostWebhook(https + "/close", headers, "{}", dev, now);
  CHECK(closed.status == 0);
  CHECK((closed.error == "connection_closed" || closed.error == "tls_failed" || closed.error == "protocol_error"));
  auto big = PostWebhook(https + "/big", headers, "{}", dev, now);
  CHECK(big.status == 200);
  CHECK(big.error == "response_too_large");
  CHECK(big.body.empty());

  // TLS verification is on: without the receiver's certificate as a trust anchor, no delivery.
  SendOptions untrusted = dev;
  untrusted.ca_file.clear();
  auto refused = PostWebhook(https + "/ok", headers, "{}", untrusted, now);
  CHECK(refused.status == 0);
  CHECK(refused.error == "tls_failed");
  // Nothing listens: connect_failed.
  CHECK(PostWebhook("http://127.0.0.1:9/ok", headers, "{}", dev, now).error == "connect_failed");

  // In production mode, a name that resolves to loopback is refused when connecting (DNS
  // rebinding), and http is refused outright.
  SendOptions prod;
  prod.ca_file = tls.ca_file();
  auto rebound = PostWebhook(https + "/ok", headers, "{}", prod, now);
  CHECK(rebound.status == 0);
  CHECK(rebound.error == "address_not_public");
  CHECK(PostWebhook("https://127.0.0.1:" + std::to_string(tls.port()) + "/ok", headers, "{}", prod, now).error ==
        "address_not_public");
  CHECK(PostWebhook(http + "/ok", headers, "{}", prod, now).error == "invalid_url");
}

TEST_CASE_FIXTURE(Receivers, "webhook sender: a client keeps its connection to an origin while the receiver allows it") {

  for (const std::string& base : {http, https}) {
    CAPTURE(base);
    OutboundClient client(dev);
    auto a = client.Post(base + "/conn", headers, "{}", now);
    auto b = client.Post(base + "/conn", headers, "{}", now);
    REQUIRE(a.status == 200);
    REQUIRE(b.status == 200);
    CHECK(a.body == b.body);  // the same connection
    CHECK(client.Post(base + "/retry", headers, "{}", now).status == 503);  // an error status keeps it too
    CHECK(client.Post(base + "/conn", headers, "{}", now).body == a.body);

    // The receiver drops the connection after answering: the next post finds it gone and sends
    // on a new one, with no error reported.
    auto dropped = client.Post(base + "/ok-then-drop", headers, "{}", now);
    REQUIRE(dropped.status == 200);
    CHECK(dropped.body == a.body);
    auto after = client.Post(base + "/conn", headers, "{}", now);
    CHECK(after.status == 200);
    CHECK(after.error == "");
    CHECK(after.body != a.body);

    // After a timeout the connection is not used again.
    CHECK(client.Post(base + "/slow", headers, "{}", now).error == "timeout");
    auto fresh = client.Post(base + "/conn", headers, "{}", now);
    CHECK(fresh.status == 200);
    CHECK(fresh.body != after.body);

    // One-shot posts close their connection.
    CHECK(PostWebhook(base + "/conn", headers, "{}", dev, now).body != PostWebhook(base + "/conn", headers, "{}", dev, now).body);
  }
  // Another origin is another connection: the plain receiver's numbering restarts at its own.
  OutboundClient client(dev);
  auto x = client.Post(http + "/conn", headers, "{}", now);
  auto y = client.Post(https + "/conn", headers, "{}", now);
  auto z = client.Post(http + "/conn", headers, "{}", now);
  CHECK(x.status == 200);
  CHECK(y.status == 200);
  CHECK(z.status == 200);
  CHECK(z.body != x.body);  // the http connection was closed when the client went to https
  // The connect-time address check holds for a kept client too.
  SendOptions prod;
  prod.ca_file = tls.ca_file();
  OutboundClient guarded(prod);
  CHECK(guarded.Post(https + "/conn", headers, "{}", now).error == "address_not_public");
}

TEST_CASE("webhook sender: Retry-After in seconds or as a date") {
  const int64_t now = 1'793'000'000;  // 2026-10-26T07:33:20Z
  CHECK(ParseRetryAfter("120", now) == 120);
  CHECK(ParseRetryAfter("0", now) == 0);
  CHECK(ParseRetryAfter("Mon, 26 Oct 2026 07:35:20 GMT", now) == 120);
  CHECK(ParseRetryAfter("Mon, 26 Oct 2026 07:00:00 GMT", now) == 0);  // in the past: now
  CHECK_FALSE(ParseRetryAfter("soon", now).has_value());
  CHECK_FALSE(ParseRetryAfter("-5", now).has_value());
  CHECK_FALSE(ParseRetryAfter("", now).has_value());
}

}  // namespace pipeline_net_outbound_client_test
