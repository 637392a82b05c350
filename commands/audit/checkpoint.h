#pragma once
// Published checkpoints of the access log ("audit_log", one aggregate per tenant and environment,
// id = the environment): the checkpoint publisher (pipeline/audit/checkpoint_publisher.h) records
// a signed C2SP checkpoint of the log's Merkle tree whenever it grew, so the checkpoints live in
// the log itself (and in every export, and at every webhook endpoint subscribed to
// audit.checkpoint_published). A checkpoint never goes back: a size at or below the last
// published one is a no-op, which makes a late, repeated or concurrent publisher harmless.

#include <string>
#include <variant>

#include "commands/command.h"
#include "commands/decider.h"
#include "core/json_fields.h"

namespace svc::commands::audit {

inline constexpr std::string_view kAuditLogAggregate = "audit_log";

struct CheckpointPublished {
  static constexpr std::string_view kType = "audit.checkpoint_published";
  std::string origin;      // the log's origin line and key name: svc/audit/<tenant>/<environment>
  int64_t tree_size = 0;
  std::string root_hash;   // hex, of the tree of the first tree_size entries
  std::string checkpoint;  // the signed note (C2SP tlog-checkpoint, Ed25519)
  static constexpr auto Fields() {
    using T = CheckpointPublished;
    return std::tuple{core::Field("origin", &T::origin), core::Field("treeSize", &T::tree_size),
                      core::Field("rootHash", &T::root_hash),
                      core::Field("checkpoint", &T::checkpoint)};
  }
};

using AuditLogEvent = std::variant<CheckpointPublished>;
core::Result<AuditLogEvent> DecodeAuditLog(const eventstore::EventEnvelope& envelope);

struct AuditLogState {
  int64_t published_size = 0;
  static constexpr auto Fields() { return std::tuple{core::Field("publishedSize", &AuditLogState::published_size)}; }
};

struct PublishCheckpoint {
  CheckpointPublished checkpoint;
  static constexpr std::string_view kCommand = "PublishCheckpoint";
  static constexpr auto Fields() {
    using T = PublishCheckpoint;
    return std::tuple{core::Field("checkpoint", &T::checkpoint)};
  }
};

struct AuditLogDecider : FieldSnapshots<AuditLogDecider, AuditLogState> {
  using CommandType = PublishCheckpoint;
  static constexpr std::string_view kName = kAuditLogAggregate;
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;
  // No events when the size is not above the last published one; result {"published": bool}.
  static core::Result<Decision> Decide(const AuditLogState& s, const PublishCheckpoint& c, const CommandContext& ctx);
  static core::Status Evolve(AuditLogState& s, const eventstore::EventEnvelope& e);
};

}  // namespace svc::commands::audit
