// Benchmarks of the spine (not tests): durable command appends/s from many concurrent callers on
// the embedded log, and projection replay events/s. Run through scripts/bench; results are written
// to BENCHMARKS.md by hand with the machine and date.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "commands/writer.h"
#include "core/crypto.h"
#include "core/log.h"
#include "eventstore/embedded_log.h"
#include "eventstore/kafka_dev_broker.h"
#include "eventstore/kafka_log.h"
#include "projections/runner.h"

using namespace svc;
using Clock = std::chrono::steady_clock;

namespace {

// A minimal real aggregate: a counter that records each increment as one event.
struct CounterDecider {
  struct State {
    int64_t n = 0;
  };
  static constexpr std::string_view kName = "counter";
  struct Increment {
    static constexpr std::string_view kCommand = "Increment";
    static constexpr auto Fields() { return std::tuple{}; }
  };
  using CommandType = Increment;
  static core::Result<commands::Decision> Decide(const State& s, const Increment&,
                                                 const commands::CommandContext&) {
    commands::Decision d;
    d.events.push_back({"bench.incremented", 1, "{\"n\":" + std::to_string(s.n + 1) + "}"});
    return d;
  }
  static core::Status Evolve(State& s, const eventstore::EventEnvelope&) {
    ++s.n;
    return core::Status::Ok();
  }
  static core::Json ToJson(const State& s) { return {{"n", s.n}}; }
  static core::Result<State> FromJson(std::string_view t) {
    return State{core::ParseJsonOrDiscarded(t).value("n", int64_t{0})};
  }
};

class CountingProjector final : public projections::Projector {
 public:
  std::string_view Name() const override { return "bench"; }
  int Version() const override { return 1; }
  core::Status Apply(const eventstore::RecordedEvent& e, projections::ViewWriter& view) override {
    view.Put("last/" + e.event.aggregate_id, e.event.data);
    return core::Status::Ok();
  }
};

std::unique_ptr<eventstore::KvStore> OpenStore(const std::string& path) {
  eventstore::KvStore::Options so;
  so.path = path;
  so.column_families = {"log", "writer", "views", "projections"};
  auto s = eventstore::KvStore::Open(so);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(s).value();
}

void BenchCommands(const std::string& dir, int callers, int seconds, bool kafka) {
  auto store = OpenStore(dir + (kafka ? "/cmd-kafka" : "/cmd"));
  core::MetricsRegistry metrics;
  std::unique_ptr<eventstore::KafkaDevBroker> broker;
  std::unique_ptr<eventstore::EventLog> log;
  if (kafka) {
    broker = std::move(eventstore::KafkaDevBroker::Start({})).value();
    eventstore::KafkaLog::Options ko;
    ko.brokers = broker->Bootstraps();
    ko.partitions = 4;
    ko.metrics = &metrics;
    auto k = eventstore::KafkaLog::Open(ko);
    if (!k.ok()) {
      std::fprintf(stderr, "%s\n", k.status().ToString().c_str());
      std::exit(1);
    }
    log = std::move(k).value();
  } else {
    eventstore::EmbeddedLog::Options lo;
    lo.store = store.get();
    lo.partitions = 4;
    lo.durability = eventstore::Durability::kFsync;
    lo.metrics = &metrics;
    log = std::move(eventstore::EmbeddedLog::Open(lo)).value();
  }
  core::ThreadPool pool(2);
  core::RandomIdSource ids;
  commands::Writer::Options wo;
  wo.log = log.get();
  wo.store = store.get();
  wo.ids = &ids;
  wo.pool = &pool;
  wo.metrics = &metrics;
  commands::Writer writer(wo);
  writer.Register(std::make_unique<commands::TypedAggregate<CounterDecider>>());
  if (!writer.Recover().ok()) std::exit(1);

  // `callers` concurrent callers, each with one command in flight at a time (a caller waits for
  // its acknowledgement before sending the next), spread over 64 tenants.
  std::atomic<uint64_t> acked{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::condition_variable cv;
  int active = callers;
  std::function<void(int)> issue = [&](int caller) {
    if (stop.load()) {
      std::lock_guard lock(mu);
      if (--active == 0) cv.notify_all();
      return;
    }
    std::string tenant = "ten_" + std::string(28, '0') + std::to_string(1000 + caller % 64);
    commands::CommandContext ctx;
    ctx.now = core::SystemClock().Now();
    ctx.ids = &ids;
    ctx.actor = {"system", "bench"};
    auto cmd = commands::MakeCommand<CounterDecider>(tenant, "ctr_" + std::to_string(caller),
                                                     CounterDecider::Increment{}, ctx);
    writer.Execute(std::move(cmd), [&, caller](core::Result<commands::CommandOutcome> r) {
      if (!r.ok()) {
        std::fprintf(stderr, "command failed: %s\n", r.status().ToString().c_str());
        std::exit(1);
      }
      acked.fetch_add(1);
      issue(caller);
    });
  };
  auto start = Clock::now();
  for (int c = 0; c < callers; ++c) issue(c);
  std::this_thread::sleep_for(std::chrono::seconds(seconds));  // measurement window (a benchmark)
  uint64_t done = acked.load();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  stop.store(true);
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return active == 0; });
  }
  if (kafka) {
    uint64_t txns = metrics.GetCounter("svc_log_transactions_total", "", "backend=\"kafka\"").Value();
    std::printf("commands (kafka, dev broker): %d callers, %.0f durable single-event commands/s, "
                "%.1f commands per transaction, %llu commands in %.1fs\n",
                callers, done / secs, txns ? double(acked.load()) / txns : 0.0,
                static_cast<unsigned long long>(done), secs);
  } else {
    uint64_t fsyncs = metrics.GetCounter("svc_log_fsyncs_total", "", "backend=\"embedded\"").Value();
    std::printf("commands (embedded): %d callers, %.0f durable single-event commands/s (fsync on), "
                "%.1f commands per fsync, %llu commands in %.1fs\n",
                callers, done / secs, fsyncs ? double(acked.load()) / fsyncs : 0.0,
                static_cast<unsigned long long>(done), secs);
  }
  log->Close();
}

void BenchReplay(const std::string& dir, uint64_t total) {
  auto store = OpenStore(dir + "/replay");
  eventstore::EmbeddedLog::Options lo;
  lo.store = store.get();
  lo.partitions = 4;
  lo.durability = eventstore::Durability::kOs;  // loading the data set; not what is measured
  auto log = std::move(eventstore::EmbeddedLog::Open(lo)).value();
  core::SequentialIdSource ids(1);
  auto t0 = Clock::now();
  constexpr int kBatch = 1000;
  for (uint64_t i = 0; i < total; i += kBatch) {
    std::string tenant = "ten_" + std::string(28, '0') + std::to_string(1000 + (i / kBatch) % 64);
    std::vector<eventstore::EventEnvelope> batch;
    for (int j = 0; j < kBatch; ++j) {
      eventstore::EventEnvelope e;
      e.id = ids.NewIdString(core::IdKind::kEvent);
      e.type = "bench.incremented";
      e.tenant_id = tenant;
      e.environment = "test";
      e.aggregate_type = "counter";
      e.aggregate_id = "ctr_" + std::to_string(j % 100);
      e.aggregate_version = static_cast<int64_t>(i + j + 1);
      e.occurred_at = core::Timestamp::FromSeconds(1767225600);
      e.actor = {"system", "bench"};
      e.request_id = "req_bench";
      e.data = "{\"n\":" + std::to_string(i + j) + ",\"field\":\"value\"}";
      batch.push_back(std::move(e));
    }
    if (!log->AppendAndWait(log->PartitionFor(tenant), std::move(batch)).ok()) std::exit(1);
  }
  double load = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("replay: loaded %llu events in %.1fs\n", static_cast<unsigned long long>(total), load);

  {
    // The log alone: read and decode every event.
    auto reader = std::move(log->OpenReader("bench-read", {})).value();
    auto t = Clock::now();
    uint64_t n = 0;
    for (;;) {
      auto got = reader->Poll(5000, std::chrono::milliseconds(0));
      if (!got.ok()) std::exit(1);
      if (got->empty()) break;
      n += got->size();
    }
    double s = std::chrono::duration<double>(Clock::now() - t).count();
    std::printf("replay: log read+decode only: %.0f events/s\n", n / s);
  }
  CountingProjector projector;
  projections::ProjectionRunner::Options po;
  po.projector = &projector;
  po.log = log.get();
  po.store = store.get();
  po.batch_events = 5000;
  projections::ProjectionRunner runner(po);
  if (!runner.Prepare().ok()) std::exit(1);
  auto t1 = Clock::now();
  if (!runner.RunUntilCaughtUp().ok()) std::exit(1);
  double secs = std::chrono::duration<double>(Clock::now() - t1).count();
  std::printf("replay: %llu events through a projector in %.2fs = %.0f events/s\n",
              static_cast<unsigned long long>(runner.EventsApplied(projector.Name())), secs,
              runner.EventsApplied(projector.Name()) / secs);
  log->Close();
}

}  // namespace

int main(int argc, char** argv) {
  if (!core::InitCrypto().ok()) return 1;
  core::SetLogLevel(core::LogLevel::kWarn);
  std::string dir = argc > 1 ? argv[1] : "/tmp/svc-bench";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  int callers = argc > 2 ? std::atoi(argv[2]) : 256;
  uint64_t events = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1000000;
  bool kafka_only = argc > 4 && std::string(argv[4]) == "kafka";
  if (callers > 0 && !kafka_only) BenchCommands(dir, callers, 10, false);
  if (callers > 0) BenchCommands(dir, callers, 10, true);
  if (kafka_only) return 0;
  BenchReplay(dir, events);
  std::filesystem::remove_all(dir);
  return 0;
}
