#pragma once
// ProjectionRunner: feeds one projector from the log. It reads from the checkpoints stored with
// the rows, applies events in batches and commits rows + checkpoints in one atomic batch, so a
// crash never leaves rows without their checkpoint or the other way round.
//
// ProjectionSet: all runners, and the read-your-writes wait ("has every projector applied
// position P?") that write responses use before answering.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/metrics.h"
#include "eventstore/event_log.h"
#include "eventstore/kv_store.h"
#include "projections/projector.h"

namespace svc::projections {

class ProjectionRunner {
 public:
  struct Options {
    Projector* projector = nullptr;       // not owned
    eventstore::EventLog* log = nullptr;  // not owned
    eventstore::KvStore* store = nullptr; // rows + checkpoints; not owned
    core::MetricsRegistry* metrics = nullptr;
    size_t batch_events = 2000;
  };
  explicit ProjectionRunner(const Options& options);
  ~ProjectionRunner();

  // Checks the stored version (a different one wipes the rows: rebuild), loads checkpoints and
  // opens the reader. Call once.
  core::Status Prepare();
  // Starts the background loop.
  void Start();
  void Stop();
  // Applies until the reader reports it has reached the end of every partition (used by replay
  // and at start-up in tests).
  core::Status RunUntilCaughtUp();
  // Drops rows, checkpoints and version (replay of this projector starts from scratch).
  core::Status Reset();

  bool HasApplied(const eventstore::LogPosition& p) const;
  // Waits until every position is applied, the runner fails, or `timeout`.
  bool WaitApplied(const std::vector<eventstore::LogPosition>& positions,
                   std::chrono::milliseconds timeout);
  std::vector<uint64_t> AppliedOffsets() const;
  // Called after every committed batch (the set uses it to wake its waiters).
  void SetOnApplied(std::function<void()> fn) { on_applied_ = std::move(fn); }
  bool CaughtUpOnce() const { return caught_up_once_.load(); }
  bool Failed() const { return failed_.load(); }
  std::string_view Name() const { return options_.projector->Name(); }
  uint64_t EventsApplied() const { return applied_total_.load(); }

 private:
  core::Status ApplyBatch(std::vector<eventstore::RecordedEvent>& events);
  void Loop();
  std::string CheckpointKey(uint32_t p) const;
  std::string VersionKey() const;

  Options options_;
  int views_cf_ = -1;
  int meta_cf_ = -1;
  std::unique_ptr<eventstore::LogReader> reader_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<uint64_t> applied_;  // next offset to apply, per partition
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::atomic<bool> caught_up_once_{false};
  std::atomic<uint64_t> applied_total_{0};
  std::thread thread_;
  std::function<void()> on_applied_;
  core::Counter* events_counter_ = nullptr;
  core::Counter* batches_counter_ = nullptr;
};

class ProjectionSet {
 public:
  ProjectionSet();
  ~ProjectionSet();
  void Add(std::unique_ptr<ProjectionRunner> runner);
  core::Status PrepareAll();
  void StartAll();
  void StopAll();
  bool WaitApplied(const std::vector<eventstore::LogPosition>& positions,
                   std::chrono::milliseconds timeout);
  // Calls `done(true)` once every runner has applied every position, or `done(false)` after
  // `timeout`; never blocks the caller. `done` runs on the set's waiter thread.
  void WhenApplied(std::vector<eventstore::LogPosition> positions,
                   std::chrono::milliseconds timeout, std::function<void(bool)> done);
  bool AllApplied(const std::vector<eventstore::LogPosition>& positions) const;
  bool AllCaughtUpOnce() const;
  bool AnyFailed() const;
  const std::vector<std::unique_ptr<ProjectionRunner>>& runners() const { return runners_; }

 private:
  struct Waiter {
    std::vector<eventstore::LogPosition> positions;
    std::chrono::steady_clock::time_point deadline;
    std::function<void(bool)> done;
  };
  void WaiterLoop();
  std::vector<std::unique_ptr<ProjectionRunner>> runners_;
  std::mutex waiters_mu_;
  std::condition_variable waiters_cv_;
  std::vector<Waiter> waiters_;
  bool stop_waiters_ = false;
  std::thread waiter_thread_;
};

}  // namespace svc::projections
