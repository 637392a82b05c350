#include "commands/writer.h"

#include <set>

#include <algorithm>

#include "core/executor.h"

#include <condition_variable>
#include <deque>
#include <future>
#include <thread>

#include "core/clock.h"
#include "core/crypto.h"
#include "core/json_fields_read.h"
#include "core/log.h"

namespace svc::commands {

using eventstore::EventEnvelope;
using eventstore::KvStore;
using eventstore::LogPosition;

struct Writer::CommitItem {
  uint32_t partition = 0;
  std::vector<std::pair<std::string, std::string>> snapshots;  // key -> value (version+state)
  std::string slot_key;
  int64_t version = 0;
  std::string idem_key;  // empty: none
  std::string idem_value;
  std::string fingerprint;
  int64_t created_micros = 0;
  std::string aggregate_type;
  std::string aggregate_id;
  CommandOutcome outcome;
  CommandCallback done;
  int64_t backend_cursor = -1;
  uint64_t backend_epoch = 0;
  int64_t bus_offset = -1;
  uint64_t seq = 0;  // the partition's append sequence (Partition::outstanding)
};

struct Writer::Partition {
  explicit Partition(core::ThreadPool& pool, uint32_t i) : index(i), strand(pool) {}
  uint32_t index;
  core::Strand strand;
  std::mutex mu;  // guards slots, slot_order and idem (strand + commit path)
  std::unordered_map<std::string, Slot> slots;
  std::deque<std::string> slot_order;
  std::unordered_map<std::string, IdemRecord> idem;
  std::atomic<bool> broken{false};
  std::atomic<bool> deciding{false};  // recovered here; this writer decides its commands
  // Appends handed to the log and not yet acknowledged (their sequence numbers), and the answers
  // of commands that appended nothing waiting for those decided before them (under mu).
  uint64_t next_seq = 0;
  std::set<uint64_t> outstanding;
  uint64_t failed_seq = UINT64_MAX;  // the first append of this partition that failed
  struct Waiting {
    uint64_t barrier;  // every append up to this one must be acknowledged first
    core::Result<CommandOutcome> result;
    CommandCallback done;
  };
  std::deque<Waiting> waiting;
};

namespace {

std::string EncodeSlotValue(int64_t version, std::string_view state) {
  std::string v;
  eventstore::PutFixed64BE(v, static_cast<uint64_t>(version));
  v.append(state);
  return v;
}

// Whether `whole` has every member of `part` with the same value (or is it, when not an object).
bool Contains(const core::Json& whole, const core::Json& part) {
  if (!part.is_object()) return whole == part;
  if (!whole.is_object()) return false;
  for (const auto& [k, v] : part.items()) {
    auto it = whole.find(k);
    if (it == whole.end() || *it != v) return false;
  }
  return true;
}

core::Json PositionsJson(const std::vector<LogPosition>& ps) {
  core::Json a = core::Json::array();
  for (const auto& p : ps) a.push_back(core::Json::array({p.partition, p.offset}));
  return a;
}

std::string EncodeIdem(const std::string& fingerprint, const std::string& aggregate_type,
                       const std::string& aggregate_id, const CommandOutcome& o,
                       int64_t created_micros) {
  core::Json j;
  j["fingerprint"] = fingerprint;
  j["aggregateType"] = aggregate_type;
  j["aggregateId"] = aggregate_id;
  j["aggregateVersion"] = o.aggregate_version;
  j["positions"] = PositionsJson(o.positions);
  j["result"] = o.result;
  j["createdAtMicros"] = created_micros;
  return core::DumpJson(j);
}

}  // namespace

Writer::Writer(const Options& options) : options_(options) {
  cf_ = options_.store->Cf("writer");
  uint32_t n = options_.log->PartitionCount();
  for (uint32_t i = 0; i < n; ++i) {
    partitions_.push_back(std::make_unique<Partition>(*options_.pool, i));
  }
  if (options_.metrics != nullptr) {
    commands_ok_ = &options_.metrics->GetCounter("svc_commands_total", "Commands by outcome",
                                                 "outcome=\"appended\"");
    commands_rejected_ = &options_.metrics->GetCounter("svc_commands_total",
                                                       "Commands by outcome",
                                                       "outcome=\"rejected\"");
    if (!options_.debug_hold_types.empty()) {
      held_counter_ = &options_.metrics->GetCounter("svc_debug_held_commands_total",
                                                    "TESTS ONLY: commands held by --debug-hold-commands");
    }
    idempotent_replays_ = &options_.metrics->GetCounter("svc_commands_total",
                                                        "Commands by outcome",
                                                        "outcome=\"idempotent_replay\"");
  }
  committer_ = std::thread([this] {
    core::SetThreadName("svc-wm-commit");
    CommitLoop();
  });
  if (options_.answer_timeout.count() > 0) {
    if (options_.metrics != nullptr) {
      answer_timeouts_ = &options_.metrics->GetCounter(
          "svc_command_answer_timeouts_total",
          "Commands answered 503 because the log had not acknowledged them within the command wait");
    }
    deadline_thread_ = std::thread([this] {
      core::SetThreadName("svc-cmd-deadline");
      DeadlineLoop();
    });
  }
}

Writer::~Writer() {
  // Held commands (tests only) are dropped unanswered: what their callbacks would reach (the
  // read models, the HTTP server) may be gone by now.
  held_.clear();
  {
    std::lock_guard lock(commit_mu_);
    commit_stop_ = true;
  }
  commit_cv_.notify_all();
  if (committer_.joinable()) committer_.join();
  // Callbacks still awaited are dropped unanswered, as held ones are.
  {
    std::lock_guard lock(awaited_mu_);
    awaited_stop_ = true;
  }
  awaited_cv_.notify_all();
  if (deadline_thread_.joinable()) deadline_thread_.join();
}

void Writer::AnswerOnce(Awaited& awaited, core::Result<CommandOutcome> r) {
  CommandCallback done;
  {
    std::lock_guard lock(awaited.mu);
    done.swap(awaited.done);
  }
  if (done) done(std::move(r));
}

void Writer::DeadlineLoop() {
  std::unique_lock lock(awaited_mu_);
  while (!awaited_stop_) {
    if (awaited_.empty()) {
      awaited_cv_.wait(lock);
      continue;
    }
    std::shared_ptr<Awaited> first = awaited_.front();
    if (std::chrono::steady_clock::now() < first->at) {
      awaited_cv_.wait_until(lock, first->at);
      continue;
    }
    awaited_.pop_front();
    lock.unlock();
    bool pending;
    {
      std::lock_guard l(first->mu);
      pending = static_cast<bool>(first->done);
    }
    if (pending) {
      if (answer_timeouts_ != nullptr) answer_timeouts_->Add();
      AnswerOnce(*first, core::Unavailable(
                             "the event log did not acknowledge the command within the command wait; its outcome is "
                             "not known: retry it with the same Idempotency-Key",
                             "SERVICE_UNAVAILABLE"));
    }
    lock.lock();
  }
}

void Writer::Register(std::unique_ptr<AggregateType> type) {
  std::string name(type->Name());
  types_[name] = std::move(type);
}

const AggregateType* Writer::FindType(std::string_view name) const {
  auto it = types_.find(name);
  return it == types_.end() ? nullptr : it->second.get();
}

std::string Writer::AggregateKey(std::string_view tenant, std::string_view type,
                                 std::string_view id) {
  std::string k = "a/";
  k.append(tenant).append("/").append(type).append("/").append(id);
  return k;
}

std::string Writer::IdempotencyKey(std::string_view tenant, std::string_view environment,
                                   std::string_view key) {
  std::string k = "i/";
  k.append(tenant).append("/").append(environment).append("/").append(key);
  return k;
}

std::string Writer::CheckpointKey(uint32_t partition) {
  std::string k = "p/";
  eventstore::PutFixed32BE(k, partition);
  return k;
}

std::string Writer::CommandOffsetKey(uint32_t partition) {
  std::string k = "c/";
  eventstore::PutFixed32BE(k, partition);
  return k;
}

bool Writer::Healthy() const {
  for (const auto& p : partitions_) {
    if (p->broken.load() && p->deciding.load()) return false;
  }
  return true;
}

bool Writer::IsDeciding(uint32_t partition) const {
  return partition < partitions_.size() && partitions_[partition]->deciding.load();
}

bool Writer::DecidesTenant(std::string_view tenant) const { return IsDeciding(options_.log->PartitionFor(tenant)); }

core::Result<int64_t> Writer::ResumeOffset(uint32_t partition) {
  SVC_ASSIGN_OR_RETURN(auto v, options_.store->Get(cf_, CommandOffsetKey(partition)));
  if (!v.has_value() || v->size() != 8) return int64_t{-2};
  return static_cast<int64_t>(eventstore::GetFixed64BE(*v)) + 1;
}

core::Result<Writer::Slot*> Writer::LoadSlot(Partition& part, const AggregateType& type,
                                             bool fresh_id, const std::string& tenant,
                                             const std::string& id) {
  std::string key = AggregateKey(tenant, type.Name(), id);
  {
    std::lock_guard lock(part.mu);
    auto it = part.slots.find(key);
    if (it != part.slots.end()) return &it->second;
  }
  Slot slot;
  std::optional<std::string> stored;
  if (!fresh_id) {
    SVC_ASSIGN_OR_RETURN(stored, options_.store->Get(cf_, key));
  }
  if (stored.has_value()) {
    if (stored->size() < 8) return core::DataLoss("write model row too short: " + key);
    slot.version = slot.committed_version =
        static_cast<int64_t>(eventstore::GetFixed64BE(*stored));
    SVC_ASSIGN_OR_RETURN(slot.state, type.Deserialize(std::string_view(*stored).substr(8)));
  } else {
    slot.state = type.Initial();
  }
  slot.loaded = true;
  std::lock_guard lock(part.mu);
  auto [it, inserted] = part.slots.emplace(key, std::move(slot));
  if (inserted) part.slot_order.push_back(key);
  return &it->second;
}

core::Result<std::optional<Writer::IdemRecord>> Writer::LoadIdem(Partition& part,
                                                                 const std::string& key) {
  {
    std::lock_guard lock(part.mu);
    auto it = part.idem.find(key);
    if (it != part.idem.end()) return std::optional<IdemRecord>(it->second);
  }
  SVC_ASSIGN_OR_RETURN(auto stored, options_.store->Get(cf_, key));
  if (!stored.has_value()) return std::optional<IdemRecord>();
  core::Json j = core::ParseJsonOrDiscarded(*stored);
  if (j.is_discarded()) return core::DataLoss("idempotency record is not JSON");
  IdemRecord r;
  r.fingerprint = j.value("fingerprint", "");
  r.pending = false;
  r.created_micros = j.value("createdAtMicros", int64_t{0});
  r.outcome.aggregate_version = j.value("aggregateVersion", int64_t{0});
  r.outcome.aggregate_id = j.value("aggregateId", "");
  r.outcome.result = j.contains("result") ? j["result"] : core::Json();
  if (j.contains("positions")) {
    for (const auto& p : j["positions"]) {
      r.outcome.positions.push_back(
          LogPosition{p.at(0).get<uint32_t>(), p.at(1).get<uint64_t>()});
    }
  }
  return std::optional<IdemRecord>(std::move(r));
}

void Writer::Execute(Command command, CommandCallback done) {
  if (!options_.debug_hold_types.empty() &&
      std::find(options_.debug_hold_types.begin(), options_.debug_hold_types.end(), command.aggregate_type) !=
          options_.debug_hold_types.end()) {
    std::lock_guard lock(held_mu_);
    held_.emplace_back(std::move(command), std::move(done));
    if (held_counter_ != nullptr) held_counter_->Add();
    return;
  }
  if (options_.answer_timeout.count() > 0 && command.bus_offset < 0 && done) {
    auto awaited = std::make_shared<Awaited>();
    awaited->done = std::move(done);
    awaited->at = std::chrono::steady_clock::now() + options_.answer_timeout;
    command.answer_by_micros =
        core::SystemClock().Now().micros +
        std::chrono::duration_cast<std::chrono::microseconds>(options_.answer_timeout).count();
    done = [awaited](core::Result<CommandOutcome> r) { AnswerOnce(*awaited, std::move(r)); };
    bool was_empty;
    {
      std::lock_guard lock(awaited_mu_);
      was_empty = awaited_.empty();
      awaited_.push_back(std::move(awaited));
    }
    if (was_empty) awaited_cv_.notify_one();
  }
  uint32_t p = options_.log->PartitionFor(command.tenant_id);
  Partition& part = *partitions_[p];
  part.strand.Post([this, &part, command = std::move(command), done = std::move(done)]() mutable {
    // A decider or codec that throws (a bug) must fail its command, not the process. Its caller is
    // answered at most once: when the throw came from the caller's own callback (it was answered
    // and failed on the answer), a second answer would run the caller's continuation twice
    // (issue 67: a person create's claim step threw on a replayed answer, and was then answered
    // 500 on one backend and never on the other). That is logged, not answered again.
    struct Once {
      std::atomic<bool> answered{false};
      CommandCallback done;
    };
    auto guard = std::make_shared<Once>();
    guard->done = std::move(done);
    CommandCallback once = [guard](core::Result<CommandOutcome> r) {
      if (!guard->answered.exchange(true) && guard->done) guard->done(std::move(r));
    };
    try {
      Run(part, command, once);
    } catch (const std::exception& e) {
      const bool answered = guard->answered.exchange(true);
      core::LogError(answered ? "command callback threw" : "command threw",
                     {{"aggregateType", command.aggregate_type}, {"error", e.what()}});
      if (!answered && guard->done) guard->done(core::Internal(std::string("command failed: ") + e.what()));
    }
  });
}

void Writer::OnHalt(std::function<void(uint32_t, const std::string&)> f) {
  std::lock_guard lock(on_halt_mu_);
  on_halt_ = std::move(f);
}

void Writer::OnFenced(std::function<void(uint32_t)> f) {
  std::lock_guard lock(on_halt_mu_);
  on_fenced_ = std::move(f);
}

void Writer::Halted(uint32_t partition, const std::string& why) {
  if (halt_told_.exchange(true)) return;
  std::function<void(uint32_t, const std::string&)> f;
  {
    std::lock_guard lock(on_halt_mu_);
    f = on_halt_;
  }
  if (f) f(partition, why);
}

core::Result<CommandOutcome> Writer::ExecuteAndWait(Command command) {
  std::promise<core::Result<CommandOutcome>> promise;
  auto future = promise.get_future();
  Execute(std::move(command),
          [&promise](core::Result<CommandOutcome> r) { promise.set_value(std::move(r)); });
  return future.get();
}

void Writer::Run(Partition& part, Command& command, CommandCallback& done) {
  if (!part.deciding.load()) {
    // Decided elsewhere: carried there, unless it came from there (the commands topic: the
    // partition's next writer reads it again).
    CommandForwarder* forwarder = forwarder_.load();
    if (forwarder != nullptr && command.bus_offset < 0) {
      forwarder->Forward(part.index, std::move(command), std::move(done));
      return;
    }
    done(core::Unavailable("this node does not decide the commands of log partition " + std::to_string(part.index),
                           "SERVICE_UNAVAILABLE"));
    return;
  }
  if (part.broken.load()) {
    done(core::Unavailable("the write side stopped after an event-log failure; restart to recover",
                           "SERVICE_UNAVAILABLE"));
    return;
  }
  // Its asker was answered 503 already (the log was slow or out of reach): never decided now.
  if (command.answer_by_micros > 0 && core::SystemClock().Now().micros > command.answer_by_micros) {
    done(core::Unavailable("the command waited past its deadline; it was not decided", "SERVICE_UNAVAILABLE"));
    return;
  }
  const AggregateType* type = FindType(command.aggregate_type);
  if (type == nullptr) {
    done(core::Internal("unknown aggregate type " + command.aggregate_type));
    return;
  }
  const CommandContext& ctx = command.context;

  std::string idem_key;
  if (!ctx.idempotency_key.empty()) {
    idem_key = IdempotencyKey(command.tenant_id, ctx.environment, ctx.idempotency_key);
    auto rec = LoadIdem(part, idem_key);
    if (!rec.ok()) {
      done(rec.status());
      return;
    }
    if (rec->has_value()) {
      const IdemRecord& r = **rec;
      bool expired = r.created_micros + options_.idempotency_retention_seconds * 1000000 <
                     ctx.now.micros;
      if (!expired || r.pending) {
        // A record from before keyed fingerprints (64 hex characters, no "m1:") cannot be
        // compared with today's form: its retry is taken as the same request (the record lives
        // idempotency_retention_seconds, so only a retry across the upgrade meets one).
        const bool legacy = r.fingerprint.size() == 64 && r.fingerprint.find(':') == std::string::npos;
        if (!legacy && !core::ConstantTimeEquals(r.fingerprint, ctx.request_fingerprint)) {
          done(core::FailedPrecondition(
              "this Idempotency-Key was used with a different request", "IDEMPOTENCY_KEY_REUSED"));
          return;
        }
        if (r.pending) {
          done(core::Aborted("a request with this Idempotency-Key is still in progress",
                             "IDEMPOTENCY_KEY_IN_PROGRESS"));
          return;
        }
        if (idempotent_replays_ != nullptr) idempotent_replays_->Add();
        CommandOutcome o = r.outcome;
        o.replayed = true;
        done(std::move(o));
        return;
      }
    }
  }

  auto slot_or = LoadSlot(part, *type, command.fresh_id, command.tenant_id, command.aggregate_id);
  if (!slot_or.ok()) {
    done(slot_or.status());
    return;
  }
  Slot& slot = **slot_or;

  core::Result<Decision> decision = core::Internal("command without a decision");
  if (command.decide_reading) {
    // Reads of other aggregates of the tenant, in this strand: the state every earlier command
    // of the partition left.
    StateReader read = [this, &part, &command](std::string_view type_name,
                                               std::string_view id) -> core::Result<AggregateView> {
      const AggregateType* t = FindType(type_name);
      if (t == nullptr) return core::Internal("unknown aggregate type " + std::string(type_name));
      SVC_ASSIGN_OR_RETURN(Slot * s, LoadSlot(part, *t, false, command.tenant_id, std::string(id)));
      return AggregateView{&s->state, s->version};
    };
    decision = command.decide_reading(slot.state, read, ctx);
  } else {
    decision = command.decide(slot.state, ctx);
  }
  if (!decision.ok()) {
    if (commands_rejected_ != nullptr) commands_rejected_->Add();
    AnswerAfterEarlierAppends(part, decision.status(), std::move(done));
    return;
  }
  if (decision->events.empty()) {
    CommandOutcome o;
    o.aggregate_id = command.aggregate_id;
    o.aggregate_version = slot.version;
    o.result = std::move(decision->result);
    // A keyed no-op leaves no idempotency record: a retry is decided again. Person writes rely on
    // it: their probe (a keyed empty revision, pipeline/persons/person_writes.cc) asks whether the
    // key was answered, and must not itself answer it.
    AnswerAfterEarlierAppends(part, std::move(o), std::move(done));
    return;
  }

  // Build the envelopes and apply them to a copy of the state; swap in only if all apply.
  std::vector<EventEnvelope> envelopes;
  envelopes.reserve(decision->events.size());
  std::any next = slot.state;
  int64_t version = slot.version;
  for (auto& ne : decision->events) {
    // An event every reader can decode, or none: a record without a type, tenant or data would stop
    // every consumer of the partition on every node (the log keeps it).
    if (ne.type.empty() || command.tenant_id.empty() || ne.data.empty()) {
      if (commands_rejected_ != nullptr) commands_rejected_->Add();
      core::LogError("writer: a decision made an event no reader could decode; nothing appended",
                     {{"aggregateType", command.aggregate_type}, {"eventType", ne.type}});
      done(core::Internal("a decision made an event without a type, tenant or data"));
      return;
    }
    EventEnvelope e;
    e.id = options_.ids->NewIdString(core::IdKind::kEvent);
    e.type = std::move(ne.type);
    e.schema_version = ne.schema_version;
    e.tenant_id = command.tenant_id;
    e.environment = ctx.environment;
    e.aggregate_type = command.aggregate_type;
    e.aggregate_id = command.aggregate_id;
    e.aggregate_version = ++version;
    e.occurred_at = ctx.now;
    e.actor = ctx.actor;
    e.request_id = ctx.request_id;
    e.correlation_id = ctx.correlation_id.empty() ? ctx.request_id : ctx.correlation_id;
    e.causation_id = ctx.causation_id;
    e.idempotency_key = ctx.idempotency_key;
    e.request_fingerprint = ctx.request_fingerprint;
    if (command.bus_offset >= 0) e.command_ref = std::to_string(command.bus_offset);
    e.data = std::move(ne.data);
    core::Status st = type->ApplyDecided(next, e, ne.typed);
    if (!st.ok()) {
      done(core::Internal("a decided event does not apply: " + st.message()));
      return;
    }
    envelopes.push_back(std::move(e));
  }

  // A keyed command is answered with what a retry after a crash will be told: the answer the write
  // model would rebuild from these events (ApplyRecovered), computed here by the same function so
  // that the two cannot differ. It holds every member the decision's own result has (checked for
  // every decider by tests/support/decider_spec.h); a type that tells nothing keeps the decision's.
  if (!ctx.idempotency_key.empty()) {
    core::Json told = type->ResultOf(envelopes, next);
    if (!decision->result.is_null() && !Contains(told, decision->result)) {
      // A decider whose answers are given live only (kNeverKeyed), run with a key after all: a
      // retry after a crash would not be told this answer. A bug to fix where it is logged.
      core::LogError("a keyed command's answer cannot be told again from its events",
                     {{"aggregateType", command.aggregate_type}, {"eventType", envelopes.front().type}});
    } else if (!told.is_null()) {
      decision->result = std::move(told);
    }
  }

  auto item = std::make_shared<CommitItem>();
  item->partition = part.index;
  item->slot_key = AggregateKey(command.tenant_id, command.aggregate_type, command.aggregate_id);
  item->version = version;
  item->snapshots.emplace_back(item->slot_key, EncodeSlotValue(version, type->Serialize(next)));
  item->outcome.aggregate_version = version;
  item->outcome.aggregate_id = command.aggregate_id;
  item->outcome.result = std::move(decision->result);
  item->done = std::move(done);
  {
    std::lock_guard lock(part.mu);
    item->seq = ++part.next_seq;
    part.outstanding.insert(item->seq);
    slot.state = std::move(next);
    slot.version = version;
    if (!idem_key.empty()) {
      IdemRecord r;
      r.fingerprint = ctx.request_fingerprint;
      r.pending = true;
      r.created_micros = ctx.now.micros;
      part.idem[idem_key] = std::move(r);
    }
  }
  item->idem_key = std::move(idem_key);
  item->fingerprint = ctx.request_fingerprint;
  item->created_micros = ctx.now.micros;
  item->aggregate_type = command.aggregate_type;
  item->aggregate_id = command.aggregate_id;
  item->bus_offset = command.bus_offset;
  options_.log->Append(part.index, std::move(envelopes),
                       [this, &part, item](core::Result<eventstore::AppendResult> r) {
                         OnAppended(part, item, std::move(r));
                       });
}

void Writer::AnswerAfterEarlierAppends(Partition& part, core::Result<CommandOutcome> r, CommandCallback done) {
  {
    std::lock_guard lock(part.mu);
    if (part.failed_seq != UINT64_MAX) {
      // Decided on a state an append that failed had made (the partition is recovered from the
      // log before it decides again).
      r = core::Unavailable("an earlier write of this partition failed; the request was not decided",
                            "SERVICE_UNAVAILABLE");
    } else if (!part.outstanding.empty()) {
      part.waiting.push_back({*part.outstanding.rbegin(), std::move(r), std::move(done)});
      return;
    }
  }
  done(std::move(r));
}

std::vector<std::pair<CommandCallback, core::Result<CommandOutcome>>> Writer::Releasable(Partition& part) {
  std::vector<std::pair<CommandCallback, core::Result<CommandOutcome>>> out;
  const uint64_t first = part.outstanding.empty() ? UINT64_MAX : *part.outstanding.begin();
  while (!part.waiting.empty() && part.waiting.front().barrier < first) {
    auto& w = part.waiting.front();
    out.emplace_back(std::move(w.done), std::move(w.result));
    part.waiting.pop_front();
  }
  return out;
}

void Writer::OnAppended(Partition& part, std::shared_ptr<CommitItem> item,
                        core::Result<eventstore::AppendResult> r) {
  // Answers of commands that appended nothing and wait for this append: after this one's.
  std::vector<std::pair<CommandCallback, core::Result<CommandOutcome>>> released;
  struct AnswerReleased {
    std::vector<std::pair<CommandCallback, core::Result<CommandOutcome>>>& r;
    ~AnswerReleased() {
      for (auto& [done, result] : r) done(std::move(result));
    }
  } answer_released{released};
  {
    std::lock_guard lock(part.mu);
    part.outstanding.erase(item->seq);
    if (!r.ok()) {
      part.failed_seq = std::min(part.failed_seq, item->seq);
      for (auto& w : part.waiting) {
        if (w.barrier >= item->seq) {
          w.result = core::Unavailable("an earlier write of this partition failed; the request was not decided",
                                       "SERVICE_UNAVAILABLE");
        }
      }
    }
    released = Releasable(part);
  }
  if (!r.ok()) {
    // Fail-stop: the speculative state now differs from the log. Refuse further commands of
    // this partition; a restart recovers exactly from the log.
    part.broken.store(true);
    any_broken_.store(true);
    if (r.status().api_code() != eventstore::kWriterFenced && part.deciding.load()) {
      core::LogError("event log append failed; partition halted",
                     {{"partition", part.index}, {"error", r.status().ToString()}});
    } else {
      core::LogInfo("an append of a partition this node no longer writes was refused",
                    {{"partition", part.index}, {"error", r.status().ToString()}});
    }
    // Only while this writer decides it: a partition released (lost to a newer writer) fails its
    // queued appends too, and that is no halt of ours. Nor is a fence: another writer took the
    // partition over before this node heard of its loss (its group revokes it next; until then
    // its commands get 503, and taken again it is recovered from the log). Before, a fence in
    // the middle of a rebalance stopped the whole node (found by tests/cluster/history.py).
    if (r.status().api_code() == eventstore::kWriterFenced) {
      core::LogWarn("this node's writer of a partition was fenced: another node writes it now",
                    {{"partition", part.index}});
      std::function<void(uint32_t)> fenced;
      {
        std::lock_guard lock(on_halt_mu_);
        fenced = on_fenced_;
      }
      if (fenced && part.deciding.load()) fenced(part.index);
    } else if (part.deciding.load()) {
      Halted(part.index, r.status().ToString());
    }
    {
      std::lock_guard lock(part.mu);
      if (!item->idem_key.empty()) part.idem.erase(item->idem_key);
    }
    item->done(core::Unavailable("the event log did not accept the write: " +
                                     r.status().message(),
                                 "SERVICE_UNAVAILABLE"));
    return;
  }
  item->outcome.positions = r->positions;
  item->backend_cursor = r->backend_cursor;
  item->backend_epoch = r->backend_epoch;
  if (!item->idem_key.empty()) {
    item->idem_value = EncodeIdem(item->fingerprint, item->aggregate_type, item->aggregate_id,
                                  item->outcome, item->created_micros);
  }
  {
    std::lock_guard lock(part.mu);
    if (!item->idem_key.empty()) {
      auto& rec = part.idem[item->idem_key];
      rec.pending = false;
      rec.outcome = item->outcome;
    }
  }
  if (commands_ok_ != nullptr) commands_ok_->Add();
  auto done = std::move(item->done);
  CommandOutcome outcome = item->outcome;
  {
    std::lock_guard lock(commit_mu_);
    commit_queue_.push_back(std::move(item));
  }
  commit_cv_.notify_one();
  done(std::move(outcome));
}

void Writer::CommitLoop() {
  std::vector<std::shared_ptr<CommitItem>> items;
  for (;;) {
    items.clear();
    {
      std::unique_lock lock(commit_mu_);
      commit_cv_.wait(lock, [&] { return commit_stop_ || !commit_queue_.empty(); });
      if (commit_queue_.empty()) return;
      while (!commit_queue_.empty()) {
        items.push_back(std::move(commit_queue_.front()));
        commit_queue_.pop_front();
      }
    }
    KvStore::Batch batch;
    std::map<uint32_t, eventstore::PartitionCheckpoint> checkpoints;
    std::map<uint32_t, int64_t> bus_offsets;
    for (const auto& it : items) {
      if (it->bus_offset >= 0) bus_offsets[it->partition] = std::max(bus_offsets[it->partition], it->bus_offset);
      for (const auto& [k, v] : it->snapshots) batch.Put(cf_, k, v);
      if (!it->idem_key.empty()) batch.Put(cf_, it->idem_key, it->idem_value);
      const auto& last = it->outcome.positions.back();
      checkpoints[it->partition] = {last.offset + 1, it->backend_cursor, it->backend_epoch};
    }
    for (const auto& [p, c] : checkpoints) {
      batch.Put(cf_, CheckpointKey(p), eventstore::EncodeCheckpoint(c));
    }
    for (const auto& [p, o] : bus_offsets) {
      std::string v;
      eventstore::PutFixed64BE(v, static_cast<uint64_t>(o));
      batch.Put(cf_, CommandOffsetKey(p), v);
    }
    // Derived from the log: after a crash, recovery replays from the checkpoint in this batch.
    core::Status st;
    {
      std::lock_guard records(records_mu_);
      st = options_.store->WriteDerived(batch);
    }
    if (!st.ok()) {
      core::LogError("write model commit failed; write side halted", {{"error", st.ToString()}});
      for (auto& p : partitions_) p->broken.store(true);
      any_broken_.store(true);
      for (auto& p : partitions_) {
        if (p->deciding.load()) Halted(p->index, st.ToString());
      }
      continue;
    }
    // Now durable in the write model: mark slots clean, drop idempotency records from memory
    // (the store has them), evict if over the cache limit.
    for (const auto& it : items) {
      Partition& part = *partitions_[it->partition];
      std::lock_guard lock(part.mu);
      auto s = part.slots.find(it->slot_key);
      if (s != part.slots.end() && s->second.committed_version < it->version) {
        s->second.committed_version = it->version;
      }
      if (!it->idem_key.empty()) {
        auto r = part.idem.find(it->idem_key);
        if (r != part.idem.end() && !r->second.pending) part.idem.erase(r);
      }
    }
    // Eviction runs on the partition's strand: the strand may hold a pointer to a slot.
    for (auto& p : partitions_) {
      bool over;
      {
        std::lock_guard lock(p->mu);
        over = p->slots.size() > options_.cache_limit;
      }
      if (over) {
        Partition* part = p.get();
        part->strand.Post([this, part] { MaybeEvict(*part); });
      }
    }
  }
}

void Writer::MaybeEvict(Partition& part) {
  std::lock_guard lock(part.mu);
  size_t scanned = 0;
  while (part.slots.size() > options_.cache_limit && scanned < part.slot_order.size()) {
    std::string key = std::move(part.slot_order.front());
    part.slot_order.pop_front();
    auto it = part.slots.find(key);
    if (it == part.slots.end()) continue;
    if (it->second.committed_version == it->second.version) {
      part.slots.erase(it);
    } else {
      part.slot_order.push_back(std::move(key));  // dirty: keep, look again later
      ++scanned;
    }
  }
}

core::Status Writer::Recover() {
  SVC_RETURN_IF_ERROR(RecoverPartitions({}));
  for (auto& p : partitions_) p->deciding.store(true);
  return core::Status::Ok();
}

core::Status Writer::TakeOver(uint32_t partition) {
  if (partition >= partitions_.size()) return core::InvalidArgument("no partition " + std::to_string(partition));
  Partition& part = *partitions_[partition];
  SVC_RETURN_IF_ERROR(RecoverPartitions({partition}));
  part.broken.store(false);  // a partition that stopped here is recovered from the log like any other
  {
    std::lock_guard lock(part.mu);
    part.failed_seq = UINT64_MAX;  // the answers it spoiled were given 503 when it failed
  }
  part.deciding.store(true);
  return core::Status::Ok();
}

void Writer::Release(uint32_t partition) {
  if (partition >= partitions_.size()) return;
  Partition& part = *partitions_[partition];
  part.deciding.store(false);
  // Whatever the strand holds now is answered (refused) before this returns.
  std::promise<void> drained;
  part.strand.Post([&drained] { drained.set_value(); });
  drained.get_future().wait();
  std::lock_guard lock(part.mu);
  part.slots.clear();
  part.slot_order.clear();
  part.idem.clear();
}

std::vector<uint32_t> Writer::Deciding() const {
  std::vector<uint32_t> out;
  for (const auto& p : partitions_) {
    if (p->deciding.load()) out.push_back(p->index);
  }
  return out;
}

core::Status Writer::RecoverPartitions(const std::vector<uint32_t>& only) {
  uint32_t n = options_.log->PartitionCount();
  std::vector<eventstore::PartitionCheckpoint> start(n);
  for (uint32_t p = 0; p < n; ++p) {
    SVC_ASSIGN_OR_RETURN(auto v, options_.store->Get(cf_, CheckpointKey(p)));
    if (v.has_value()) start[p] = eventstore::DecodeCheckpoint(*v);
  }
  SVC_ASSIGN_OR_RETURN(auto reader, only.empty() ? options_.log->OpenReader("writer-recovery", start)
                                                 : options_.log->OpenPartitionReader("writer-recovery", start, only));
  size_t applied = 0;
  // A keyed command's events are applied in one step: its idempotency record (positions, the
  // answer told again) is built from all of them, and a record once written is not rewritten. So
  // each partition's trailing run of one keyed command waits for the next step (or the end).
  std::vector<eventstore::RecordedEvent> carried;
  for (;;) {
    SVC_ASSIGN_OR_RETURN(auto polled, reader->Poll(std::max<size_t>(1, options_.recovery_poll_events),
                                                   std::chrono::milliseconds(200)));
    if (polled.empty()) {
      if (reader->CaughtUp()) break;
      continue;
    }
    std::vector<eventstore::RecordedEvent> events = std::move(carried);
    carried.clear();
    events.insert(events.end(), std::make_move_iterator(polled.begin()), std::make_move_iterator(polled.end()));
    std::vector<bool> held(events.size(), false);
    std::set<uint32_t> seen;
    for (size_t i = events.size(); i-- > 0;) {
      const uint32_t p = events[i].position.partition;
      if (!seen.insert(p).second) continue;  // not this partition's last event
      const auto& last = events[i].event;
      if (last.idempotency_key.empty()) continue;
      for (size_t j = i + 1; j-- > 0;) {
        const auto& e = events[j].event;
        if (events[j].position.partition != p) continue;
        if (e.idempotency_key != last.idempotency_key || e.aggregate_id != last.aggregate_id ||
            e.tenant_id != last.tenant_id) {
          break;
        }
        held[j] = true;
      }
    }
    std::vector<eventstore::RecordedEvent> now;
    now.reserve(events.size());
    for (size_t i = 0; i < events.size(); ++i) (held[i] ? carried : now).push_back(std::move(events[i]));
    if (now.empty()) continue;
    applied += now.size();
    SVC_RETURN_IF_ERROR(ApplyRecovered(now));
  }
  if (!carried.empty()) {
    applied += carried.size();
    SVC_RETURN_IF_ERROR(ApplyRecovered(carried));
  }
  // The recovered states were written to the store; start with an empty cache.
  for (auto& p : partitions_) {
    if (!only.empty() && std::find(only.begin(), only.end(), p->index) == only.end()) continue;
    std::lock_guard lock(p->mu);
    p->slots.clear();
    p->slot_order.clear();
    p->idem.clear();
  }
  core::Json which = core::Json::array();
  for (uint32_t p : only) which.push_back(p);
  core::LogInfo("write model recovered", {{"eventsApplied", applied}, {"partitions", only.empty() ? core::Json("all") : which}});
  if (options_.metrics != nullptr) {
    options_.metrics
        ->GetCounter("svc_writer_recovered_events_total",
                     "Events the write side re-applied from the log when it recovered (what a crash took back from "
                     "its rows, written without a write-ahead log, since their last flush)")
        .Add(applied);
  }
  return core::Status::Ok();
}

core::Status Writer::ApplyRecovered(std::vector<eventstore::RecordedEvent>& events) {
  // Applies a run of events to the durable write model: state rows, idempotency records and
  // checkpoints in one batch.
  struct Loaded {
    const AggregateType* type;
    std::any state;
    int64_t version;
  };
  std::unordered_map<std::string, Loaded> touched;
  std::map<std::string, core::Json> idem;
  // The events of each rebuilt idempotency record and the state right after the last of them, to
  // tell its result again (ResultOf).
  struct Told {
    const AggregateType* type = nullptr;
    std::vector<EventEnvelope> events;
    std::any after;
  };
  std::map<std::string, Told> idem_events;
  std::map<uint32_t, eventstore::PartitionCheckpoint> checkpoints;
  std::map<uint32_t, int64_t> bus_offsets;  // the highest command offset each partition's events record
  for (auto& re : events) {
    const EventEnvelope& e = re.event;
    checkpoints[re.position.partition] = eventstore::CheckpointAfter(re);
    if (!e.command_ref.empty()) {
      char* end = nullptr;
      const long long o = std::strtoll(e.command_ref.c_str(), &end, 10);
      if (end != nullptr && *end == '\0' && o >= 0) {
        bus_offsets[re.position.partition] = std::max<int64_t>(bus_offsets[re.position.partition], o);
      }
    }
    const AggregateType* type = FindType(e.aggregate_type);
    if (type == nullptr) continue;  // an aggregate this writer does not own
    std::string key = AggregateKey(e.tenant_id, e.aggregate_type, e.aggregate_id);
    auto it = touched.find(key);
    if (it == touched.end()) {
      Loaded l{type, type->Initial(), 0};
      SVC_ASSIGN_OR_RETURN(auto stored, options_.store->Get(cf_, key));
      if (stored.has_value() && stored->size() >= 8) {
        l.version = static_cast<int64_t>(eventstore::GetFixed64BE(*stored));
        SVC_ASSIGN_OR_RETURN(l.state, type->Deserialize(std::string_view(*stored).substr(8)));
      }
      it = touched.emplace(key, std::move(l)).first;
    }
    if (e.aggregate_version <= it->second.version) continue;  // already in the write model
    SVC_RETURN_IF_ERROR(type->Apply(it->second.state, e));
    it->second.version = e.aggregate_version;
    if (!e.idempotency_key.empty()) {
      std::string ik = IdempotencyKey(e.tenant_id, e.environment, e.idempotency_key);
      auto& j = idem[ik];
      if (j.is_null()) {
        j["fingerprint"] = e.request_fingerprint;
        j["aggregateType"] = e.aggregate_type;
        j["aggregateId"] = e.aggregate_id;
        j["positions"] = core::Json::array();
        j["result"] = nullptr;  // told again from the events below (ResultOf), else null
        j["createdAtMicros"] = e.occurred_at.micros;
      }
      j["aggregateVersion"] = e.aggregate_version;
      j["positions"].push_back(core::Json::array({re.position.partition, re.position.offset}));
      auto& told = idem_events[ik];
      told.type = type;
      told.events.push_back(e);
      told.after = it->second.state;
    }
  }
  for (auto& [ik, told] : idem_events) idem[ik]["result"] = told.type->ResultOf(told.events, told.after);
  KvStore::Batch batch;
  for (auto& [key, l] : touched) {
    batch.Put(cf_, key, EncodeSlotValue(l.version, l.type->Serialize(l.state)));
  }
  for (auto& [k, j] : idem) {
    // An existing record (written by the live path) wins: it has the original result.
    SVC_ASSIGN_OR_RETURN(auto existing, options_.store->Get(cf_, k));
    if (!existing.has_value()) batch.Put(cf_, k, core::DumpJson(j));
  }
  for (const auto& [p, c] : checkpoints) {
    batch.Put(cf_, CheckpointKey(p), eventstore::EncodeCheckpoint(c));
  }
  for (const auto& [p, o] : bus_offsets) {
    std::string v;
    eventstore::PutFixed64BE(v, static_cast<uint64_t>(o));
    batch.Put(cf_, CommandOffsetKey(p), v);
  }
  return options_.store->WriteDerived(batch);
}

core::Result<int64_t> Writer::SweepIdempotency(core::Timestamp now) {
  const int64_t cutoff = now.micros - options_.idempotency_retention_seconds * 1000000;
  auto expired = [cutoff](std::string_view row) {
    auto root = core::ParseObject(row);
    int64_t created = 0;
    // An unreadable record is kept (LoadIdem reports it): the sweep never deletes what it cannot date.
    return root.has_value() && (*root)["createdAtMicros"].get_int64().get(created) == simdjson::SUCCESS &&
           created < cutoff;
  };
  const std::string prefix = "i/";
  std::string from = prefix;
  int64_t removed = 0;
  for (;;) {
    // A chunk of candidates without the lock, then each re-read and deleted under it.
    std::vector<std::string> candidates;
    bool more = false;
    {
      auto it = options_.store->NewIterator(cf_, from, eventstore::PrefixEnd(prefix));
      for (it->Seek(from); it->Valid(); it->Next()) {
        if (candidates.size() == 1000) {
          more = true;
          from = std::string(it->key());
          break;
        }
        if (expired(it->value())) candidates.emplace_back(it->key());
      }
      SVC_RETURN_IF_ERROR(it->status());
    }
    if (!candidates.empty()) {
      std::lock_guard records(records_mu_);
      KvStore::Batch batch;
      for (const auto& key : candidates) {
        SVC_ASSIGN_OR_RETURN(auto row, options_.store->Get(cf_, key));
        if (row.has_value() && expired(*row)) {
          batch.Delete(cf_, key);
          ++removed;
        }
      }
      if (batch.Count() > 0) SVC_RETURN_IF_ERROR(options_.store->WriteDerived(batch));
    }
    if (!more) return removed;
  }
}

core::Result<std::string> Writer::DebugState(const std::string& tenant_id,
                                             const std::string& type_name,
                                             const std::string& id) {
  const AggregateType* type = FindType(type_name);
  if (type == nullptr) return core::NotFound("unknown aggregate type");
  uint32_t p = options_.log->PartitionFor(tenant_id);
  Partition& part = *partitions_[p];
  std::promise<core::Result<std::string>> promise;
  auto fut = promise.get_future();
  part.strand.Post([&] {
    auto slot = LoadSlot(part, *type, /*fresh_id=*/false, tenant_id, id);
    if (!slot.ok()) {
      promise.set_value(slot.status());
      return;
    }
    std::lock_guard lock(part.mu);
    promise.set_value(type->Serialize((*slot)->state));
  });
  return fut.get();
}

}  // namespace svc::commands
