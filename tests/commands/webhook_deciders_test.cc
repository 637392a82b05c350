// The webhook endpoint and delivery aggregates, given / when / then (tests/support/decider_spec.h).
#include <doctest/doctest.h>

#include "commands/webhooks/delivery_decider.h"
#include "commands/webhooks/endpoint_decider.h"
#include "commands/tenancy/tenant_decider.h"
#include "tests/support/decider_spec.h"

namespace commands_webhook_deciders_test {

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::webhooks;
using svc::testing::Code;
using svc::testing::Data;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

CreateEndpoint Create() {
  CreateEndpoint c;
  c.environment = "test";
  c.url = "https://hooks.example.com/a";
  c.events = core::Json::array({"verification.*"});
  c.secret_sealed = "c2VhbGVkLTE=";
  return c;
}

DeciderSpec<EndpointDecider> Registered() {
  DeciderSpec<EndpointDecider> spec;
  REQUIRE(spec.When(Create()).ok());
  return spec;
}

RecordAttempt Attempt(int n, std::string outcome, int status = 500) {
  RecordAttempt a;
  a.endpoint_id = "whe_00000000000000000000000000000001";
  a.attempt = n;
  a.status_code = status;
  a.outcome = std::move(outcome);
  a.latency_ms = 12;
  return a;
}

}  // namespace

TEST_CASE("webhook endpoint: create records the sealed secret, never twice") {
  DeciderSpec<EndpointDecider> spec;
  auto d = spec.When(Create());
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"webhook.endpoint_created"});
  CHECK(Data(d->events[0])["secretSealed"] == "c2VhbGVkLTE=");
  CHECK(spec.state.exists);
  CHECK(spec.state.active);
  CHECK(spec.state.url == "https://hooks.example.com/a");
  CHECK(Code(spec.When(Create()).status()) == "CONFLICT");
  spec.CheckSnapshot();
}

TEST_CASE("webhook endpoint: an update records only what changes") {
  auto spec = Registered();
  UpdateEndpoint same;
  same.changes = {{"url", "https://hooks.example.com/a"}, {"events", core::Json::array({"verification.*"})}};
  same.reason = "api";
  auto none = spec.When(same);
  REQUIRE(none.ok());
  CHECK(none->events.empty());

  UpdateEndpoint off;
  off.changes = {{"url", "https://hooks.example.com/a"}, {"isActive", false}, {"description", "ops"}};
  off.reason = "gone";
  auto d = spec.When(off);
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"webhook.endpoint_updated"});
  core::Json changes = Data(d->events[0])["changes"];
  CHECK(changes.size() == 2);  // the url did not change
  CHECK(changes["isActive"] == false);
  CHECK(changes["description"] == "ops");
  CHECK(Data(d->events[0])["reason"] == "gone");
  CHECK_FALSE(spec.state.active);
  CHECK(spec.state.description == "ops");
  spec.CheckSnapshot();
}

TEST_CASE("webhook endpoint: rotation keeps the previous secret for the overlap") {
  auto spec = Registered();
  auto d = spec.When(RotateSecret{"c2VhbGVkLTI=", ""});
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"webhook.secret_rotated"});
  CHECK(spec.state.secret_sealed == "c2VhbGVkLTI=");
  CHECK(spec.state.previous_secret_sealed == "c2VhbGVkLTE=");
  CHECK(spec.state.previous_valid_until_micros == spec.ctx.now.micros + kRotationOverlapMicros);
  CHECK(spec.state.rotations == 1);
  spec.CheckSnapshot();
}

TEST_CASE("webhook endpoint: a v1a endpoint's public keys; a rotation keeps the scheme") {
  DeciderSpec<EndpointDecider> spec;
  spec.ctx.environment = "test";
  CreateEndpoint c;
  c.environment = "test";
  c.url = "https://hooks.example.com/a";
  c.secret_sealed = "c2VhbGVkLTE=";
  c.public_key = "whpk_one";
  auto made = spec.When(c);
  REQUIRE(made.ok());
  CHECK(Data(made->events[0])["publicKey"] == "whpk_one");
  CHECK(spec.state.public_key == "whpk_one");
  auto d = spec.When(RotateSecret{"c2VhbGVkLTI=", "whpk_two"});
  REQUIRE(d.ok());
  CHECK(Data(d->events[0])["publicKey"] == "whpk_two");
  CHECK(Data(d->events[0])["previousPublicKey"] == "whpk_one");
  CHECK(spec.state.public_key == "whpk_two");
  spec.CheckSnapshot();
  // A v1 secret for a v1a endpoint (or the other way round) is refused: the scheme stays.
  CHECK(Code(spec.When(RotateSecret{"c2VhbGVkLTM=", ""}).status()) == "CONFLICT");
  auto v1 = Registered();
  CHECK(Code(v1.When(RotateSecret{"c2VhbGVkLTM=", "whpk_three"}).status()) == "CONFLICT");
  // A v1 endpoint's events carry no public key at all (their stored form is unchanged).
  auto plain = v1.When(RotateSecret{"c2VhbGVkLTM=", ""});
  REQUIRE(plain.ok());
  CHECK_FALSE(Data(plain->events[0]).contains("publicKey"));
}

TEST_CASE("webhook endpoint: an applicationId must be one of the tenant's applications (issue 68)") {
  // The tenant aggregate as the writer's strand shows it: one application.
  tenancy::TenantState tenant;
  tenant.exists = true;
  tenancy::ApplicationState app;
  app.id = "app_00000000000000000000000000000001";
  tenant.applications.push_back(app);
  const std::any held = tenant;
  std::vector<std::string> asked;
  StateReader read = [&](std::string_view type, std::string_view id) -> core::Result<AggregateView> {
    asked.push_back(std::string(type) + "/" + std::string(id));
    return AggregateView{&held, 3};
  };
  CommandContext ctx;
  ctx.environment = "test";
  CreateEndpoint c = Create();
  c.tenant_id = "ten_00000000000000000000000000000001";
  c.application_id = "app_00000000000000000000000000000002";  // another tenant's, or made up
  CHECK(Code(EndpointDecider::Decide(EndpointState{}, EndpointCommand(c), read, ctx).status()) ==
        "APPLICATION_NOT_FOUND");
  CHECK(asked == std::vector<std::string>{"tenant/ten_00000000000000000000000000000001"});
  c.application_id = app.id;
  auto made = EndpointDecider::Decide(EndpointState{}, EndpointCommand(c), read, ctx);
  REQUIRE(made.ok());
  CHECK(Types(*made) == std::vector<std::string>{"webhook.endpoint_created"});
  c.application_id = nullptr;  // none: nothing to check
  CHECK(EndpointDecider::Decide(EndpointState{}, EndpointCommand(c), read, ctx).ok());

  auto spec = Registered();
  UpdateEndpoint u;
  u.tenant_id = c.tenant_id;
  u.reason = "api";
  u.changes = {{"applicationId", "app_00000000000000000000000000000003"}};
  CHECK(Code(EndpointDecider::Decide(spec.state, EndpointCommand(u), read, ctx).status()) == "APPLICATION_NOT_FOUND");
  u.changes = {{"applicationId", app.id}};
  CHECK(EndpointDecider::Decide(spec.state, EndpointCommand(u), read, ctx).value().events.size() == 1);
  u.changes = {{"applicationId", nullptr}};  // unset: nothing to check
  CHECK(EndpointDecider::Decide(spec.state, EndpointCommand(u), read, ctx).ok());
}

TEST_CASE("webhook endpoint: unknown, or of the other environment, is WEBHOOK_NOT_FOUND") {
  DeciderSpec<EndpointDecider> none;
  CHECK(Code(none.When(RotateSecret{"x", ""}).status()) == "WEBHOOK_NOT_FOUND");
  auto spec = Registered();
  spec.ctx.environment = "live";
  CHECK(Code(spec.When(UpdateEndpoint{}).status()) == "WEBHOOK_NOT_FOUND");
  CHECK(Code(spec.When(RotateSecret{"x", ""}).status()) == "WEBHOOK_NOT_FOUND");
}

TEST_CASE("webhook delivery: attempts are consecutive; a repeat after a crash is a no-op") {
  DeciderSpec<DeliveryDecider> spec;
  auto first = spec.When(Attempt(1, "retrying"));
  REQUIRE(first.ok());
  CHECK(Types(*first) == std::vector<std::string>{"webhook.delivery_attempted"});
  CHECK(Data(first->events[0])["statusCode"] == 500);
  CHECK(Data(first->events[0])["error"].is_null());
  CHECK(spec.state.attempts == 1);
  CHECK(spec.state.status == "pending");

  auto repeat = spec.When(Attempt(1, "retrying"));
  REQUIRE(repeat.ok());
  CHECK(repeat->events.empty());
  auto gap = spec.When(Attempt(3, "retrying"));
  REQUIRE(gap.ok());
  CHECK(gap->events.empty());

  auto no_answer = Attempt(2, "delivered", 0);
  no_answer.status_code = 204;
  REQUIRE(spec.When(no_answer).ok());
  CHECK(spec.state.status == "sent");
  auto after = spec.When(Attempt(3, "failed"));
  REQUIRE(after.ok());
  CHECK(after->events.empty());  // a sent delivery takes no further attempts
  spec.CheckSnapshot();
}

TEST_CASE("webhook delivery: an attempt starts once; only the next one; a record ends it") {
  DeciderSpec<DeliveryDecider> spec;
  auto start = spec.When(StartAttempt{"whe_1", 1, 5'000'000});
  REQUIRE(start.ok());
  CHECK(Types(*start) == std::vector<std::string>{"webhook.delivery_attempt_started"});
  CHECK(Data(start->events[0])["attempt"] == 1);
  CHECK(Data(start->events[0])["leaseUntilMicros"] == 5'000'000);
  CHECK(spec.state.started == 1);
  CHECK(spec.state.attempts == 0);
  // A second start of the same attempt (another node, a lagging view): no event, no post.
  CHECK(spec.When(StartAttempt{"whe_1", 1, 9'000'000}).value().events.empty());
  CHECK(spec.When(StartAttempt{"whe_1", 2, 9'000'000}).value().events.empty());  // not the next
  // The attempt recorded (here: interrupted, found after its lease), the next one may start.
  auto interrupted = Attempt(1, "retrying", 0);
  interrupted.error = "interrupted";
  REQUIRE(spec.When(interrupted).value().events.size() == 1);
  CHECK(spec.When(StartAttempt{"whe_1", 1, 9'000'000}).value().events.empty());
  CHECK(spec.When(StartAttempt{"whe_1", 2, 9'000'000}).value().events.size() == 1);
  REQUIRE(spec.When(Attempt(2, "delivered", 200)).value().events.size() == 1);
  CHECK(spec.state.status == "sent");
  CHECK(spec.When(StartAttempt{"whe_1", 3, 9'000'000}).value().events.empty());  // sent: no more
  spec.CheckSnapshot();
}

TEST_CASE("webhook delivery: failed is final; no HTTP answer has a null status code") {
  DeciderSpec<DeliveryDecider> spec;
  auto a = Attempt(1, "failed", 0);
  a.error = "connection refused";
  auto d = spec.When(a);
  REQUIRE(d.ok());
  CHECK(Data(d->events[0])["statusCode"].is_null());
  CHECK(Data(d->events[0])["error"] == "connection refused");
  CHECK(spec.state.status == "failed");
  CHECK(spec.When(Attempt(2, "retrying")).value().events.empty());
}

TEST_CASE("webhook delivery: an unknown outcome is refused; a retry by hand names the new delivery") {
  DeciderSpec<DeliveryDecider> spec;
  CHECK(spec.When(Attempt(1, "maybe")).status().code() == core::StatusCode::kInvalidArgument);
  auto r = spec.When(RetryDelivery{"whd_00000000000000000000000000000002",
                                   "whe_00000000000000000000000000000001"});
  REQUIRE(r.ok());
  CHECK(Types(*r) == std::vector<std::string>{"webhook.delivery_retried"});
  CHECK(r->result["deliveryId"] == "whd_00000000000000000000000000000002");
  CHECK(spec.state.attempts == 0);  // the retry is a new delivery; this one is unchanged
}

}  // namespace commands_webhook_deciders_test
