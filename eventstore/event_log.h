#pragma once
// EventLog: the source of truth. Two backends implement it (embedded RocksDB, Kafka); the same
// contract test suite runs against both (tests/eventstore/event_log_contract_test.cc).
//
// Contract:
// - Append(partition, events) is atomic: after a crash either all of the events are in the log
//   or none is. `done` is called exactly once, after the events are durable (or with an error),
//   and appends to one partition complete in the order they were made.
// - Offsets are contiguous per partition starting at 0.
// - A LogReader sees every durable event of its partitions exactly once, in offset order,
//   starting at the checkpoint it was opened with.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::eventstore {

// Where a consumer resumes in one partition: the next offset it wants, and the backend's own
// resume point (Kafka record offset; -1 = from the beginning / not used).
struct PartitionCheckpoint {
  uint64_t next_offset = 0;
  int64_t backend_cursor = -1;
  // Kafka: the highest writer epoch seen in the partition up to here (writes of older epochs
  // after it are a fenced writer's and are dropped). 0 on the embedded log.
  uint64_t backend_epoch = 0;
  friend bool operator==(const PartitionCheckpoint&, const PartitionCheckpoint&) = default;
};

// The checkpoint just after `e`, and a stable binary encoding for consumers' stores (24 bytes;
// the 16-byte form without the epoch is still read).
PartitionCheckpoint CheckpointAfter(const RecordedEvent& e);
std::string EncodeCheckpoint(const PartitionCheckpoint& c);
PartitionCheckpoint DecodeCheckpoint(std::string_view v);

class LogReader {
 public:
  virtual ~LogReader() = default;
  // Returns up to `max` events (possibly from several partitions, each in order). Waits up to
  // `wait` for at least one when none is ready; an empty vector means nothing new yet.
  virtual core::Result<std::vector<RecordedEvent>> Poll(size_t max,
                                                        std::chrono::milliseconds wait) = 0;
  // True when, at the last Poll, every partition had been read to its end.
  virtual bool CaughtUp() const = 0;
  // Wakes a Poll that is waiting (used at shutdown).
  virtual void Wake() = 0;
};

struct AppendResult {
  std::vector<LogPosition> positions;  // one per event, in order
  // Backend resume point just after the last event (see PartitionCheckpoint).
  int64_t backend_cursor = -1;
  uint64_t backend_epoch = 0;
};
using AppendCallback = std::function<void(core::Result<AppendResult>)>;

// The api code of an append refused because another writer took the partition over (Kafka fenced
// this one): this node lost the partition and its group will take it away; not a halt of the
// partition (commands/writer.cc).
inline constexpr std::string_view kWriterFenced = "WRITER_FENCED";

class EventLog {
 public:
  virtual ~EventLog() = default;
  virtual uint32_t PartitionCount() const = 0;
  uint32_t PartitionFor(std::string_view tenant_id) const {
    return PartitionForTenant(tenant_id, PartitionCount());
  }

  // Appends `events` (all of one partition) atomically. `done` runs on a log thread; it must be
  // quick and must not call Append synchronously-waiting on itself.
  virtual void Append(uint32_t partition, std::vector<EventEnvelope> events,
                      AppendCallback done) = 0;
  // Convenience: Append and wait.
  core::Result<AppendResult> AppendAndWait(uint32_t partition, std::vector<EventEnvelope> events);

  // Opens a reader over all partitions. `start` has one checkpoint per partition (missing
  // entries start at the beginning).
  virtual core::Result<std::unique_ptr<LogReader>> OpenReader(
      std::string consumer_name, std::vector<PartitionCheckpoint> start) = 0;

  // A reader over `partitions` only (a writer taking one partition over recovers it alone); the
  // default reads them all.
  virtual core::Result<std::unique_ptr<LogReader>> OpenPartitionReader(std::string consumer_name,
                                                                      std::vector<PartitionCheckpoint> start,
                                                                      const std::vector<uint32_t>& /*partitions*/) {
    return OpenReader(std::move(consumer_name), std::move(start));
  }

  // The next offset that will be assigned in each partition (= number of events in it).
  virtual core::Result<std::vector<uint64_t>> EndOffsets() = 0;
  // EndOffsets()[partition], asking the log for that partition only and at most `limit`: a log
  // that cannot say in time (a node cut from its brokers) is kUnavailable, never a guess.
  virtual core::Result<uint64_t> EndOffset(uint32_t partition, std::chrono::milliseconds /*limit*/) {
    SVC_ASSIGN_OR_RETURN(std::vector<uint64_t> ends, EndOffsets());
    if (partition >= ends.size()) return core::InvalidArgument("no partition " + std::to_string(partition));
    return ends[partition];
  }

  // The partitions this process appends to (ascending): all of them on one writer, none on a
  // process that only reads.
  virtual std::vector<uint32_t> OwnedPartitions() const {
    std::vector<uint32_t> all(PartitionCount());
    for (uint32_t p = 0; p < all.size(); ++p) all[p] = p;
    return all;
  }
  virtual bool Owns(uint32_t partition) const { return partition < PartitionCount(); }

  // Stops accepting appends, completes or fails the pending ones, joins threads.
  virtual void Close() = 0;
  virtual std::string BackendName() const = 0;

 protected:
  // Answers an append that needs no I/O (partition out of range, no events); true if it did.
  bool AnswerTrivialAppend(uint32_t partition, const std::vector<EventEnvelope>& events,
                           AppendCallback& done) const;
};

}  // namespace svc::eventstore
