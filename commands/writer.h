#pragma once
// The Writer: the write side's command handler.
//
// - One strand per log partition: commands of one partition (= of one tenant) are decided one
//   at a time, in order, so invariants such as "key already revoked" hold without a lock.
// - Pipelining: a decision is applied at once to the in-memory ("speculative") state and its
//   events are handed to the log; the next command of the partition is decided without waiting
//   for the fsync. The caller is answered only after its events are durable, and group commit in
//   the log lets many commands share one fsync.
// - The durable write model (column family "writer") is updated only by applying appended events,
//   with the partition's log checkpoint in the same batch. On start, Recover() replays the log
//   from that checkpoint, so the write model always equals "the log up to here".
// - Idempotency records are derived from event metadata (Idempotency-Key, request fingerprint)
//   and kept with the aggregate state: same key + same fingerprint = the same outcome; same key +
//   other fingerprint = IDEMPOTENCY_KEY_REUSED; same key while the first is in flight =
//   IDEMPOTENCY_KEY_IN_PROGRESS.
// - Fail-stop: if the log refuses an append, the partition stops taking commands (503) until a
//   restart recovers it from the log. Deciding on a state that is not the log's is never allowed.
//
// Thread-safety: Execute may be called from any thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <thread>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "commands/command.h"
#include "core/executor.h"
#include "core/metrics.h"
#include "eventstore/event_log.h"
#include "eventstore/kv_store.h"

namespace svc::commands {

using CommandCallback = std::function<void(core::Result<CommandOutcome>)>;

// Carries a command to the writer of its partition on another node (a cluster's command bus:
// commands/command_bus.h). The writer calls it for a command of a partition it does not decide.
class CommandForwarder {
 public:
  virtual ~CommandForwarder() = default;
  virtual void Forward(uint32_t partition, Command command, CommandCallback done) = 0;
};

class Writer {
 public:
  struct Options {
    eventstore::EventLog* log = nullptr;     // not owned
    eventstore::KvStore* store = nullptr;    // not owned; needs column family "writer"
    core::IdSource* ids = nullptr;           // event ids; not owned
    core::ThreadPool* pool = nullptr;        // runs the strands; not owned
    core::MetricsRegistry* metrics = nullptr;
    size_t cache_limit = 100000;  // aggregates kept in memory (clean ones are evicted first)
    int64_t idempotency_retention_seconds = 24 * 3600;  // records kept at least this long
    // TESTS ONLY (serve --debug-hold-commands): commands of these aggregate types are held, never
    // decided nor answered: a kill -9 meets the steps before them durable and theirs not (a crash
    // between a claim and its use).
    std::vector<std::string> debug_hold_types;
    // A command issued in this process and not answered within this time is answered 503 (its
    // outcome unknown: retried with its Idempotency-Key it gives the first result), and a command
    // still queued past it is not decided. 0: callers wait for the log, however long it takes
    // (the embedded log, on this machine's disk). On Kafka it is --command-timeout-ms: a node cut
    // from its brokers answers in bounded time, not after librdkafka's message timeout.
    std::chrono::milliseconds answer_timeout{0};
    // Events read from the log per step of a recovery (tests make it small, to split a command's
    // events across steps).
    size_t recovery_poll_events = 4096;
  };

  explicit Writer(const Options& options);
  ~Writer();

  // Registers an aggregate type (before Recover / Execute).
  void Register(std::unique_ptr<AggregateType> type);

  // Brings the durable write model up to the end of the log and decides every partition's
  // commands from then on (one process writes the log). Until a partition is recovered (here or by
  // TakeOver) its commands are answered kUnavailable and nothing is appended: a process without the
  // writer role never recovers any.
  core::Status Recover();

  // In a cluster (eventstore/writer_group.h), after the log took `partition` over (fenced its
  // earlier writer): brings its write model up to the log's end there and decides its commands
  // from then on.
  core::Status TakeOver(uint32_t partition);
  // Called once, from the thread that found it, when a partition this writer decides halts after
  // an event-log or store failure (its commands are answered 503 from then on). A cluster node
  // stops on it, so that the writers' group gives the partition to another node (issue 67).
  void OnHalt(std::function<void(uint32_t partition, const std::string& why)> f);
  // Called (on a log thread, possibly more than once per partition) when an append of a partition
  // this writer decides was refused because another writer took the partition over (a fence,
  // eventstore::kWriterFenced): the node's writers' group lets the partition go (issue 67).
  void OnFenced(std::function<void(uint32_t partition)> f);
  // Stops deciding `partition`'s commands: what its strand holds is answered kUnavailable, the
  // decision under way completes (its events are handed to the log), its cached states are
  // dropped. Call before the log releases the partition.
  void Release(uint32_t partition);
  // The partitions whose commands this writer decides (ascending).
  std::vector<uint32_t> Deciding() const;

  void Execute(Command command, CommandCallback done);
  core::Result<CommandOutcome> ExecuteAndWait(Command command);


  // Deletes the idempotency records older than the retention (24 h: past it a key is new again,
  // so the record only takes space) as of `now`; returns how many. Safe while commands run: a
  // record is re-read and deleted under the lock the committer writes records under.
  core::Result<int64_t> SweepIdempotency(core::Timestamp now);
  int64_t idempotency_retention_seconds() const { return options_.idempotency_retention_seconds; }

  // Reads the current (speculative) state of an aggregate, serialised; for tools and tests.
  core::Result<std::string> DebugState(const std::string& tenant_id, const std::string& type,
                                       const std::string& id);
  // False when a partition this writer decides stopped after a log or store failure.
  bool Healthy() const;
  // Commands of partitions decided elsewhere go to `forwarder` (not owned; null: answered 503).
  void SetForwarder(CommandForwarder* forwarder) { forwarder_.store(forwarder); }
  // Where this writer resumes `partition`'s part of the commands topic: after the highest command
  // offset its events record (EventEnvelope::command_ref); -2 (Kafka's "beginning") when none.
  core::Result<int64_t> ResumeOffset(uint32_t partition);
  bool IsDeciding(uint32_t partition) const;
  // IsDeciding of the tenant's partition.
  bool DecidesTenant(std::string_view tenant) const;
  // A registered aggregate type (nullptr when none has that name): decodes commands from the wire.
  const AggregateType* Type(std::string_view name) const { return FindType(name); }

  // Key layout of the durable write model (column family "writer").
  static std::string AggregateKey(std::string_view tenant, std::string_view type,
                                  std::string_view id);
  static std::string IdempotencyKey(std::string_view tenant, std::string_view environment,
                                    std::string_view key);
  static std::string CheckpointKey(uint32_t partition);
  static std::string CommandOffsetKey(uint32_t partition);

 private:
  std::mutex held_mu_;
  std::vector<std::pair<Command, CommandCallback>> held_;  // debug_hold_types
  core::Counter* held_counter_ = nullptr;
  struct Slot {
    std::any state;
    int64_t version = 0;            // speculative
    int64_t committed_version = 0;  // in the durable write model
    bool loaded = false;
  };
  struct IdemRecord {
    std::string fingerprint;
    bool pending = true;
    CommandOutcome outcome;
    int64_t created_micros = 0;
  };
  struct Partition;
  struct CommitItem;
  // A caller's callback under Options::answer_timeout: answered once, by the result or by the
  // deadline, whichever comes first.
  struct Awaited {
    std::mutex mu;
    CommandCallback done;  // empty once answered
    std::chrono::steady_clock::time_point at;
  };
  static void AnswerOnce(Awaited& awaited, core::Result<CommandOutcome> r);
  void DeadlineLoop();

  void Run(Partition& part, Command& command, CommandCallback& done);
  core::Result<Slot*> LoadSlot(Partition& part, const AggregateType& type, bool fresh_id,
                               const std::string& tenant, const std::string& id);
  core::Result<std::optional<IdemRecord>> LoadIdem(Partition& part, const std::string& key);
  void OnAppended(Partition& part, std::shared_ptr<CommitItem> item,
                  core::Result<eventstore::AppendResult> r);
  // Answers a command that appended nothing (a no-op, or refused) once every append of the
  // partition decided before it is acknowledged: its answer was decided on a state those appends
  // made. If one of them fails, it is answered 503 (not decided) instead.
  void AnswerAfterEarlierAppends(Partition& part, core::Result<CommandOutcome> r, CommandCallback done);
  // The answers an append's acknowledgement (or failure) releases; called with part.mu held.
  std::vector<std::pair<CommandCallback, core::Result<CommandOutcome>>> Releasable(Partition& part);
  const AggregateType* FindType(std::string_view name) const;
  core::Status ApplyRecovered(std::vector<eventstore::RecordedEvent>& events);
  // Recovers the durable write model of `partitions` (all of them when empty) from their
  // checkpoints to the log's end and empties their caches.
  core::Status RecoverPartitions(const std::vector<uint32_t>& partitions);
  void MaybeEvict(Partition& part);
  void CommitLoop();

  Options options_;
  int cf_ = -1;
  std::map<std::string, std::unique_ptr<AggregateType>, std::less<>> types_;
  std::vector<std::unique_ptr<Partition>> partitions_;
  std::atomic<bool> any_broken_{false};
  std::mutex on_halt_mu_;
  std::function<void(uint32_t, const std::string&)> on_halt_;
  std::function<void(uint32_t)> on_fenced_;  // under on_halt_mu_
  std::atomic<bool> halt_told_{false};
  void Halted(uint32_t partition, const std::string& why);
  std::atomic<CommandForwarder*> forwarder_{nullptr};

  // The committer thread writes the durable write model after the log has the events.
  std::mutex commit_mu_;
  std::condition_variable commit_cv_;
  std::deque<std::shared_ptr<CommitItem>> commit_queue_;
  bool commit_stop_ = false;
  std::thread committer_;
  // Held by the committer while it writes a batch and by the idempotency sweep while it deletes.
  std::mutex records_mu_;

  // Awaited callbacks in deadline order (one timeout for all, so arrival order), and the thread
  // that answers those past it. Answered entries stay until their deadline (bounded: the rate of
  // commands times the timeout, a few bytes each).
  std::mutex awaited_mu_;
  std::condition_variable awaited_cv_;
  std::deque<std::shared_ptr<Awaited>> awaited_;
  bool awaited_stop_ = false;
  std::thread deadline_thread_;
  core::Counter* answer_timeouts_ = nullptr;

  core::Counter* commands_ok_ = nullptr;
  core::Counter* commands_rejected_ = nullptr;
  core::Counter* idempotent_replays_ = nullptr;
};

}  // namespace svc::commands
