#include "commands/persons/reveal_budget.h"

#include <cstdio>

#include "commands/event_codec.h"

namespace svc::commands::persons {

namespace {
constexpr int64_t kDayMicros = 86'400'000'000;
}

std::string RevealBudgetId(std::string_view environment, core::Timestamp at) {
  std::string day = core::FormatRfc3339(at).substr(0, 10);  // YYYY-MM-DD
  std::string compact;
  for (char c : day) {
    if (c != '-') compact.push_back(c);
  }
  return std::string(environment) + "-" + compact;
}

int64_t SecondsUntilRefill(core::Timestamp at) {
  int64_t into = ((at.micros % kDayMicros) + kDayMicros) % kDayMicros;
  return (kDayMicros - into + 999'999) / 1'000'000;
}

core::Result<Decision> RevealBudgetDecider::Decide(const RevealBudgetState& s, const RecordReveal& c,
                                                   const CommandContext&) {
  if (c.accesses.empty()) return core::InvalidArgument("a reveal of nobody", "VALIDATION_ERROR");
  const int64_t n = static_cast<int64_t>(c.accesses.size());
  if (s.used + n > c.cap) {
    return core::ResourceExhausted("the daily reveal budget of this environment is used up (" +
                                       std::to_string(s.used) + " of " + std::to_string(c.cap) +
                                       " persons revealed today, UTC)",
                                   "PII_DECRYPT_CAP_REACHED");
  }
  Decision d;
  for (const auto& a : c.accesses) d.events.push_back(NewEventOf(AccessEvent(a)));
  d.result = {{"used", s.used + n}, {"cap", c.cap}};
  return d;
}

core::Status RevealBudgetDecider::Evolve(RevealBudgetState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(AccessEvent event, DecodeAccess(e));
  (void)event;
  ++s.used;
  return core::Status::Ok();
}

}  // namespace svc::commands::persons
