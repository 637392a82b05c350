#include "eventstore/embedded_log.h"
#include "core/executor.h"

#include "core/log.h"

namespace svc::eventstore {

namespace {

constexpr std::string_view kPartitionsMetaKey = "log/partitions";

std::string LogKey(uint32_t partition, uint64_t offset) {
  std::string k;
  k.reserve(12);
  PutFixed32BE(k, partition);
  PutFixed64BE(k, offset);
  return k;
}

class EmbeddedReader final : public LogReader {
 public:
  EmbeddedReader(EmbeddedLog* log, std::vector<PartitionCheckpoint> start) : log_(log) {
    next_.resize(log->PartitionCount(), 0);
    for (size_t p = 0; p < start.size() && p < next_.size(); ++p) next_[p] = start[p].next_offset;
  }

  core::Result<std::vector<RecordedEvent>> Poll(size_t max,
                                                std::chrono::milliseconds wait) override {
    // Read the commit generation first: a commit that lands after ReadAvailable looked is then
    // seen by the wait below, so a wake-up is never missed.
    uint64_t gen = log_->CommitGeneration();
    auto out = ReadAvailable(max);
    if (!out.ok() || !out->empty() || wait.count() == 0) return out;
    log_->WaitForCommit(gen, wait, &woken_);
    woken_.store(false);
    return ReadAvailable(max);
  }

  bool CaughtUp() const override { return caught_up_; }
  void Wake() override {
    woken_.store(true);
    log_->WakeWaiters();
  }

 private:
  core::Result<std::vector<RecordedEvent>> ReadAvailable(size_t max) {
    std::vector<RecordedEvent> out;
    auto ends = log_->EndOffsets();
    if (!ends.ok()) return ends.status();
    bool all_at_end = true;
    size_t n = next_.size();
    // Share `max` fairly between partitions that have data.
    for (size_t i = 0; i < n && out.size() < max; ++i) {
      size_t p = (start_ + i) % n;
      if ((*ends)[p] <= next_[p]) continue;
      size_t budget = max - out.size();
      out.reserve(out.size() + std::min<uint64_t>(budget, (*ends)[p] - next_[p]));
      size_t before = out.size();
      SVC_RETURN_IF_ERROR(log_->ReadInto(static_cast<uint32_t>(p), next_[p], budget, out));
      if (out.size() > before) next_[p] = out.back().position.offset + 1;
      if (next_[p] < (*ends)[p]) all_at_end = false;
    }
    start_ = (start_ + 1) % (n == 0 ? 1 : n);
    for (size_t p = 0; p < n; ++p) all_at_end &= next_[p] >= (*ends)[p];
    caught_up_ = all_at_end;
    return out;
  }

  EmbeddedLog* log_;
  std::vector<uint64_t> next_;
  size_t start_ = 0;
  bool caught_up_ = false;
  std::atomic<bool> woken_{false};
};

}  // namespace

EmbeddedLog::EmbeddedLog(const Options& options) : options_(options) {}

core::Result<std::unique_ptr<EmbeddedLog>> EmbeddedLog::Open(const Options& options) {
  if (options.store == nullptr) return core::InvalidArgument("embedded log needs a store");
  if (options.partitions == 0 || options.partitions > 1024) {
    return core::InvalidArgument("partitions must be 1..1024");
  }
  std::unique_ptr<EmbeddedLog> log(new EmbeddedLog(options));
  log->cf_ = options.store->Cf("log");
  if (log->cf_ < 0) return core::InvalidArgument("store has no 'log' column family");

  // The partition count places tenants; it can never change for a data directory.
  int meta = options.store->Cf("default");
  SVC_ASSIGN_OR_RETURN(auto stored, options.store->Get(meta, kPartitionsMetaKey));
  if (stored.has_value()) {
    if (*stored != std::to_string(options.partitions)) {
      return core::FailedPrecondition("this data directory was created with " + *stored +
                                      " log partitions; --partitions must stay " + *stored);
    }
  } else {
    KvStore::Batch b;
    b.Put(meta, kPartitionsMetaKey, std::to_string(options.partitions));
    SVC_RETURN_IF_ERROR(options.store->Write(b, true));
  }

  log->end_ = std::make_unique<std::atomic<uint64_t>[]>(options.partitions);
  log->next_.assign(options.partitions, 0);
  for (uint32_t p = 0; p < options.partitions; ++p) {
    auto it = options.store->NewIterator(log->cf_, LogKey(p, 0), LogKey(p + 1, 0));
    it->SeekToLast();
    SVC_RETURN_IF_ERROR(it->status());
    uint64_t end = it->Valid() ? GetFixed64BE(it->key().substr(4)) + 1 : 0;
    log->end_[p].store(end);
    log->next_[p] = end;
  }
  if (options.metrics != nullptr) {
    auto& m = *options.metrics;
    log->appends_ = &m.GetCounter("svc_log_appends_total", "Append calls completed",
                                  "backend=\"embedded\"");
    log->events_ = &m.GetCounter("svc_log_events_appended_total", "Events appended",
                                 "backend=\"embedded\"");
    log->fsyncs_ = &m.GetCounter("svc_log_fsyncs_total", "Durable group commits (fsyncs)",
                                 "backend=\"embedded\"");
    log->group_size_ = &m.GetHistogram("svc_log_group_commit_events",
                                       "Events per group commit",
                                       {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096},
                                       "backend=\"embedded\"");
    // A group commit's write and fsync: the disk's share of a durable command's latency (on the
    // benchmark's VM, 0.2 ms typically and 5-30 ms a few times a second: BENCHMARKS.md#open-loop).
    log->group_seconds_ = &m.GetHistogram("svc_log_group_commit_seconds",
                                          "Time to write and sync one group commit",
                                          {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1},
                                          "backend=\"embedded\"");
  }
  log->appender_ = std::thread([l = log.get()] {
    core::SetThreadName("svc-log-append");
    l->AppenderLoop();
  });
  return log;
}

EmbeddedLog::~EmbeddedLog() { Close(); }

void EmbeddedLog::Append(uint32_t partition, std::vector<EventEnvelope> events,
                         AppendCallback done) {
  if (AnswerTrivialAppend(partition, events, done)) return;
  Pending p;
  p.partition = partition;
  p.encoded.reserve(events.size());
  for (const auto& e : events) p.encoded.push_back(EncodeEnvelope(e));  // on the caller's thread
  p.done = std::move(done);
  {
    std::lock_guard lock(mu_);
    if (closing_) {
      p.done(core::Unavailable("event log is closed"));
      return;
    }
    pending_.push_back(std::move(p));
  }
  cv_.notify_one();
}

void EmbeddedLog::AppenderLoop() {
  std::vector<Pending> group;
  for (;;) {
    group.clear();
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return closing_ || !pending_.empty(); });
      if (pending_.empty()) break;  // closing and drained
      size_t events = 0;
      while (!pending_.empty() && (group.empty() || events < options_.max_group_events)) {
        events += pending_.front().encoded.size();
        group.push_back(std::move(pending_.front()));
        pending_.pop_front();
      }
    }
    KvStore::Batch batch;
    std::vector<AppendResult> positions(group.size());
    size_t n_events = 0;
    for (size_t i = 0; i < group.size(); ++i) {
      auto& g = group[i];
      for (auto& enc : g.encoded) {
        uint64_t off = next_[g.partition]++;
        batch.Put(cf_, LogKey(g.partition, off), enc);
        positions[i].positions.push_back(LogPosition{g.partition, off});
        ++n_events;
      }
    }
    const auto write_started = std::chrono::steady_clock::now();
    core::Status st = options_.store->Write(batch, options_.durability == Durability::kFsync);
    const double write_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - write_started).count();
    if (st.ok()) {
      {
        std::lock_guard lock(mu_);  // waiters check the generation under mu_
        for (uint32_t p = 0; p < options_.partitions; ++p) end_[p].store(next_[p]);
        generation_.fetch_add(1);
      }
      if (fsyncs_ != nullptr) {
        if (options_.durability == Durability::kFsync) fsyncs_->Add();
        appends_->Add(group.size());
        events_->Add(n_events);
        group_size_->Observe(static_cast<double>(n_events));
        group_seconds_->Observe(write_seconds);
      }
      tail_cv_.notify_all();
      for (size_t i = 0; i < group.size(); ++i) group[i].done(std::move(positions[i]));
    } else {
      // Nothing of the group is in the log: give the offsets back and fail every append.
      for (uint32_t p = 0; p < options_.partitions; ++p) next_[p] = end_[p].load();
      core::LogError("log group commit failed", {{"error", st.ToString()}});
      for (auto& g : group) g.done(core::Unavailable("event log write failed: " + st.message()));
    }
  }
}

core::Result<std::vector<RecordedEvent>> EmbeddedLog::Read(uint32_t partition, uint64_t from,
                                                           size_t max) const {
  std::vector<RecordedEvent> out;
  SVC_RETURN_IF_ERROR(ReadInto(partition, from, max, out));
  return out;
}

core::Status EmbeddedLog::ReadInto(uint32_t partition, uint64_t from, size_t max,
                                   std::vector<RecordedEvent>& out) const {
  if (partition >= options_.partitions) return core::InvalidArgument("partition out of range");
  uint64_t end = end_[partition].load();
  if (from >= end) return core::Status::Ok();
  size_t limit = out.size() + max;
  auto it = options_.store->NewIterator(cf_, LogKey(partition, from), LogKey(partition, end));
  it->Seek(LogKey(partition, from));
  uint64_t expect = from;
  while (it->Valid() && out.size() < limit) {
    uint64_t off = GetFixed64BE(it->key().substr(4));
    if (off != expect) return core::DataLoss("gap in the event log at offset " + std::to_string(expect));
    RecordedEvent& re = out.emplace_back();
    re.position = LogPosition{partition, off};
    core::Status st = DecodeEnvelopeInto(it->value(), re.event);
    if (!st.ok()) {
      out.pop_back();
      return st;
    }
    ++expect;
    it->Next();
  }
  return it->status();
}

bool EmbeddedLog::WaitForCommit(uint64_t seen_generation, std::chrono::milliseconds wait,
                                const std::atomic<bool>* wake) {
  std::unique_lock lock(mu_);
  return tail_cv_.wait_for(lock, wait, [&] {
    return closing_ || generation_.load() != seen_generation ||
           (wake != nullptr && wake->load());
  });
}

void EmbeddedLog::WakeWaiters() {
  { std::lock_guard lock(mu_); }
  tail_cv_.notify_all();
}

core::Result<std::unique_ptr<LogReader>> EmbeddedLog::OpenReader(
    std::string /*consumer_name*/, std::vector<PartitionCheckpoint> start) {
  return std::unique_ptr<LogReader>(new EmbeddedReader(this, std::move(start)));
}

core::Result<std::vector<uint64_t>> EmbeddedLog::EndOffsets() {
  std::vector<uint64_t> out(options_.partitions);
  for (uint32_t p = 0; p < options_.partitions; ++p) out[p] = end_[p].load();
  return out;
}

void EmbeddedLog::Close() {
  {
    std::lock_guard lock(mu_);
    if (closing_) return;
    closing_ = true;
  }
  cv_.notify_all();
  tail_cv_.notify_all();
  if (appender_.joinable()) appender_.join();
}

}  // namespace svc::eventstore
