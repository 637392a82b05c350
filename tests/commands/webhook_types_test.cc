// Every webhook type is declared once (commands/webhooks/webhook_types.h) with the event it is
// derived from: each source event must be one its aggregate's codec records, so a catalogued
// type that nothing emits cannot exist silently.
#include <doctest/doctest.h>

#include <set>

#include "commands/audit/checkpoint.h"
#include "commands/compliance/breach.h"
#include "commands/kyb/company_events.h"
#include "commands/kyb/screening_events.h"
#include "commands/persons/access_events.h"
#include "commands/persons/arco_request.h"
#include "commands/review/case_events.h"
#include "commands/verification/session_events.h"
#include "commands/webhooks/endpoint_events.h"
#include "commands/webhooks/webhook_types.h"

namespace commands_webhook_types_test {

using namespace svc;
using namespace svc::commands;
using svc::commands::webhooks::WebhookTypes;

namespace {

// Whether the aggregate's codec knows the event type (what its decider can record).
bool Recorded(std::string_view aggregate, std::string_view type) {
  eventstore::EventEnvelope e;
  e.aggregate_type = std::string(aggregate);
  e.type = std::string(type);
  e.data = "{}";
  if (aggregate == "verification_session") return verification::Decode(e).ok();
  if (aggregate == "review_case") return review::Decode(e).ok();
  if (aggregate == compliance::kBreachAggregate) return compliance::DecodeBreach(e).ok();
  if (aggregate == audit::kAuditLogAggregate) return audit::DecodeAuditLog(e).ok();
  if (aggregate == persons::kRevealBudgetAggregate) return persons::DecodeAccess(e).ok();
  if (aggregate == kyb::kCompanyAggregate) return kyb::Decode(e).ok();
  if (aggregate == kyb::kHitAggregate) return kyb::DecodeHit(e).ok();
  if (aggregate == persons::kArcoAggregate) return persons::DecodeArco(e).ok();
  if (aggregate == webhooks::kEndpointAggregate) {
    return type == webhooks::kEndpointCreated || type == webhooks::kEndpointUpdated ||
           type == webhooks::kSecretRotated;
  }
  FAIL("a webhook type names an aggregate this test does not know: " << aggregate);
  return false;
}

}  // namespace

TEST_CASE("webhook types: each emitted type comes from an event its aggregate records") {
  std::set<std::string_view> seen;
  for (const auto& t : WebhookTypes()) {
    CAPTURE(t.type);
    CHECK(seen.insert(t.type).second);  // declared once
    CHECK_FALSE(t.payload_schema.empty());
    if (t.emitted) {
      CHECK(Recorded(t.source_aggregate, t.source_event));
      CHECK(webhooks::WebhookTypeFor(t.source_aggregate, t.source_event) == &t);
    }
  }
}

TEST_CASE("webhook types: every catalogued type is emitted (none waits for its event any more)") {
  std::vector<std::string_view> silent;
  for (const auto& t : WebhookTypes()) {
    if (!t.emitted) silent.push_back(t.type);
  }
  CHECK(silent.empty());
  CHECK(webhooks::WebhookTypeFor("review_case", review::CaseEscalated::kType) != nullptr);
}

TEST_CASE("webhook types: every verdict event has its webhook, and most events have none") {
  for (auto v : verification::kVerdictTypes) {
    const auto* t = webhooks::WebhookTypeFor("verification_session", v);
    REQUIRE(t != nullptr);
    CHECK(t->type == v);
    CHECK(t->carries_report);
  }
  CHECK(webhooks::WebhookTypeFor("verification_session", verification::SessionCreated::kType) == nullptr);
  CHECK(webhooks::WebhookTypeFor("review_case", review::CaseOpened::kType) == nullptr);
}

}  // namespace commands_webhook_types_test
