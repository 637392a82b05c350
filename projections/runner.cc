#include "projections/runner.h"

#include <chrono>
#include <cstdlib>
#include <thread>
#include "core/executor.h"

#include "core/log.h"

namespace svc::projections {

using eventstore::KvStore;

ProjectionRunner::ProjectionRunner(const Options& options) : options_(options) {
  if (options_.projector != nullptr) options_.projectors.insert(options_.projectors.begin(), options_.projector);
  views_cf_ = options_.store->Cf(kViewsCf);
  meta_cf_ = options_.store->Cf(kProjectionsCf);
  for (Projector* p : options_.projectors) {
    auto m = std::make_unique<Member>();
    m->projector = p;
    if (options_.metrics != nullptr) {
      std::string labels = "projector=\"" + std::string(p->Name()) + "\"";
      m->events_counter = &options_.metrics->GetCounter("svc_projection_events_applied_total",
                                                        "Events applied by a projector", labels);
      m->batches_counter = &options_.metrics->GetCounter(
          "svc_projection_batches_total", "Batches committed by a projector", labels);
    }
    if (!name_.empty()) name_ += "+";
    name_ += p->Name();
    members_.push_back(std::move(m));
  }
}

ProjectionRunner::~ProjectionRunner() { Stop(); }

std::string ProjectionRunner::CheckpointKey(std::string_view projector, uint32_t p) {
  std::string k(projector);
  k += "/ckpt/";
  eventstore::PutFixed32BE(k, p);
  return k;
}

std::string ProjectionRunner::VersionKey(std::string_view projector) {
  return std::string(projector) + "/version";
}

std::vector<std::string_view> ProjectionRunner::Names() const {
  std::vector<std::string_view> out;
  for (const auto& m : members_) out.push_back(m->projector->Name());
  return out;
}

uint64_t ProjectionRunner::EventsApplied(std::string_view projector) const {
  for (const auto& m : members_) {
    if (m->projector->Name() == projector) return m->applied_total.load();
  }
  return 0;
}

core::Status ProjectionRunner::ResetMember(const Member& m) {
  std::string prefix = std::string(m.projector->Name()) + "/";
  // Nothing to delete (a new data directory): no range tombstone. A tombstone in a memtable makes
  // every point read of that memtable rebuild the tombstone list (RocksDB 7), which cost reads a
  // third of their time until the next flush; so after a real reset the memtables are flushed.
  bool any = false;
  for (int cf : {views_cf_, meta_cf_}) {
    auto it = options_.store->NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
    it->Seek(prefix);
    any |= it->Valid();
  }
  if (!any) return core::Status::Ok();
  KvStore::Batch b;
  b.DeleteRange(views_cf_, prefix, eventstore::PrefixEnd(prefix));
  b.DeleteRange(meta_cf_, prefix, eventstore::PrefixEnd(prefix));
  SVC_RETURN_IF_ERROR(options_.store->Write(b, true));
  return options_.store->Flush();
}

core::Status ProjectionRunner::Reset() {
  for (const auto& m : members_) SVC_RETURN_IF_ERROR(ResetMember(*m));
  return core::Status::Ok();
}

core::Status ProjectionRunner::PrepareMember(Member& m) {
  std::string_view name = m.projector->Name();
  SVC_ASSIGN_OR_RETURN(auto stored, options_.store->Get(meta_cf_, VersionKey(name)));
  std::string want = std::to_string(m.projector->Version());
  if (!stored.has_value() || *stored != want) {
    if (stored.has_value()) {
      core::LogInfo("projector version changed; rebuilding",
                    {{"projector", name}, {"from", *stored}, {"to", want}});
    }
    SVC_RETURN_IF_ERROR(ResetMember(m));
    KvStore::Batch b;
    b.Put(meta_cf_, VersionKey(name), want);
    SVC_RETURN_IF_ERROR(options_.store->Write(b, true));
  }
  uint32_t n = options_.log->PartitionCount();
  std::vector<eventstore::PartitionCheckpoint> at(n);
  for (uint32_t p = 0; p < n; ++p) {
    SVC_ASSIGN_OR_RETURN(auto v, options_.store->Get(meta_cf_, CheckpointKey(name, p)));
    if (v.has_value()) at[p] = eventstore::DecodeCheckpoint(*v);
  }
  std::lock_guard lock(mu_);
  m.saved.clear();
  for (const auto& c : at) m.saved.push_back(c.next_offset);
  m.at = std::move(at);
  return core::Status::Ok();
}

core::Status ProjectionRunner::Prepare() {
  if (views_cf_ < 0 || meta_cf_ < 0) return core::Internal("store lacks the read-side families");
  if (members_.empty()) return core::Internal("a projection runner needs a projector");
  for (auto& m : members_) SVC_RETURN_IF_ERROR(PrepareMember(*m));
  // One reader from the earliest checkpoint of any projector, per partition.
  uint32_t n = options_.log->PartitionCount();
  std::vector<eventstore::PartitionCheckpoint> start(n);
  {
    std::lock_guard lock(mu_);
    for (uint32_t p = 0; p < n; ++p) {
      start[p] = members_[0]->at[p];
      for (const auto& m : members_) {
        if (m->at[p].next_offset < start[p].next_offset) start[p] = m->at[p];
      }
    }
  }
  SVC_ASSIGN_OR_RETURN(reader_, options_.log->OpenReader("projector-" + name_, start));
  return core::Status::Ok();
}

core::Status ProjectionRunner::ApplyBatch(std::vector<eventstore::RecordedEvent>& events) {
  struct Pending {
    ViewWriter view;
    std::map<uint32_t, eventstore::PartitionCheckpoint> checkpoints;
    uint64_t applied = 0;
  };
  std::vector<Pending> pending;
  std::vector<std::vector<uint64_t>> next;  // a snapshot of where each member is
  {
    std::lock_guard lock(mu_);
    for (const auto& m : members_) {
      pending.push_back(Pending{ViewWriter(options_.store, views_cf_,
                                           std::string(m->projector->Name()) + "/"),
                                {}, 0});
      std::vector<uint64_t> offsets;
      for (const auto& c : m->at) offsets.push_back(c.next_offset);
      next.push_back(std::move(offsets));
    }
  }
  for (const auto& e : events) {
    const uint32_t part = e.position.partition;
    for (size_t i = 0; i < members_.size(); ++i) {
      if (part < next[i].size() && e.position.offset < next[i][part]) continue;  // has it
      Projector* projector = members_[i]->projector;
      core::Status st;
      try {
        st = projector->Apply(e, pending[i].view);
      } catch (const std::exception& ex) {
        st = core::Internal(std::string("projector threw: ") + ex.what());
      }
      if (!st.ok()) {
        return core::Status(st.code(), "projector " + std::string(projector->Name()) +
                                           " failed on event " + e.event.id + " at " +
                                           std::to_string(part) + ":" +
                                           std::to_string(e.position.offset) + ": " +
                                           st.message());
      }
      pending[i].checkpoints[part] = eventstore::CheckpointAfter(e);
      ++pending[i].applied;
    }
  }
  // A member's checkpoint goes with its rows, in the same batch, so that a crash takes both back
  // together. A member that wrote no row (the event was not its concern) saves its checkpoint only
  // every kCheckpointEvery events of a partition: after a crash it re-applies at most that many
  // events, each of which left its rows unchanged the first time. With ~20 projectors in one
  // runner, saving every checkpoint every batch was ~20 of the ~22 rows a one-event batch wrote
  // (the projections' memtable inserts were the largest part of their CPU at moderate load).
  constexpr uint64_t kCheckpointEvery = 1024;
  KvStore::Batch batch;
  for (size_t i = 0; i < members_.size(); ++i) {
    const size_t before = batch.Count();
    pending[i].view.Drain(batch);
    const bool wrote = batch.Count() != before;
    Member& m = *members_[i];
    for (auto& [p, c] : pending[i].checkpoints) {
      if (p >= m.saved.size()) m.saved.resize(p + 1, 0);
      if (!wrote && c.next_offset < m.saved[p] + kCheckpointEvery) continue;
      batch.Put(meta_cf_, CheckpointKey(m.projector->Name(), p), eventstore::EncodeCheckpoint(c));
      m.saved[p] = c.next_offset;
    }
  }
  // Rows and checkpoints derive from the log: no write-ahead log (KvStore::WriteDerived).
  if (batch.Count() > 0) SVC_RETURN_IF_ERROR(options_.store->WriteDerived(batch));
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < members_.size(); ++i) {
      for (const auto& [p, c] : pending[i].checkpoints) members_[i]->at[p] = c;
    }
  }
  // The after-commit hooks run before the waiters wake: a caller told "applied" must find what
  // the hooks publish too (the API keys' cache generation: a revoked key refused on the very next
  // request).
  for (size_t i = 0; i < members_.size(); ++i) {
    if (pending[i].applied == 0) continue;
    Member& m = *members_[i];
    m.projector->AfterCommit();
    m.applied_total.fetch_add(pending[i].applied);
    if (m.events_counter != nullptr) {
      m.events_counter->Add(pending[i].applied);
      m.batches_counter->Add();
    }
  }
  // Caught up is known before the waiters wake: a caller told "applied" and then asking whether
  // this runner has caught up (readiness) gets the same answer every time.
  if (reader_->CaughtUp()) caught_up_once_.store(true);
  cv_.notify_all();
  if (on_applied_) on_applied_();
  return core::Status::Ok();
}

core::Status ProjectionRunner::RunUntilCaughtUp() {
  for (;;) {
    SVC_ASSIGN_OR_RETURN(auto events, reader_->Poll(options_.batch_events,
                                                    std::chrono::milliseconds(200)));
    if (!events.empty()) SVC_RETURN_IF_ERROR(ApplyBatch(events));
    // A batch that reached the end of every partition ends the run: polling again would only wait
    // out the 200 ms for records that are not there (once a projector in `svc replay`, every
    // `replay --verify`, every start that catches up in the foreground).
    if (reader_->CaughtUp()) {
      SVC_RETURN_IF_ERROR(SaveCheckpoints());
      caught_up_once_.store(true);
      cv_.notify_all();
      return core::Status::Ok();
    }
  }
}

void ProjectionRunner::Start() {
  thread_ = std::thread([this] {
    core::SetThreadName(members_.size() == 1 ? ("svc-p-" + name_).c_str() : "svc-projections");
    Loop();
  });
}

namespace {
// TESTS ONLY: SVC_DEBUG_PROJECTION_LAG_MS holds every batch that long before it is applied, so a
// node's read models trail the log the way a loaded node's do (a cluster test shows what a route
// answers from a read model that is behind). Read once.
std::chrono::milliseconds DebugLag() {
  static const std::chrono::milliseconds lag = [] {
    const char* v = std::getenv("SVC_DEBUG_PROJECTION_LAG_MS");
    if (v == nullptr || *v == '\0') return std::chrono::milliseconds(0);
    core::LogWarn("SVC_DEBUG_PROJECTION_LAG_MS: every projection batch is held before it is applied; tests only",
                  {{"ms", std::string(v)}});
    return std::chrono::milliseconds(std::strtoll(v, nullptr, 10));
  }();
  return lag;
}
}  // namespace

void ProjectionRunner::Loop() {
  const std::chrono::milliseconds lag = DebugLag();
  while (!stop_.load()) {
    // Until the first catch-up, do not linger in a wait: readiness depends on it.
    auto wait = caught_up_once_.load() ? std::chrono::milliseconds(500)
                                       : std::chrono::milliseconds(10);
    auto events = reader_->Poll(options_.batch_events, wait);
    if (!events.ok()) {
      core::LogError("projection read failed", {{"projectors", name_},
                                                {"error", events.status().ToString()}});
      failed_.store(true);
      cv_.notify_all();
      return;
    }
    if (events->empty()) {
      if (reader_->CaughtUp() && !caught_up_once_.exchange(true)) cv_.notify_all();
      continue;
    }
    if (lag.count() > 0 && caught_up_once_.load()) std::this_thread::sleep_for(lag);  // fault injection
    core::Status st = ApplyBatch(*events);
    if (!st.ok()) {
      // Fail-stop: a projector that cannot apply an event would otherwise skip it silently.
      core::LogError("projection halted", {{"projectors", name_}, {"error", st.ToString()}});
      failed_.store(true);
      cv_.notify_all();
      return;
    }
  }
}

void ProjectionRunner::Stop() {
  stop_.store(true);
  if (reader_) reader_->Wake();
  if (!thread_.joinable()) return;
  thread_.join();
  if (failed_.load()) return;
  core::Status st = SaveCheckpoints();
  if (!st.ok()) core::LogWarn("projection checkpoints not saved at stop", {{"projectors", name_}, {"error", st.ToString()}});
}

// The checkpoints ApplyBatch left unsaved (members that wrote no row lately): saved when a run
// ends cleanly (Stop, RunUntilCaughtUp), so that the next start re-applies nothing.
core::Status ProjectionRunner::SaveCheckpoints() {
  KvStore::Batch batch;
  for (auto& m : members_) {
    for (uint32_t p = 0; p < m->at.size(); ++p) {
      if (p < m->saved.size() && m->saved[p] == m->at[p].next_offset) continue;
      batch.Put(meta_cf_, CheckpointKey(m->projector->Name(), p), eventstore::EncodeCheckpoint(m->at[p]));
      if (p >= m->saved.size()) m->saved.resize(p + 1, 0);
      m->saved[p] = m->at[p].next_offset;
    }
  }
  if (batch.Count() == 0) return core::Status::Ok();
  return options_.store->WriteDerived(batch);
}

bool ProjectionRunner::HasApplied(const eventstore::LogPosition& p) const {
  std::lock_guard lock(mu_);
  for (const auto& m : members_) {
    if (p.partition >= m->at.size() || m->at[p.partition].next_offset <= p.offset) return false;
  }
  return true;
}

bool ProjectionRunner::HasApplied(const eventstore::LogPosition& p,
                                  std::string_view projector) const {
  std::lock_guard lock(mu_);
  for (const auto& m : members_) {
    if (m->projector->Name() != projector) continue;
    return p.partition < m->at.size() && m->at[p.partition].next_offset > p.offset;
  }
  return true;
}

bool ProjectionRunner::WaitApplied(const std::vector<eventstore::LogPosition>& positions,
                                   std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] {
    if (failed_.load()) return true;
    for (const auto& m : members_) {
      for (const auto& p : positions) {
        if (p.partition >= m->at.size() || m->at[p.partition].next_offset <= p.offset) {
          return false;
        }
      }
    }
    return true;
  }) && !failed_.load();
}

std::vector<uint64_t> ProjectionRunner::AppliedOffsets(std::string_view projector) const {
  std::lock_guard lock(mu_);
  for (const auto& m : members_) {
    if (m->projector->Name() != projector) continue;
    std::vector<uint64_t> out;
    for (const auto& c : m->at) out.push_back(c.next_offset);
    return out;
  }
  return {};
}

ProjectionSet::ProjectionSet() {
  waiter_thread_ = std::thread([this] {
    core::SetThreadName("svc-p-waiter");
    WaiterLoop();
  });
}

ProjectionSet::~ProjectionSet() {
  {
    std::lock_guard lock(waiters_mu_);
    stop_waiters_ = true;
  }
  waiters_cv_.notify_all();
  waiter_thread_.join();
}

void ProjectionSet::Add(std::unique_ptr<ProjectionRunner> runner) {
  runner->SetOnApplied([this] {
    { std::lock_guard lock(waiters_mu_); }
    waiters_cv_.notify_all();
  });
  runners_.push_back(std::move(runner));
}

bool ProjectionSet::AllApplied(const std::vector<eventstore::LogPosition>& positions,
                               const std::vector<std::string_view>& views) const {
  for (const auto& r : runners_) {
    for (const auto& p : positions) {
      if (views.empty()) {
        if (!r->HasApplied(p)) return false;
        continue;
      }
      for (std::string_view v : views) {
        if (!r->HasApplied(p, v)) return false;
      }
    }
  }
  return true;
}

void ProjectionSet::WhenApplied(std::vector<eventstore::LogPosition> positions,
                                std::vector<std::string_view> views,
                                std::chrono::milliseconds timeout,
                                std::function<void(bool)> done) {
  if (AllApplied(positions, views)) {
    done(true);
    return;
  }
  {
    std::lock_guard lock(waiters_mu_);
    waiters_.push_back(Waiter{std::move(positions), std::move(views),
                              std::chrono::steady_clock::now() + timeout, std::move(done)});
  }
  waiters_cv_.notify_all();
}

void ProjectionSet::WaiterLoop() {
  std::unique_lock lock(waiters_mu_);
  for (;;) {
    if (stop_waiters_) {
      auto pending = std::move(waiters_);
      waiters_.clear();
      lock.unlock();
      for (auto& w : pending) w.done(false);
      return;
    }
    auto now = std::chrono::steady_clock::now();
    std::vector<Waiter> ready;
    std::vector<bool> results;
    auto next_deadline = now + std::chrono::seconds(1);
    for (size_t i = 0; i < waiters_.size();) {
      bool applied = AllApplied(waiters_[i].positions, waiters_[i].views);
      if (applied || waiters_[i].deadline <= now) {
        results.push_back(applied);
        ready.push_back(std::move(waiters_[i]));
        waiters_[i] = std::move(waiters_.back());
        waiters_.pop_back();
      } else {
        next_deadline = std::min(next_deadline, waiters_[i].deadline);
        ++i;
      }
    }
    if (!ready.empty()) {
      lock.unlock();
      for (size_t i = 0; i < ready.size(); ++i) ready[i].done(results[i]);
      lock.lock();
      continue;
    }
    waiters_cv_.wait_until(lock, next_deadline);
  }
}

core::Status ProjectionSet::PrepareAll() {
  for (auto& r : runners_) SVC_RETURN_IF_ERROR(r->Prepare());
  return core::Status::Ok();
}
void ProjectionSet::StartAll() {
  for (auto& r : runners_) r->Start();
}
void ProjectionSet::StopAll() {
  for (auto& r : runners_) r->Stop();
}
bool ProjectionSet::WaitApplied(const std::vector<eventstore::LogPosition>& positions,
                                std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto& r : runners_) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) left = std::chrono::milliseconds(0);
    if (!r->WaitApplied(positions, left)) return false;
  }
  return true;
}
std::vector<uint64_t> ProjectionSet::AppliedOffsets(std::string_view projector) const {
  for (const auto& r : runners_) {
    if (auto out = r->AppliedOffsets(projector); !out.empty()) return out;
  }
  return {};
}

bool ProjectionSet::AllCaughtUpOnce() const {
  for (const auto& r : runners_) {
    if (!r->CaughtUpOnce()) return false;
  }
  return true;
}
bool ProjectionSet::AnyFailed() const {
  for (const auto& r : runners_) {
    if (r->Failed()) return true;
  }
  return false;
}

}  // namespace svc::projections
