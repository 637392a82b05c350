#pragma once
// Retention of read-model rows ("retention", one aggregate per tenant and environment, id = the
// environment): the retention sweeper (pipeline/retention/) records that the rows of a resource
// older than a cutoff are to be removed, and the projector that keeps them removes them when it
// applies the event. So a rebuild from the log (`svc replay`) removes exactly the same rows, and
// the log says when what was removed under which policy. A cutoff never goes back: one at or
// before the resource's last one is a no-op.
//
// Resources: "webhook_deliveries" (finished deliveries, with their attempts and bodies).

#include <map>
#include <string>
#include <variant>

#include "commands/command.h"
#include "commands/decider.h"
#include "core/json_fields.h"

namespace svc::commands::compliance {

inline constexpr std::string_view kRetentionAggregate = "retention";
inline constexpr std::string_view kWebhookDeliveriesResource = "webhook_deliveries";

struct RowsSwept {
  static constexpr std::string_view kType = "compliance.rows_swept";
  std::string resource;
  int64_t before_micros = 0;   // rows created before this time go
  int64_t retention_days = 0;  // the policy in force
  static constexpr auto Fields() {
    using T = RowsSwept;
    return std::tuple{core::Field("resource", &T::resource),
                      core::Field("beforeMicros", &T::before_micros),
                      core::Field("retentionDays", &T::retention_days)};
  }
};

using RetentionEvent = std::variant<RowsSwept>;
core::Result<RetentionEvent> DecodeRetention(const eventstore::EventEnvelope& envelope);

struct RetentionState {
  std::map<std::string, int64_t> swept_before;  // resource -> the last cutoff
  static constexpr auto Fields() { return std::tuple{core::Field("sweptBefore", &RetentionState::swept_before)}; }
};

struct SweepRows {
  RowsSwept swept;
  static constexpr std::string_view kCommand = "SweepRows";
  static constexpr auto Fields() {
    using T = SweepRows;
    return std::tuple{core::Field("swept", &T::swept)};
  }
};

struct RetentionDecider : FieldSnapshots<RetentionDecider, RetentionState> {
  using CommandType = SweepRows;
  static constexpr std::string_view kName = kRetentionAggregate;
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;
  // result {"swept": bool}.
  static core::Result<Decision> Decide(const RetentionState& s, const SweepRows& c, const CommandContext& ctx);
  static core::Status Evolve(RetentionState& s, const eventstore::EventEnvelope& e);
};

}  // namespace svc::commands::compliance
