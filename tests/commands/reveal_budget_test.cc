// The daily reveal budget, given / when / then (tests/support/decider_spec.h): one access event
// per person, refused as a whole past the cap, and the day's id and refill time.
#include <doctest/doctest.h>

#include "commands/persons/reveal_budget.h"
#include "tests/support/decider_spec.h"

namespace commands_reveal_budget_test {

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::persons;
using svc::testing::Code;
using svc::testing::Data;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

PiiAccessed Access(const std::string& person) {
  PiiAccessed a;
  a.person_id = person;
  a.actor_type = "api_key";
  a.actor_id = "key_00000000000000000000000000000001";
  a.channel = "decrypt";
  a.fields = {"curp"};
  a.purpose = "identity_verification";
  a.reason = "onboarding";
  a.redaction = "plain";
  return a;
}

}  // namespace

TEST_CASE("reveal budget: one access event per person, counted; refused as a whole past the cap") {
  DeciderSpec<RevealBudgetDecider> spec;
  auto d = spec.When(RecordReveal{{Access("per_1"), Access("per_2")}, 3});
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"persons.pii_accessed", "persons.pii_accessed"});
  CHECK(Data(d->events[1])["personId"] == "per_2");
  CHECK(Data(d->events[0])["reason"] == "onboarding");
  CHECK(spec.state.used == 2);
  CHECK(Code(spec.When(RecordReveal{{Access("per_3"), Access("per_4")}, 3}).status()) == "PII_DECRYPT_CAP_REACHED");
  CHECK(spec.state.used == 2);  // nothing recorded
  REQUIRE(spec.When(RecordReveal{{Access("per_3")}, 3}).ok());
  CHECK(Code(spec.When(RecordReveal{{Access("per_4")}, 3}).status()) == "PII_DECRYPT_CAP_REACHED");
  // A raised cap applies at once; a cap of 0 refuses everything.
  CHECK(spec.When(RecordReveal{{Access("per_4")}, 10}).ok());
  DeciderSpec<RevealBudgetDecider> none;
  CHECK(Code(none.When(RecordReveal{{Access("per_1")}, 0}).status()) == "PII_DECRYPT_CAP_REACHED");
  CHECK(Code(none.When(RecordReveal{{}, 10}).status()) == "VALIDATION_ERROR");
  spec.CheckSnapshot();
}

TEST_CASE("reveal budget: one aggregate per environment and UTC day; it refills at midnight") {
  core::Timestamp t = *core::ParseRfc3339("2026-11-23T23:59:30.250Z");
  CHECK(RevealBudgetId("live", t) == "live-20261123");
  CHECK(RevealBudgetId("test", *core::ParseRfc3339("2026-11-24T00:00:00Z")) == "test-20261124");
  CHECK(SecondsUntilRefill(t) == 30);  // 29.75 s, rounded up
  CHECK(SecondsUntilRefill(*core::ParseRfc3339("2026-11-24T00:00:00Z")) == 86400);
}

}  // namespace commands_reveal_budget_test
