#pragma once
// The embedded log: an append-only log in a RocksDB column family ("log"), key = partition
// (big-endian 32 bit) + offset (big-endian 64 bit), value = the JSON envelope.
//
// Group commit: Append only queues; one appender thread takes everything queued, assigns
// offsets, writes it as one RocksDB batch and fsyncs once (durability kFsync), then completes
// every append of the group in order. Many concurrent callers therefore share one fsync.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/metrics.h"
#include "eventstore/event_log.h"
#include "eventstore/kv_store.h"

namespace svc::eventstore {

enum class Durability {
  kFsync,  // an append is acknowledged after the write-ahead log is fsynced (default)
  kOs,     // acknowledged once written to the OS: survives a process crash, not a power loss
};

class EmbeddedLog final : public EventLog {
 public:
  struct Options {
    KvStore* store = nullptr;  // not owned; must outlive the log; needs column family "log"
    uint32_t partitions = 4;   // fixed at first open; a different value later is refused
    Durability durability = Durability::kFsync;
    size_t max_group_events = 8192;  // upper bound on events per group commit
    core::MetricsRegistry* metrics = nullptr;  // optional
  };

  static core::Result<std::unique_ptr<EmbeddedLog>> Open(const Options& options);
  ~EmbeddedLog() override;

  uint32_t PartitionCount() const override { return options_.partitions; }
  void Append(uint32_t partition, std::vector<EventEnvelope> events,
              AppendCallback done) override;
  core::Result<std::unique_ptr<LogReader>> OpenReader(
      std::string consumer_name, std::vector<PartitionCheckpoint> start) override;
  core::Result<std::vector<uint64_t>> EndOffsets() override;
  void Close() override;
  std::string BackendName() const override { return "embedded"; }

  // Reads up to `max` events of one partition from `from` (used by readers and tools).
  core::Result<std::vector<RecordedEvent>> Read(uint32_t partition, uint64_t from,
                                                size_t max) const;
  // As Read, appending to `out` (no intermediate copies on the replay path).
  core::Status ReadInto(uint32_t partition, uint64_t from, size_t max,
                        std::vector<RecordedEvent>& out) const;
  // A counter that moves on every successful group commit.
  uint64_t CommitGeneration() const { return generation_.load(); }
  // Blocks until a commit after `seen_generation`, `wait` passing, Close, or `*wake`.
  bool WaitForCommit(uint64_t seen_generation, std::chrono::milliseconds wait,
                     const std::atomic<bool>* wake);
  void WakeWaiters();

 private:
  explicit EmbeddedLog(const Options& options);
  void AppenderLoop();

  struct Pending {
    uint32_t partition;
    std::vector<std::string> encoded;
    AppendCallback done;
  };

  Options options_;
  int cf_ = -1;
  std::unique_ptr<std::atomic<uint64_t>[]> end_;  // committed end offset per partition
  std::vector<uint64_t> next_;                    // appender-only: next offset to assign
  std::atomic<uint64_t> generation_{0};

  std::mutex mu_;
  std::condition_variable cv_;        // appender wakes on new pending or close
  std::condition_variable tail_cv_;   // readers wake on commit
  std::deque<Pending> pending_;
  bool closing_ = false;
  std::thread appender_;

  core::Counter* appends_ = nullptr;
  core::Counter* events_ = nullptr;
  core::Counter* fsyncs_ = nullptr;
  core::Histogram* group_size_ = nullptr;
  core::Histogram* group_seconds_ = nullptr;
};

}  // namespace svc::eventstore
