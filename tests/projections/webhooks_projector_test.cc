// The webhooks read model, events in and rows out (tests/support/projector_spec.h): the template
// for a new area's projector tests. Rows are checked as the routes and the dispatcher read them.
#include <doctest/doctest.h>

#include "commands/webhooks/endpoint_events.h"
#include "projections/webhooks_projector.h"
#include "tests/support/projector_spec.h"

namespace projections_webhooks_projector_test {

using namespace svc;
using svc::projections::WebhooksProjector;
using V = svc::projections::WebhooksView;
using svc::testing::ProjectorSpec;

namespace {

const std::string kA = "whe_0000000000000000000000000000000a";
const std::string kB = "whe_0000000000000000000000000000000b";
const std::string kSession = "vrf_00000000000000000000000000000001";

core::Json Created(const std::string& url, core::Json events) {
  return {{"environment", "test"}, {"url", url},        {"description", nullptr},
          {"applicationId", nullptr}, {"events", events}, {"secretSealed", "c2VhbGVk"}};
}

struct Spec : ProjectorSpec<WebhooksProjector> {
  std::string te() const { return svc::projections::TenantEnv(tenant, environment); }
  void Register(const std::string& whe, const std::string& url, core::Json events) {
    REQUIRE(Feed(Event("webhook_endpoint", whe, "webhook.endpoint_created", Created(url, events))).ok());
  }
  eventstore::EventEnvelope Verdict(const std::string& type) {
    return Event("verification_session", kSession, type,
                 {{"trackingId", "trk_1"}, {"decision", {{"outcome", "approved"}}}, {"report", nullptr}});
  }
  // Deliveries of the tenant and environment, newest first, as the delivery list reads them.
  std::vector<std::string> Deliveries() {
    std::vector<std::string> out;
    for (const auto& k : Keys(V::Deliveries(te()))) out.push_back(k.substr(k.size() - 36));
    return out;
  }
};

}  // namespace

TEST_CASE("webhooks projector: a registered endpoint is served, indexed, and sent service.test") {
  Spec spec;
  spec.Register(kA, "https://a.example.com/h", nullptr);
  core::Json ep = spec.Row(V::Endpoint(spec.te(), kA));
  CHECK(ep["url"] == "https://a.example.com/h");
  CHECK(ep["isActive"] == true);
  CHECK(ep["createdAt"] == "2026-01-01T00:00:01.000Z");
  CHECK_FALSE(ep.contains("secretSealed"));  // the served row never holds the secret
  CHECK(spec.Row(V::Secret(spec.te(), kA))["secretSealed"] == "c2VhbGVk");
  CHECK(spec.Row(V::EndpointIds(spec.te())) == core::Json::array({kA}));
  CHECK(spec.Keys(V::Endpoints(spec.te())).size() == 1);
  CHECK(spec.RawRow(V::IssuedSecret(spec.te(), kA, 1)).has_value());

  auto deliveries = spec.Deliveries();
  REQUIRE(deliveries.size() == 1);
  core::Json dl = spec.Row(V::Delivery(spec.te(), deliveries[0]));
  CHECK(dl["eventType"] == "service.test");
  CHECK(dl["status"] == "pending");
  CHECK(dl["endpointId"] == kA);
  CHECK(spec.Keys(V::DuePrefix()).size() == 1);
  core::Json body = core::ParseJsonOrDiscarded(spec.Row(V::DeliveryBody(spec.te(), deliveries[0]))["body"].get<std::string>());
  CHECK(body["type"] == "service.test");
  CHECK(body["apiVersion"] == std::string(commands::webhooks::kWebhookApiVersion));
  spec.CheckRebuildIdentical();
}

TEST_CASE("webhooks projector: a verdict fans out to the active endpoints subscribed to it") {
  Spec spec;
  spec.Register(kA, "https://a.example.com/h", core::Json::array({"verification.*"}));
  spec.Register(kB, "https://b.example.com/h", core::Json::array({"verification.declined"}));
  const std::string kC = "whe_0000000000000000000000000000000c";
  spec.Register(kC, "https://c.example.com/h", nullptr);
  REQUIRE(spec.Feed(spec.Event("webhook_endpoint", kC, "webhook.endpoint_updated",
                               {{"changes", {{"isActive", false}}}, {"reason", "api"}})).ok());
  auto verdict = spec.Verdict("verification.approved");
  REQUIRE(spec.Feed(verdict).ok());
  std::string whd = WebhooksProjector::DeliveryId(verdict.id, kA);
  core::Json dl = spec.Row(V::Delivery(spec.te(), whd));
  CHECK(dl["eventType"] == "verification.approved");
  CHECK(dl["eventId"] == verdict.id);
  CHECK(spec.Row(V::Delivery(spec.te(), WebhooksProjector::DeliveryId(verdict.id, kB))).is_null());
  CHECK(spec.Row(V::Delivery(spec.te(), WebhooksProjector::DeliveryId(verdict.id, kC))).is_null());
  core::Json body = core::ParseJsonOrDiscarded(spec.Row(V::DeliveryBody(spec.te(), whd))["body"].get<std::string>());
  CHECK(body["data"]["sessionId"] == kSession);
  CHECK(body["data"]["trackingId"] == "trk_1");
  CHECK(spec.Deliveries().front() == whd);  // newest first
  CHECK(spec.Keys(V::EndpointDeliveries(spec.te(), kA)).size() == 2);  // service.test + verdict
  CHECK(!body["data"].contains("requestedInput"));  // asked nothing

  // "More information": what is asked, the reviewer's words kept sealed in the kept body (opened
  // at each send: pipeline/verification/requested_input.h).
  auto more = spec.Event("verification_session", kSession, "verification.more_info_requested",
                         {{"trackingId", "trk_1"},
                          {"outcome", "more_info"},
                          {"reasonCodes", {"DOCUMENT_BACK_REQUIRED"}},
                          {"decision", {{"outcome", "more_info"}}},
                          {"report", nullptr},
                          {"applicantMessageSealed", "c2VhbGVk"}});
  REQUIRE(spec.Feed(more).ok());
  core::Json more_body = core::ParseJsonOrDiscarded(
      spec.Row(V::DeliveryBody(spec.te(), WebhooksProjector::DeliveryId(more.id, kA)))["body"].get<std::string>());
  CHECK(more_body["data"]["requestedInput"]["captures"] == core::Json::array({"document_back"}));
  CHECK(more_body["data"]["requestedInput"]["reasonCodes"] == core::Json::array({"DOCUMENT_BACK_REQUIRED"}));
  CHECK(more_body["data"]["requestedInput"]["message"].is_null());
  CHECK(more_body["data"]["requestedInput"]["messageSealed"] == "c2VhbGVk");

  // Session expiry becomes verification.expired; other environments and tenants see nothing.
  REQUIRE(spec.Feed(spec.Event("verification_session", kSession, "verification.session_expired", core::Json::object())).ok());
  CHECK(spec.Row(V::Delivery(spec.te(), spec.Deliveries().front()))["eventType"] == "verification.expired");
  spec.environment = "live";
  REQUIRE(spec.Feed(spec.Verdict("verification.declined")).ok());
  CHECK(spec.Keys(V::Deliveries(svc::projections::TenantEnv(spec.tenant, "live"))).empty());
  spec.CheckRebuildIdentical();
}

TEST_CASE("webhooks projector: attempts move a delivery and its due row; a retry is a new delivery") {
  Spec spec;
  spec.Register(kA, "https://a.example.com/h", nullptr);
  std::string whd = spec.Deliveries().at(0);
  int64_t next = spec.now_micros + 60'000'000;
  REQUIRE(spec.Feed(spec.Event("webhook_delivery", whd, "webhook.delivery_attempted",
                               {{"endpointId", kA}, {"attempt", 1}, {"statusCode", 503}, {"error", nullptr},
                                {"latencyMs", 7}, {"outcome", "retrying"}, {"nextRetryAtMicros", next}})).ok());
  core::Json dl = spec.Row(V::Delivery(spec.te(), whd));
  CHECK(dl["attempts"] == 1);
  CHECK(dl["lastStatusCode"] == 503);
  CHECK(dl["status"] == "pending");
  CHECK(dl["nextRetryAt"] == core::FormatRfc3339(core::Timestamp{next}));
  REQUIRE(spec.Keys(V::DuePrefix()).size() == 1);  // moved, not added
  CHECK(spec.Keys(V::Attempts(spec.te(), whd)).size() == 1);

  REQUIRE(spec.Feed(spec.Event("webhook_delivery", whd, "webhook.delivery_attempted",
                               {{"endpointId", kA}, {"attempt", 2}, {"statusCode", nullptr},
                                {"error", "connection refused"}, {"latencyMs", 3}, {"outcome", "failed"},
                                {"nextRetryAtMicros", 0}})).ok());
  dl = spec.Row(V::Delivery(spec.te(), whd));
  CHECK(dl["status"] == "failed");
  CHECK(dl["lastError"] == "connection refused");
  CHECK(dl["nextRetryAt"].is_null());
  CHECK(spec.Keys(V::DuePrefix()).empty());

  const std::string retry = "whd_00000000000000000000000000000099";
  REQUIRE(spec.Feed(spec.Event("webhook_delivery", whd, "webhook.delivery_retried",
                               {{"newDeliveryId", retry}, {"endpointId", kA}})).ok());
  core::Json again = spec.Row(V::Delivery(spec.te(), retry));
  CHECK(again["status"] == "pending");
  CHECK(again["eventId"] == dl["eventId"]);  // webhook-id stays stable across a retry by hand
  CHECK(spec.Row(V::Delivery(spec.te(), whd))["status"] == "failed");  // the original is unchanged
  CHECK(spec.Row(V::DeliveryBody(spec.te(), retry))["body"] == spec.Row(V::DeliveryBody(spec.te(), whd))["body"]);
  spec.CheckRebuildIdentical();
}

TEST_CASE("webhooks projector: a started attempt is due again at its lease, its public row unchanged") {
  Spec spec;
  spec.Register(kA, "https://a.example.com/h", nullptr);
  std::string whd = spec.Deliveries().at(0);
  const core::Json before = spec.Row(V::Delivery(spec.te(), whd));
  int64_t lease = spec.now_micros + 20'000'000;
  REQUIRE(spec.Feed(spec.Event("webhook_delivery", whd, "webhook.delivery_attempt_started",
                               {{"endpointId", kA}, {"attempt", 1}, {"leaseUntilMicros", lease}})).ok());
  CHECK(spec.Row(V::Delivery(spec.te(), whd)) == before);
  core::Json x = spec.Row(V::DeliveryBody(spec.te(), whd));
  CHECK(x["dueMicros"] == lease);
  CHECK(x["started"] == 1);
  auto due = spec.Keys(V::DuePrefix());
  REQUIRE(due.size() == 1);  // moved to the lease, not added
  CHECK(V::ParseDue(due[0].substr(V::DuePrefix().size()))->micros == lease);
  // Recorded: the due row goes to the retry time (here: interrupted, found after the lease).
  int64_t next = lease + 30'000'000;
  REQUIRE(spec.Feed(spec.Event("webhook_delivery", whd, "webhook.delivery_attempted",
                               {{"endpointId", kA}, {"attempt", 1}, {"statusCode", nullptr}, {"error", "interrupted"},
                                {"latencyMs", 0}, {"outcome", "retrying"}, {"nextRetryAtMicros", next}})).ok());
  due = spec.Keys(V::DuePrefix());
  REQUIRE(due.size() == 1);
  CHECK(V::ParseDue(due[0].substr(V::DuePrefix().size()))->micros == next);
  CHECK(spec.Row(V::Delivery(spec.te(), whd))["lastError"] == "interrupted");
  spec.CheckRebuildIdentical();
}

TEST_CASE("webhooks projector: rotation keeps the previous secret; corrupt history is data loss") {
  Spec spec;
  spec.Register(kA, "https://a.example.com/h", nullptr);
  REQUIRE(spec.Feed(spec.Event("webhook_endpoint", kA, "webhook.secret_rotated",
                               {{"secretSealed", "bmV3"}, {"previousSecretSealed", "c2VhbGVk"},
                                {"previousValidUntilMicros", 42}})).ok());
  core::Json sec = spec.Row(V::Secret(spec.te(), kA));
  CHECK(sec["secretSealed"] == "bmV3");
  CHECK(sec["previousSecretSealed"] == "c2VhbGVk");
  CHECK(spec.Row(V::IssuedSecret(spec.te(), kA, 2))["secretSealed"] == "bmV3");
  CHECK(spec.Row(V::IssuedSecret(spec.te(), kA, 1))["secretSealed"] == "c2VhbGVk");

  auto orphan = spec.Event("webhook_endpoint", kB, "webhook.endpoint_updated", {{"changes", core::Json::object()}});
  CHECK(spec.Feed(orphan).code() == core::StatusCode::kDataLoss);
  auto attempt = spec.Event("webhook_delivery", "whd_00000000000000000000000000000001",
                            "webhook.delivery_attempted", {{"attempt", 1}, {"outcome", "delivered"}});
  CHECK(spec.Feed(attempt).code() == core::StatusCode::kDataLoss);
}

TEST_CASE("webhooks projector: a session's callbackUrl gets the session's own events, and a retry") {
  Spec spec;
  // No endpoint at all: the callback alone is delivered, whatever endpoints subscribed to.
  REQUIRE(spec.Feed(spec.Event("verification_session", kSession, "verification.session_created",
                               {{"publicId", "VS-1"}, {"channel", "api"}, {"applicationId", "app_1"},
                                {"country", "MX"}, {"locale", "es-MX"}, {"notificationsMode", "service_managed"},
                                {"callbackUrl", "https://cb.example.com/s"}, {"expiresAtMicros", 1},
                                {"callbackSecretSealed", "c2VhbGVk"}})).ok());
  core::Json cb = spec.Row(V::Callback(spec.te(), kSession));
  CHECK(cb["url"] == "https://cb.example.com/s");
  CHECK(cb["secretSealed"] == "c2VhbGVk");
  CHECK(spec.Deliveries().empty());
  auto verdict = spec.Verdict("verification.approved");
  REQUIRE(spec.Feed(verdict).ok());
  auto deliveries = spec.Deliveries();
  REQUIRE(deliveries.size() == 1);
  const std::string whd = deliveries[0];
  CHECK(whd == WebhooksProjector::DeliveryId(verdict.id, "cb:" + kSession));
  core::Json dl = spec.Row(V::Delivery(spec.te(), whd));
  CHECK(dl["endpointId"].is_null());
  CHECK(dl["callbackSessionId"] == kSession);
  CHECK(dl["targetUrl"] == "https://cb.example.com/s");
  CHECK(dl["eventType"] == "verification.approved");
  auto due = spec.Keys(V::DuePrefix());
  REQUIRE(due.size() == 1);
  CHECK(*spec.RawRow(due[0]) == kSession);  // the dispatcher's lane: the session
  core::Json body = core::ParseJsonOrDiscarded(spec.Row(V::DeliveryBody(spec.te(), whd))["body"].get<std::string>());
  CHECK(body["id"] == verdict.id);
  CHECK(body["data"]["sessionId"] == kSession);

  // A failed attempt leaves no due row; a retry by hand is a new delivery to the same URL.
  REQUIRE(spec.Feed(spec.Event("webhook_delivery", whd, "webhook.delivery_attempted",
                               {{"endpointId", ""}, {"attempt", 1}, {"statusCode", 400}, {"error", "http_400"},
                                {"latencyMs", 2}, {"outcome", "failed"}, {"nextRetryAtMicros", 0}})).ok());
  CHECK(spec.Keys(V::DuePrefix()).empty());
  const std::string fresh = "whd_000000000000000000000000000000ff";
  REQUIRE(spec.Feed(spec.Event("webhook_delivery", whd, "webhook.delivery_retried",
                               {{"newDeliveryId", fresh}, {"endpointId", ""}})).ok());
  core::Json again = spec.Row(V::Delivery(spec.te(), fresh));
  CHECK(again["callbackSessionId"] == kSession);
  CHECK(again["eventId"] == verdict.id);
  CHECK(again["targetUrl"] == "https://cb.example.com/s");
  CHECK(spec.Keys(V::DuePrefix()).size() == 1);
  // A session created without a callback (or before callbacks had secrets) has none.
  const std::string other = "vrf_00000000000000000000000000000002";
  REQUIRE(spec.Feed(spec.Event("verification_session", other, "verification.session_created",
                               {{"publicId", "VS-2"}, {"channel", "api"}, {"applicationId", "app_1"},
                                {"country", "MX"}, {"locale", "es-MX"}, {"notificationsMode", "service_managed"},
                                {"callbackUrl", "https://cb.example.com/old"}, {"expiresAtMicros", 1}})).ok());
  CHECK(spec.Row(V::Callback(spec.te(), other)).is_null());
  spec.CheckRebuildIdentical();
}

}  // namespace projections_webhooks_projector_test
