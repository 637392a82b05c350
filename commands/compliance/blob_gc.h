#pragma once
// The blob garbage collector's record ("blob_gc", id "store", in the service's own partition):
// the objects of the blob store it deleted because no event referred to them
// (pipeline/retention/blob_collector.h). The event is the evidence that they went, when, and
// under which grace period; it is appended after the deletions it lists (at most 1,000 addresses
// each), so it never names an object still stored. Nothing projects it: the log is the record.

#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/service_tenant.h"
#include "core/json_fields.h"

namespace svc::commands::compliance {

inline constexpr std::string_view kBlobGcAggregate = "blob_gc";
inline constexpr std::string_view kBlobGcId = "store";
inline constexpr size_t kMaxCollectedPerEvent = 1000;

struct BlobsCollected {
  static constexpr std::string_view kType = "compliance.blobs_collected";
  std::vector<std::string> addresses;  // the deleted objects' addresses (SHA-256 of sealed bytes)
  int64_t bytes = 0;                   // their total size
  int64_t grace_seconds = 0;           // the run's grace period
  static constexpr auto Fields() {
    using T = BlobsCollected;
    return std::tuple{core::Field("addresses", &T::addresses), core::Field("bytes", &T::bytes),
                      core::Field("graceSeconds", &T::grace_seconds)};
  }
};

using BlobGcEvent = std::variant<BlobsCollected>;
core::Result<BlobGcEvent> DecodeBlobGc(const eventstore::EventEnvelope& envelope);

struct BlobGcState {
  int64_t deleted = 0;  // objects recorded deleted, over all runs
  static constexpr auto Fields() { return std::tuple{core::Field("deleted", &BlobGcState::deleted)}; }
};

struct RecordCollected {
  BlobsCollected collected;
  static constexpr std::string_view kCommand = "RecordCollected";
  static constexpr auto Fields() {
    using T = RecordCollected;
    return std::tuple{core::Field("collected", &T::collected)};
  }
};

struct BlobGcDecider : FieldSnapshots<BlobGcDecider, BlobGcState> {
  using CommandType = RecordCollected;
  static constexpr std::string_view kName = kBlobGcAggregate;
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;
  // INVALID_ARGUMENT for an empty record, over 1,000 addresses, or one that is not an address.
  // result {"deleted": total so far}.
  static core::Result<Decision> Decide(const BlobGcState& s, const RecordCollected& c, const CommandContext& ctx);
  static core::Status Evolve(BlobGcState& s, const eventstore::EventEnvelope& e);
};

}  // namespace svc::commands::compliance
