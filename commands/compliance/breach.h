#pragma once
// Breach notifications ("breach_notification", id brc_…): the operator (or the integrator)
// records that personal data may have been exposed. Emit-only, as the spec says: the event is
// the record, and the webhook compliance.breach_notified carries it to every subscribed endpoint
// of the tenant and environment. One aggregate per notification, created once.

#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "core/json_fields.h"

namespace svc::commands::compliance {

inline constexpr std::string_view kBreachAggregate = "breach_notification";

struct BreachNotified {
  static constexpr std::string_view kType = "compliance.breach_notified";
  std::string severity;  // low | medium | high | critical
  std::string scope;     // what was exposed, in the notifier's words (no personal data)
  int64_t detected_micros = 0;
  std::vector<std::string> subprocessors_affected;
  std::string notified_by;  // the API key
  static constexpr auto Fields() {
    using T = BreachNotified;
    return std::tuple{core::Field("severity", &T::severity), core::Field("scope", &T::scope),
                      core::Field("detected", &T::detected_micros),
                      core::Field("subprocessorsAffected", &T::subprocessors_affected),
                      core::Field("notifiedBy", &T::notified_by)};
  }
};

using BreachEvent = std::variant<BreachNotified>;
core::Result<BreachEvent> DecodeBreach(const eventstore::EventEnvelope& envelope);

struct BreachState {
  bool exists = false;
  static constexpr auto Fields() { return std::tuple{core::Field("exists", &BreachState::exists)}; }
};

struct NotifyBreach {
  BreachNotified notified;
  std::string breach_id;  // the aggregate's id, named in the answer
  static constexpr std::string_view kCommand = "NotifyBreach";
  static constexpr auto Fields() {
    using T = NotifyBreach;
    return std::tuple{core::Field("notified", &T::notified),
                      core::Field("breachId", &T::breach_id)};
  }
};

struct BreachDecider : FieldSnapshots<BreachDecider, BreachState> {
  using CommandType = NotifyBreach;
  static constexpr std::string_view kName = kBreachAggregate;
  static core::Result<Decision> Decide(const BreachState& s, const NotifyBreach& c, const CommandContext& ctx);
  static core::Status Evolve(BreachState& s, const eventstore::EventEnvelope& e);
  // The answer told again from the events a command appended (AggregateType::ResultOf).
  static core::Json ResultOf(const std::vector<eventstore::EventEnvelope>& events);
};

}  // namespace svc::commands::compliance
