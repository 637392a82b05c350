#pragma once
// The daily reveal budget of a tenant and environment: one aggregate per UTC day ("reveal_budget",
// id "<env>-<YYYYMMDD>", RevealBudgetId) whose state is the number of persons revealed that day.
// A reveal is one decision: refused as a whole (429 PII_DECRYPT_CAP_REACHED) when it would pass
// the cap, else one PiiAccessed per person. The cap is configuration and travels with the
// command, so a changed cap applies from the next reveal.

#include <string>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/persons/access_events.h"

namespace svc::commands::persons {

struct RevealBudgetState {
  int64_t used = 0;
  static constexpr auto Fields() { return std::tuple{core::Field("used", &RevealBudgetState::used)}; }
};

struct RecordReveal {
  std::vector<PiiAccessed> accesses;  // one per person
  int64_t cap = 0;                    // persons revealed per day; 0 = no reveals at all
  static constexpr std::string_view kCommand = "RecordReveal";
  static constexpr auto Fields() {
    using T = RecordReveal;
    return std::tuple{core::Field("accesses", &T::accesses),
                      core::Field("cap", &T::cap)};
  }
};

// "<env>-<YYYYMMDD>" of the UTC day of `at`.
std::string RevealBudgetId(std::string_view environment, core::Timestamp at);
// Seconds from `at` to the next UTC midnight (when the budget refills).
int64_t SecondsUntilRefill(core::Timestamp at);

struct RevealBudgetDecider : FieldSnapshots<RevealBudgetDecider, RevealBudgetState> {
  using CommandType = RecordReveal;
  static constexpr std::string_view kName = kRevealBudgetAggregate;
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;
  static core::Result<Decision> Decide(const RevealBudgetState& s, const RecordReveal& c,
                                       const CommandContext& ctx);
  static core::Status Evolve(RevealBudgetState& s, const eventstore::EventEnvelope& e);
};

}  // namespace svc::commands::persons
