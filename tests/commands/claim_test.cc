// The claims mechanism (commands/claims/claim_decider.h): decisions given / when / then with a
// reader of other aggregates, then through the real writer: concurrent takes of one value, a
// holder that never came to exist, a holder that gave the value up, and the holder's own check.
#include <doctest/doctest.h>

#include <future>
#include <map>

#include "commands/claims/claim_decider.h"
#include "commands/claims/claim_writer.h"
#include "commands/kyb/company_decider.h"
#include "commands/persons/person_decider.h"
#include "commands/tenancy/tenant_decider.h"
#include "commands/writer.h"
#include "tests/support/decider_spec.h"
#include "tests/support/runtime_fixture.h"

namespace commands_claim_test {

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::claims;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

// Whether `holder` holds the claim `claim_id` as the strand reads it (what RequireClaims checks).
// Runs on the writer's strand: no doctest macro here.
bool HeldBy(const StateReader& read, const std::string& claim_id, const std::string& holder) {
  auto view = read(kClaimAggregate, claim_id);
  if (!view.ok()) return false;
  const ClaimState& s = StateOf<ClaimDecider>(*view);
  return s.holder == holder && !s.released;
}

// A reader over a map of holders: version 1 for those present (any state), 0 otherwise.
struct FakeHolders {
  std::map<std::string, std::any> states;
  std::any initial = std::string("initial");
  StateReader Reader() {
    return [this](std::string_view, std::string_view id) -> core::Result<AggregateView> {
      auto it = states.find(std::string(id));
      if (it == states.end()) return AggregateView{&initial, 0};
      return AggregateView{&it->second, 1};
    };
  }
};

// A take of the CURP whose blind key is "k".
TakeClaim Take(const std::string& holder) {
  TakeClaim t;
  t.holder = holder;
  t.holder_type = "person";
  t.conflict_code = "CURP_CONFLICT";
  t.conflict_member = "conflictingPersonId";
  t.holds = {std::string(HoldsRule::kPersonCurp), "k", ""};
  return t;
}

// A person's state: active with that CURP (it holds the claim), or erased (it holds nothing).
std::any Person(bool holds) {
  persons::PersonState p;
  p.exists = true;
  p.status = holds ? "active" : "redacted";
  p.curp_key = "k";
  return p;
}

core::Result<Decision> When(DeciderSpec<ClaimDecider>& spec, const ClaimCommand& c, const StateReader& read) {
  spec.CheckWire(c);
  auto d = ClaimDecider::Decide(spec.state, c, read, spec.ctx);
  if (d.ok()) spec.Record(*d);
  return d;
}

}  // namespace

TEST_CASE("claims: a free value is taken; its holder takes it again without an event; another is refused") {
  DeciderSpec<ClaimDecider> spec;
  FakeHolders holders;
  auto first = When(spec, Take("per_a"), holders.Reader());
  REQUIRE(first.ok());
  CHECK(Types(*first) == std::vector<std::string>{"claims.claim_taken"});
  auto again = When(spec, Take("per_a"), holders.Reader());
  REQUIRE(again.ok());
  CHECK(again->events.empty());
  // per_a is being made (it does not exist yet) and within its time: refused, naming it.
  auto other = When(spec, Take("per_b"), holders.Reader());
  REQUIRE_FALSE(other.ok());
  const core::Status refused = other.status();
  CHECK(std::string(refused.api_code()) == "CURP_CONFLICT");
  CHECK(refused.extensions() ==
        std::vector<std::pair<std::string, std::string>>{{"conflictingPersonId", "per_a"}});
  spec.CheckSnapshot();
}

TEST_CASE("claims: a holder that never came to exist loses the value after its time; one that exists keeps it") {
  DeciderSpec<ClaimDecider> spec;
  FakeHolders holders;
  REQUIRE(When(spec, Take("per_a"), holders.Reader()).ok());
  spec.ctx.now.micros += 59 * 1'000'000;
  CHECK_FALSE(When(spec, Take("per_b"), holders.Reader()).ok());
  spec.ctx.now.micros += 2 * 1'000'000;  // past 60 s: per_a never came to exist (a crash)
  auto taken = When(spec, Take("per_b"), holders.Reader());
  REQUIRE(taken.ok());
  REQUIRE(taken->events.size() == 1);
  CHECK(testing::Data(taken->events[0])["replaces"] == "per_a");
  CHECK(spec.state.holder == "per_b");
  // per_b exists and holds the value: no time makes it lose it.
  holders.states["per_b"] = Person(true);
  spec.ctx.now.micros += 365LL * 86400 * 1'000'000;
  CHECK_FALSE(When(spec, Take("per_c"), holders.Reader()).ok());
}

TEST_CASE("claims: a holder that gave the value up (changed, erased, merged) is replaced at once; release") {
  DeciderSpec<ClaimDecider> spec;
  FakeHolders holders;
  REQUIRE(When(spec, Take("per_a"), holders.Reader()).ok());
  holders.states["per_a"] = Person(false);
  auto taken = When(spec, Take("per_b"), holders.Reader());
  REQUIRE(taken.ok());
  CHECK(spec.state.holder == "per_b");
  // A release by another holder is nothing; by the holder, the value is free.
  CHECK(When(spec, ReleaseClaim{"per_a"}, holders.Reader())->events.empty());
  auto released = When(spec, ReleaseClaim{"per_b"}, holders.Reader());
  CHECK(Types(*released) == std::vector<std::string>{"claims.claim_released"});
  auto free = When(spec, Take("per_c"), holders.Reader());
  REQUIRE(free.ok());
  CHECK(testing::Data(free->events[0])["replaces"].is_null());
  spec.CheckSnapshot();
}

// Issue 67: a claim given back after a failure whose outcome was unknown (an answer timeout, a
// forwarded command decided after all) may have a holder that was written with the value. The
// release is a hint: the value stays its holder's while the holder holds it.
TEST_CASE("claims: a released claim whose holder holds the value is not taken by another; its holder takes it again") {
  DeciderSpec<ClaimDecider> spec;
  FakeHolders holders;
  REQUIRE(When(spec, Take("per_a"), holders.Reader()).ok());
  REQUIRE(Types(*When(spec, ReleaseClaim{"per_a"}, holders.Reader())) == std::vector<std::string>{"claims.claim_released"});
  holders.states["per_a"] = Person(true);  // its create landed after all
  auto other = When(spec, Take("per_b"), holders.Reader());
  REQUIRE_FALSE(other.ok());
  CHECK(std::string(other.status().api_code()) == "CURP_CONFLICT");
  CHECK(other.status().extensions() ==
        std::vector<std::pair<std::string, std::string>>{{"conflictingPersonId", "per_a"}});
  // Not even after any time: it holds the value.
  spec.ctx.now.micros += 3600LL * 1'000'000;
  CHECK_FALSE(When(spec, Take("per_b"), holders.Reader()).ok());
  // The holder takes it again (a retry of its request).
  auto again = When(spec, Take("per_a"), holders.Reader());
  REQUIRE(again.ok());
  CHECK(Types(*again) == std::vector<std::string>{"claims.claim_taken"});
  CHECK(spec.state.holder == "per_a");
  CHECK_FALSE(spec.state.released);
  // Released again and its holder gone (never made, or gave the value up): free at once.
  REQUIRE(When(spec, ReleaseClaim{"per_a"}, holders.Reader()).ok());
  holders.states["per_a"] = Person(false);
  auto free = When(spec, Take("per_b"), holders.Reader());
  REQUIRE(free.ok());
  CHECK(testing::Data(free->events[0])["replaces"].is_null());
}

// Issue 67: a keyed take's answer is told again from its event after a crash (the write model
// rebuilds the idempotency record from the log); a retry reads it as the first request did.
TEST_CASE("claims: a take's answer is told again from its event, and read back by ReadTake") {
  DeciderSpec<ClaimDecider> spec;
  FakeHolders holders;
  auto first = When(spec, Take("per_a"), holders.Reader());  // When checks ResultOf against the answer
  REQUIRE(first.ok());
  commands::TypedAggregate<ClaimDecider> type;
  auto env = spec.Record(first->events[0]);
  const core::Json told = type.ResultOf({env}, std::any(spec.state));
  CHECK(told == core::Json{{"holder", "per_a"}, {"taken", true}});
  auto read = ReadTake(told);
  REQUIRE(read.ok());
  CHECK(read->holder == "per_a");
  CHECK(read->taken);
  CHECK_FALSE(read->already_held);
  // What the write model had before the fix: a null result. An error, never a throw.
  auto null = ReadTake(core::Json());
  REQUIRE_FALSE(null.ok());
  CHECK(null.status().code() == core::StatusCode::kInternal);
  CHECK_FALSE(ReadTake(core::Json{{"holder", "per_a"}}).ok());
}

TEST_CASE("claims: without a conflict code a value held by another is answered as not taken, naming the holder") {
  DeciderSpec<ClaimDecider> spec;
  FakeHolders holders;
  REQUIRE(When(spec, Take("per_a"), holders.Reader()).ok());
  TakeClaim upsert = Take("per_b");
  upsert.conflict_code = {};
  auto answer = When(spec, upsert, holders.Reader());
  REQUIRE(answer.ok());
  CHECK(answer->events.empty());
  CHECK(answer->result == core::Json{{"holder", "per_a"}, {"taken", false}});
  auto again = When(spec, Take("per_a"), holders.Reader());
  REQUIRE(again.ok());
  CHECK(again->result.value("alreadyHeld", false));
}

// Through the writer: the claim and its holder are decided in the tenant's strand, so of many
// concurrent takes exactly one wins, and the holder's check sees the claim as it stands.
TEST_CASE("claims: through the writer, 20 concurrent takes of one value make one holder") {
  testing::RuntimeFixture f;
  f.Open();
  const std::string t = f.NewTenant();
  const std::string claim = ClaimId("curp", "test", std::string(64, 'a'));
  std::vector<std::future<core::Result<CommandOutcome>>> results;
  std::vector<std::promise<core::Result<CommandOutcome>>> promises(20);
  for (int i = 0; i < 20; ++i) {
    results.push_back(promises[i].get_future());
    // Holders that do not exist (tenants never created): within the claim's time, nobody else wins.
    TakeClaim take = Take("ten_" + std::string(31, '0') + std::to_string(i % 10));
    take.holder_type = "tenant";
    f.rt->writer().Execute(MakeReadingCommand<ClaimDecider>(t, claim, ClaimCommand(take), f.Ctx()),
                           [&promises, i](core::Result<CommandOutcome> r) { promises[i].set_value(std::move(r)); });
  }
  int won = 0, refused = 0;
  for (auto& r : results) {
    auto out = r.get();
    if (out.ok()) {
      ++won;
    } else {
      CHECK(std::string(out.status().api_code()) == "CURP_CONFLICT");
      ++refused;
    }
  }
  // The first taker wins; its retries (i % 10 repeats holders) are answered as held.
  CHECK(won == 2);
  CHECK(refused == 18);
  // The holder's own check, in the strand: the winner holds it, another does not.
  auto winner = f.rt->writer().DebugState(t, std::string(kClaimAggregate), claim);
  REQUIRE(winner.ok());
  const std::string holder = core::ParseJsonOrDiscarded(*winner)["holder"];
  std::promise<bool> held_by_winner, held_by_other;
  Command check;
  check.tenant_id = t;
  check.aggregate_type = std::string(kClaimAggregate);
  check.aggregate_id = claim;
  check.context = f.Ctx();
  check.decide_reading = [&](const std::any&, const StateReader& read, const CommandContext&) -> core::Result<Decision> {
    held_by_winner.set_value(HeldBy(read, claim, holder));
    held_by_other.set_value(HeldBy(read, claim, "ten_" + std::string(32, '9')));
    return Decision{};
  };
  REQUIRE(f.rt->writer().ExecuteAndWait(std::move(check)).ok());
  CHECK(held_by_winner.get_future().get());
  CHECK_FALSE(held_by_other.get_future().get());
}

// RunWithClaim (commands/claims/claim_writer.h), as a company's RFC uses it.
TEST_CASE("claims: RunWithClaim — of 6 concurrent creates with one RFC one company is made; a failed create gives its claim back") {
  testing::RuntimeFixture f;
  f.Open();
  const std::string t = f.NewTenant();
  const std::string claim = ClaimId("rfc", "test", std::string(64, 'b'));
  auto take = [] {
    TakeClaim tc;
    tc.conflict_code = "RFC_CONFLICT";
    tc.conflict_member = "conflictingCompanyId";
    tc.holds.kind = HoldsRule::kCompanyExists;
    return tc;
  };
  std::vector<std::promise<core::Result<CommandOutcome>>> promises(6);
  for (size_t i = 0; i < promises.size(); ++i) {
    kyb::CompanyCreated c;
    c.legal_name_sealed = "sealed";
    c.country = "MX";
    c.subject_kind = "legal_entity";
    const std::string id = "cmp_" + std::string(31, '0') + std::to_string(i);
    RunWithClaim(f.rt->writer(), claim, take(),
                 MakeCommand<kyb::CompanyDecider>(t, id, kyb::CompanyCommand(kyb::CreateCompany{c}), f.Ctx()),
                 [&promises, i](core::Result<CommandOutcome> r) { promises[i].set_value(std::move(r)); });
  }
  std::string made;
  int refused = 0;
  std::vector<std::string> named;
  for (auto& p : promises) {
    auto r = p.get_future().get();
    if (r.ok()) {
      CHECK(made.empty());
      made = r->aggregate_id;
      continue;
    }
    const core::Status st = r.status();
    CHECK(std::string(st.api_code()) == "RFC_CONFLICT");
    REQUIRE(st.extensions().size() == 1);
    named.push_back(st.extensions()[0].second);
    ++refused;
  }
  CHECK(refused == 5);
  for (const auto& n : named) CHECK(n == made);

  // A command that fails after its claim was taken gives the claim back: the next one takes it.
  const std::string other = ClaimId("rfc", "test", std::string(64, 'c'));
  Command failing;
  failing.tenant_id = t;
  failing.aggregate_type = std::string(kyb::CompanyDecider::kName);
  failing.aggregate_id = "cmp_" + std::string(32, '7');
  failing.context = f.Ctx();
  failing.decide = [](const std::any&, const CommandContext&) -> core::Result<Decision> {
    return core::InvalidArgument("refused by its own rules", "VALIDATION_ERROR");
  };
  std::promise<core::Result<CommandOutcome>> failed;
  RunWithClaim(f.rt->writer(), other, take(), failing, [&failed](core::Result<CommandOutcome> r) { failed.set_value(std::move(r)); });
  const core::Status failure = failed.get_future().get().status();
  CHECK(std::string(failure.api_code()) == "VALIDATION_ERROR");
  // The release was submitted before the answer, to the same strand: a command after it sees it.
  Command after;
  after.tenant_id = t;
  after.aggregate_type = std::string(kClaimAggregate);
  after.aggregate_id = other;
  after.context = f.Ctx();
  after.decide = [](const std::any&, const CommandContext&) -> core::Result<Decision> { return Decision{}; };
  REQUIRE(f.rt->writer().ExecuteAndWait(std::move(after)).ok());
  auto state = f.rt->writer().DebugState(t, std::string(kClaimAggregate), other);
  REQUIRE(state.ok());
  CHECK(core::ParseJsonOrDiscarded(*state)["released"] == true);
}

}  // namespace commands_claim_test
