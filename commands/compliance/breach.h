#pragma once
// Breach notifications ("breach_notification", id brc_…): the operator (or the integrator)
// records that personal data may have been exposed. Emit-only, as the spec says: the event is
// the record, and the webhook compliance.breach_notified carries it to every subscribed endpoint
// of the tenant and environment. One aggregate per notification, created once.

#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "core/json_fields.h"

namespace svc::commands::compliance {

inline constexpr std::string_view kBreachAggregate = "breach_notification";

struct BreachNotified {
  static constexpr std::string_view kType = "compliance.breach_notified";
  static constexpr int kSchema = 1;
  std::string severity;  // low | medium | high | critical
  std::string scope;     // what was exposed, in the notifier's words (no personal data)
  int64_t detected_micros = 0;
  std::vector<std::string> subprocessors_affected;
  std::string notified_by;  // the API key
  static constexpr auto Fields() {
    using core::Field;
    using T = BreachNotified;
    return std::tuple{Field("severity", &T::severity), Field("scope", &T::scope),
                      Field("detected", &T::detected_micros),
                      Field("subprocessorsAffected", &T::subprocessors_affected),
                      Field("notifiedBy", &T::notified_by)};
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
};

struct BreachDecider {
  using State = BreachState;
  static constexpr std::string_view kName = kBreachAggregate;
  static core::Result<Decision> Decide(const BreachState& s, const NotifyBreach& c, const CommandContext& ctx);
  static core::Status Evolve(BreachState& s, const eventstore::EventEnvelope& e);
  static core::Json ToJson(const BreachState& s);
  static core::Result<BreachState> FromJson(std::string_view text);
};

}  // namespace svc::commands::compliance
