#pragma once
// The webhook delivery aggregate (aggregate id = whd_…): its attempts. A delivery itself is
// derived from the event it carries (the webhooks projector creates its row, with an id derived
// from the event and the endpoint); every attempt is an event of this aggregate, recorded once
// (attempt numbers are consecutive; a repeat after a crash is a no-op).
//
// At most one post per attempt, by construction: the dispatcher appends StartAttempt before it
// posts, and only the first start of an attempt is accepted (a second one, from a node that read
// a lagging view or lost the partition meanwhile, is a no-op, and that node does not post). An
// attempt started and not recorded by its lease (the node died or stopped mid-send) is recorded
// by whoever finds it as `retrying` with error `interrupted`: the next attempt is a new one.

#include <string>
#include <variant>

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/webhooks/endpoint_events.h"

namespace svc::commands::webhooks {

struct DeliveryState {
  int attempts = 0;                // recorded
  int started = 0;                 // the last attempt started (attempts or attempts + 1)
  std::string status = "pending";  // pending | sent | failed
  static constexpr auto Fields() {
    return std::tuple{core::Field("attempts", &DeliveryState::attempts),
                      core::Field("started", &DeliveryState::started),
                      core::Field("status", &DeliveryState::status)};
  }
};

struct RecordAttempt {
  std::string endpoint_id;
  int attempt = 0;           // 1, 2, …
  int status_code = 0;       // 0 = no HTTP answer
  std::string error;         // "" or the sender's error
  int64_t latency_ms = 0;
  std::string outcome;       // delivered | retrying | failed
  int64_t next_retry_at_micros = 0;  // retrying only
  static constexpr std::string_view kCommand = "RecordAttempt";
  static constexpr auto Fields() {
    using T = RecordAttempt;
    return std::tuple{core::Field("endpointId", &T::endpoint_id),
                      core::Field("attempt", &T::attempt),
                      core::Field("statusCode", &T::status_code),
                      core::Field("error", &T::error),
                      core::Field("latencyMs", &T::latency_ms),
                      core::Field("outcome", &T::outcome),
                      core::Field("nextRetryAtMicros", &T::next_retry_at_micros)};
  }
};

// Appended right before the post of attempt `attempt`; the dispatcher posts only if this command
// appended its event.
struct StartAttempt {
  std::string endpoint_id;
  int attempt = 0;
  int64_t lease_until_micros = 0;
  static constexpr std::string_view kCommand = "StartAttempt";
  static constexpr auto Fields() {
    using T = StartAttempt;
    return std::tuple{core::Field("endpointId", &T::endpoint_id), core::Field("attempt", &T::attempt),
                      core::Field("leaseUntilMicros", &T::lease_until_micros)};
  }
};

// The retry operation: the new delivery's id is minted by the caller.
struct RetryDelivery {
  std::string new_delivery_id;
  std::string endpoint_id;
  static constexpr std::string_view kCommand = "RetryDelivery";
  static constexpr auto Fields() {
    using T = RetryDelivery;
    return std::tuple{core::Field("newDeliveryId", &T::new_delivery_id),
                      core::Field("endpointId", &T::endpoint_id)};
  }
};

using DeliveryCommand = std::variant<RecordAttempt, RetryDelivery, StartAttempt>;

struct DeliveryDecider : FieldSnapshots<DeliveryDecider, DeliveryState> {
  using CommandType = DeliveryCommand;
  static constexpr std::string_view kName = kDeliveryAggregate;

  static core::Result<Decision> Decide(const DeliveryState& state, const DeliveryCommand& command,
                                       const CommandContext& ctx);
  static core::Status Evolve(DeliveryState& state, const eventstore::EventEnvelope& event);
  // The answer told again from the events a command appended (AggregateType::ResultOf).
  static core::Json ResultOf(const std::vector<eventstore::EventEnvelope>& events);
};

}  // namespace svc::commands::webhooks
