#pragma once
// ProjectionRunner: feeds projectors from the log. It reads once for all of them (from the
// earliest of their checkpoints), decodes each event once, gives it to every projector that has
// not applied it yet, and commits every projector's rows and checkpoints in one atomic batch, so
// a crash never leaves rows without their checkpoint or the other way round. A projector that
// rebuilds (its version changed) is fed from the start while the others skip what they have.
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
    Projector* projector = nullptr;       // one projector, or
    std::vector<Projector*> projectors;   // several fed from one reader (not owned)
    eventstore::EventLog* log = nullptr;  // not owned
    eventstore::KvStore* store = nullptr; // rows + checkpoints; not owned
    core::MetricsRegistry* metrics = nullptr;
    size_t batch_events = 2000;
  };
  explicit ProjectionRunner(const Options& options);
  ~ProjectionRunner();

  // Checks each projector's stored version (a different one wipes its rows: rebuild), loads the
  // checkpoints and opens one reader at the earliest of them. Call once.
  core::Status Prepare();
  // Starts the background loop.
  void Start();
  void Stop();
  // Applies until the reader reports it has reached the end of every partition (used by replay
  // and at start-up in tests).
  core::Status RunUntilCaughtUp();
  // Drops rows, checkpoints and version of every projector (replay starts from scratch).
  core::Status Reset();

  // True when every projector of the runner has applied `p`.
  bool HasApplied(const eventstore::LogPosition& p) const;
  // True when `projector` has applied `p`, or is not fed by this runner.
  bool HasApplied(const eventstore::LogPosition& p, std::string_view projector) const;
  // Waits until every position is applied, the runner fails, or `timeout`.
  bool WaitApplied(const std::vector<eventstore::LogPosition>& positions,
                   std::chrono::milliseconds timeout);
  // Next offset to apply per partition, for one projector of the runner.
  std::vector<uint64_t> AppliedOffsets(std::string_view projector) const;
  // Called after every committed batch (the set uses it to wake its waiters).
  void SetOnApplied(std::function<void()> fn) { on_applied_ = std::move(fn); }
  bool CaughtUpOnce() const { return caught_up_once_.load(); }
  bool Failed() const { return failed_.load(); }
  std::vector<std::string_view> Names() const;
  uint64_t EventsApplied(std::string_view projector) const;

 private:
  // One projector fed by this runner: where it is, per partition, and its counters.
  struct Member {
    Projector* projector = nullptr;
    std::vector<eventstore::PartitionCheckpoint> at;  // next to apply, per partition
    // What the store holds of `at`, per partition: a member that wrote no row in a batch saves its
    // checkpoint only every kCheckpointEvery events (ApplyBatch).
    std::vector<uint64_t> saved;
    std::atomic<uint64_t> applied_total{0};
    core::Counter* events_counter = nullptr;
    core::Counter* batches_counter = nullptr;
  };
  core::Status ApplyBatch(std::vector<eventstore::RecordedEvent>& events);
  core::Status PrepareMember(Member& m);
  core::Status SaveCheckpoints();
  core::Status ResetMember(const Member& m);
  void Loop();
  static std::string CheckpointKey(std::string_view projector, uint32_t p);
  static std::string VersionKey(std::string_view projector);

  Options options_;
  std::vector<std::unique_ptr<Member>> members_;
  std::string name_;  // the projectors' names, joined with "+" (logs, thread name)
  int views_cf_ = -1;
  int meta_cf_ = -1;
  std::unique_ptr<eventstore::LogReader> reader_;
  mutable std::mutex mu_;  // guards Member::at
  std::condition_variable cv_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::atomic<bool> caught_up_once_{false};
  std::thread thread_;
  std::function<void()> on_applied_;
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
  // Calls `done(true)` once the projectors named in `views` (empty: every projector) have
  // applied every position, or `done(false)` after `timeout`; never blocks the caller. `done`
  // runs on the set's waiter thread. A write's answer names the read models it reads, so it
  // never waits for a projector it does not read (the audit chain, say).
  void WhenApplied(std::vector<eventstore::LogPosition> positions,
                   std::chrono::milliseconds timeout, std::function<void(bool)> done) {
    WhenApplied(std::move(positions), {}, timeout, std::move(done));
  }
  void WhenApplied(std::vector<eventstore::LogPosition> positions,
                   std::vector<std::string_view> views, std::chrono::milliseconds timeout,
                   std::function<void(bool)> done);
  bool AllApplied(const std::vector<eventstore::LogPosition>& positions,
                  const std::vector<std::string_view>& views = {}) const;
  bool AllCaughtUpOnce() const;
  bool AnyFailed() const;
  // Next offset to apply per partition, for `projector` (empty when no runner feeds it).
  std::vector<uint64_t> AppliedOffsets(std::string_view projector) const;
  const std::vector<std::unique_ptr<ProjectionRunner>>& runners() const { return runners_; }

 private:
  struct Waiter {
    std::vector<eventstore::LogPosition> positions;
    std::vector<std::string_view> views;
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
