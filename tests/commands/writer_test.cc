#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <thread>
#include <mutex>
#include <tuple>

#include "commands/compliance/breach.h"
#include "commands/writer.h"
#include "tests/support/runtime_fixture.h"

namespace commands_writer_test {

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::tenancy;
using svc::testing::RuntimeFixture;

namespace {
// A crash between the log append and the write model's commit, made by hand: the fixture is
// closed, its write model (rows, idempotency records, checkpoints) dropped, and opened again,
// which recovers it from the log.
void LoseWriteModel(RuntimeFixture& f) {
  f.Close();
  {
    eventstore::KvStore::Options so;
    so.path = f.dir.Sub("data") + "/db";
    so.column_families = api::StoreColumnFamilies();
    auto store = eventstore::KvStore::Open(so);
    REQUIRE(store.ok());
    REQUIRE((*store)->ClearColumnFamily((*store)->Cf("writer")).ok());
  }
  f.Open();
}
}  // namespace

TEST_CASE("writer: same Idempotency-Key + same request = same outcome, nothing new appended") {
  RuntimeFixture f;
  f.Open();
  std::string t = f.NewTenant();
  std::string app = f.ids.NewIdString(core::IdKind::kApplication);
  auto first = f.Run(t, CreateApplication{app, "Mobile"}, f.Ctx("idem-1", "fp-A"));
  REQUIRE(first.ok());
  CHECK_FALSE(first->replayed);
  auto ends_before = *f.rt->log().EndOffsets();

  auto retry = f.Run(t, CreateApplication{app, "Mobile"}, f.Ctx("idem-1", "fp-A"));
  REQUIRE(retry.ok());
  CHECK(retry->replayed);
  CHECK(retry->positions == first->positions);
  CHECK(retry->result == first->result);
  CHECK(*f.rt->log().EndOffsets() == ends_before);

  SUBCASE("same key, different request: IDEMPOTENCY_KEY_REUSED") {
    auto other = f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "Web"},
                       f.Ctx("idem-1", "fp-B"));
    REQUIRE_FALSE(other.ok());
    CHECK(other.status().api_code() == "IDEMPOTENCY_KEY_REUSED");
  }
  SUBCASE("a record from before keyed fingerprints (64 hex, no prefix) takes its retry as the same request") {
    const std::string legacy(64, 'c');
    auto old = f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "Old"}, f.Ctx("idem-old", legacy));
    REQUIRE(old.ok());
    auto retry_old = f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "Old"},
                           f.Ctx("idem-old", "m1:" + std::string(64, 'd')));
    REQUIRE(retry_old.ok());
    CHECK(retry_old->replayed);
    CHECK(retry_old->result == old->result);
  }
  SUBCASE("the record survives a restart (read back from the write model)") {
    f.Close();
    f.Open();
    auto again = f.Run(t, CreateApplication{app, "Mobile"}, f.Ctx("idem-1", "fp-A"));
    REQUIRE(again.ok());
    CHECK(again->replayed);
    CHECK(again->positions == first->positions);
    CHECK(again->result == first->result);
  }
  SUBCASE("keys are kept 24 hours, then may be reused") {
    f.clock.AdvanceSeconds(24 * 3600 - 1);
    CHECK(f.Run(t, CreateApplication{app, "Mobile"}, f.Ctx("idem-1", "fp-A"))->replayed);
    f.clock.AdvanceSeconds(2);
    auto fresh = f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "Web"},
                       f.Ctx("idem-1", "fp-B"));
    REQUIRE(fresh.ok());
    CHECK_FALSE(fresh->replayed);
  }
  SUBCASE("keys are scoped per tenant") {
    std::string t2 = f.NewTenant("Other");
    auto other = f.Run(t2, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "M"},
                       f.Ctx("idem-1", "fp-Z"));
    REQUIRE(other.ok());
    CHECK_FALSE(other->replayed);
  }
}

TEST_CASE("writer: a concurrent duplicate while the first is in flight is IN_PROGRESS") {
  RuntimeFixture f;
  f.Open();
  std::string t = f.NewTenant();
  std::string app = f.ids.NewIdString(core::IdKind::kApplication);
  // Both commands are queued on the partition's strand back to back. The second is decided
  // before or after the first becomes durable; either way it must be IN_PROGRESS or a replay,
  // never a second execution.
  std::promise<core::Result<CommandOutcome>> p1, p2;
  f.rt->writer().Execute(MakeCommand<TenantDecider>(t, t, TenancyCommand(CreateApplication{app, "M"}),
                                                    f.Ctx("dup", "fp")),
                         [&](core::Result<CommandOutcome> r) { p1.set_value(std::move(r)); });
  f.rt->writer().Execute(MakeCommand<TenantDecider>(t, t, TenancyCommand(CreateApplication{app, "M"}),
                                                    f.Ctx("dup", "fp")),
                         [&](core::Result<CommandOutcome> r) { p2.set_value(std::move(r)); });
  auto r1 = p1.get_future().get();
  auto r2 = p2.get_future().get();
  REQUIRE(r1.ok());
  if (r2.ok()) {
    CHECK(r2->replayed);
  } else {
    CHECK(r2.status().api_code() == "IDEMPOTENCY_KEY_IN_PROGRESS");
  }
  auto state = f.rt->writer().DebugState(t, "tenant", t);
  REQUIRE(state.ok());
  auto parsed = TenantDecider::FromJson(*state);
  CHECK(parsed->applications.size() == 2);  // default + one, never two
}

TEST_CASE("writer: recovery rebuilds a lost write model from the log") {
  RuntimeFixture f;
  f.Open();
  std::string t = f.NewTenant();
  for (int i = 0; i < 20; ++i) {
    REQUIRE(f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication),
                                       "app-" + std::to_string(i)},
                  f.Ctx("k" + std::to_string(i), "fp"))
                .ok());
  }
  std::string before = *f.rt->writer().DebugState(t, "tenant", t);
  // Simulate a crash after the log append and before the write-model commit: the whole write
  // model (rows, idempotency records and checkpoints) is lost.
  LoseWriteModel(f);
  CHECK(*f.rt->writer().DebugState(t, "tenant", t) == before);
  // Idempotency records were re-derived from event metadata.
  auto replay = f.Run(t, CreateApplication{"app_00000000000000000000000000000000", "app-3"},
                      f.Ctx("k3", "fp"));
  REQUIRE(replay.ok());
  CHECK(replay->replayed);
  // The aggregate continues where the log ends.
  auto next = f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "late"},
                    f.Ctx());
  REQUIRE(next.ok());
  CHECK(next->aggregate_version == 2 + 20 + 1);
  CHECK(f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "app-7"},
              f.Ctx())
            .status()
            .api_code() == "APPLICATION_NAME_TAKEN");
}

TEST_CASE("writer: an idempotency record rebuilt from the log answers a retry with the first result") {
  RuntimeFixture f;
  f.Open();
  std::string t = f.NewTenant();
  namespace cc = commands::compliance;
  const std::string id = f.ids.NewIdString(core::IdKind::kBreach);
  auto breach = [&](const std::string& breach_id) {
    cc::NotifyBreach n;
    n.notified = {"high", "a backup was readable", 1767225600000000, {}, "key_1"};
    n.breach_id = breach_id;
    commands::CommandContext ctx = f.Ctx("breach-1", "fp-breach");
    ctx.environment = "test";
    auto cmd = commands::MakeCommand<cc::BreachDecider>(t, breach_id, n, ctx);
    cmd.fresh_id = true;
    return f.rt->writer().ExecuteAndWait(std::move(cmd));
  };
  auto first = breach(id);
  REQUIRE(first.ok());
  REQUIRE(first->result["breachId"] == id);
  // The crash after the append, before the write model's commit: the record is rebuilt from the
  // events' metadata, its result told again by the decider (ResultOf).
  LoseWriteModel(f);
  auto retry = breach(f.ids.NewIdString(core::IdKind::kBreach));  // a new id, as the route makes one per request
  REQUIRE(retry.ok());
  CHECK(retry->replayed);
  CHECK(retry->aggregate_id == id);
  CHECK(retry->result == first->result);
}

TEST_CASE("writer: a keyed command's events split across recovery steps still tell its first answer") {
  // Recovery reads the log in steps; a command's events that straddle two steps were recorded
  // from the first step's events only (its record is not rewritten).
  RuntimeFixture f;
  f.Open();
  const std::string t = f.ids.NewIdString(core::IdKind::kTenant);
  const std::string app = f.ids.NewIdString(core::IdKind::kApplication);
  auto first = f.Run(t, CreateTenant{"Split", app}, f.Ctx("split-1", "fp-split"));
  REQUIRE(first.ok());
  REQUIRE(first->positions.size() == 2);  // the tenant and its default application
  REQUIRE(f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "after"}, f.Ctx()).ok());
  f.recovery_poll_events = 1;
  LoseWriteModel(f);
  auto retry = f.Run(t, CreateTenant{"Split", f.ids.NewIdString(core::IdKind::kApplication)},
                     f.Ctx("split-1", "fp-split"));
  REQUIRE(retry.ok());
  CHECK(retry->replayed);
  // Both events' positions (what the route waits for before it answers) and the version after
  // the last; split, the record had the first event's only. (A tenant's answer is never told
  // again: no route keys it, kNeverKeyed; the deciders whose answers are told tell them from the
  // first event of their command.)
  CHECK(retry->positions == first->positions);
  CHECK(retry->aggregate_version == first->aggregate_version);
}

namespace {
// Tenant `t`'s command creating application `name` (a fresh id), unkeyed.
Command NewApplication(RuntimeFixture& f, const std::string& t, const std::string& name) {
  return MakeCommand<TenantDecider>(
      t, t, TenancyCommand(CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), name}), f.Ctx());
}

// A writer of its own (tenants only, one thread, its own metrics) over the runtime's store and a
// log the test controls (FailingLog, HoldingLog) around the runtime's log, recovered. (Extracted
// at its fourth copy.)
template <class Log>
struct OwnWriter {
  Log log;
  core::ThreadPool pool{1};
  core::MetricsRegistry metrics;
  std::unique_ptr<Writer> w;
  explicit OwnWriter(RuntimeFixture& f, std::chrono::milliseconds answer_timeout = {}) : log(&f.rt->log()) {
    Writer::Options wo;
    wo.log = &log;
    wo.store = &f.rt->store();
    wo.ids = &f.ids;
    wo.pool = &pool;
    wo.metrics = &metrics;
    wo.answer_timeout = answer_timeout;
    w = std::make_unique<Writer>(wo);
    w->Register(std::make_unique<TypedAggregate<TenantDecider>>());
    REQUIRE(w->Recover().ok());
  }
};

// The runtime's log with appends the test controls (FailingLog, HoldingLog): everything else goes
// to the log it wraps. (Extracted when the second such log came.)
class WrappedLog : public eventstore::EventLog {
 public:
  explicit WrappedLog(eventstore::EventLog* inner) : inner_(inner) {}
  uint32_t PartitionCount() const override { return inner_->PartitionCount(); }
  core::Result<std::unique_ptr<eventstore::LogReader>> OpenReader(
      std::string n, std::vector<eventstore::PartitionCheckpoint> s) override {
    return inner_->OpenReader(std::move(n), std::move(s));
  }
  core::Result<std::vector<uint64_t>> EndOffsets() override { return inner_->EndOffsets(); }
  void Close() override {}

 protected:
  eventstore::EventLog* inner_;
};

// A log that refuses appends once told to: the write side must stop, not diverge.
class FailingLog final : public WrappedLog {
 public:
  using WrappedLog::WrappedLog;
  std::atomic<bool> fail{false};
  std::atomic<bool> fenced{false};  // the failure is another writer's fence
  void Append(uint32_t p, std::vector<eventstore::EventEnvelope> ev,
              eventstore::AppendCallback done) override {
    if (fail.load()) {
      done(fenced.load() ? core::Unavailable("injected fence", eventstore::kWriterFenced)
                         : core::Unavailable("injected failure"));
      return;
    }
    inner_->Append(p, std::move(ev), std::move(done));
  }
  std::string BackendName() const override { return "failing"; }
};
}  // namespace

TEST_CASE("writer: fail-stop after a log failure, then recovery on restart") {
  RuntimeFixture f;
  f.Open();
  std::string t = f.NewTenant();
  {
    OwnWriter<FailingLog> own(f);
    FailingLog& flog = own.log;
    Writer& w = *own.w;
    flog.fail = true;
    auto r = w.ExecuteAndWait(NewApplication(f, t, "x"));
    CHECK(r.status().api_code() == "SERVICE_UNAVAILABLE");
    CHECK_FALSE(w.Healthy());
    flog.fail = false;  // even when the log is back, the halted partition refuses until restart
    auto r2 = w.ExecuteAndWait(NewApplication(f, t, "y"));
    CHECK(r2.status().api_code() == "SERVICE_UNAVAILABLE");
  }
  // The runtime's own writer never saw the failed command: names are still free.
  CHECK(f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "x"}, f.Ctx()).ok());
}

TEST_CASE("writer: a fence is no halt: the partition's owner is told to let it go, the node keeps running") {
  // Another writer took the partition over before this node's group said so (issue 67): before,
  // this halted the partition, and a cluster node stopped on it (exit 3) in the middle of an
  // ordinary rebalance.
  RuntimeFixture f;
  f.Open();
  std::string t = f.NewTenant();
  OwnWriter<FailingLog> own(f);
  FailingLog& flog = own.log;
  Writer& w = *own.w;
  std::atomic<int> halts{0};
  std::vector<uint32_t> fenced;
  std::mutex mu;
  w.OnHalt([&](uint32_t, const std::string&) { ++halts; });
  w.OnFenced([&](uint32_t p) {
    std::lock_guard lock(mu);
    fenced.push_back(p);
  });
  flog.fail = true;
  flog.fenced = true;
  auto r = w.ExecuteAndWait(NewApplication(f, t, "x"));
  CHECK(r.status().api_code() == "SERVICE_UNAVAILABLE");
  CHECK(halts.load() == 0);
  std::lock_guard lock(mu);
  REQUIRE(fenced.size() == 1);
  CHECK(fenced[0] == flog.PartitionFor(t));
}

namespace {
// A log that holds appends while told to (Kafka out of reach): their callbacks wait in `held`.
class HoldingLog final : public WrappedLog {
 public:
  using WrappedLog::WrappedLog;
  void Append(uint32_t p, std::vector<eventstore::EventEnvelope> ev, eventstore::AppendCallback done) override {
    std::unique_lock lock(mu);
    if (hold) {
      held.emplace_back(p, std::move(ev), std::move(done));
      return;
    }
    lock.unlock();
    inner_->Append(p, std::move(ev), std::move(done));
  }
  // Answers what it held with a failure (the log refused it), in order.
  void FailHeld() {
    std::vector<std::tuple<uint32_t, std::vector<eventstore::EventEnvelope>, eventstore::AppendCallback>> out;
    {
      std::lock_guard lock(mu);
      hold = false;
      out.swap(held);
    }
    for (auto& [p, ev, done] : out) done(core::Unavailable("injected failure"));
  }
  // Stops holding and hands what it held to the log, in order.
  void Release() {
    std::vector<std::tuple<uint32_t, std::vector<eventstore::EventEnvelope>, eventstore::AppendCallback>> out;
    {
      std::lock_guard lock(mu);
      hold = false;
      out.swap(held);
    }
    for (auto& [p, ev, done] : out) inner_->Append(p, std::move(ev), std::move(done));
  }
  std::string BackendName() const override { return "holding"; }

  std::mutex mu;
  bool hold = false;
  std::vector<std::tuple<uint32_t, std::vector<eventstore::EventEnvelope>, eventstore::AppendCallback>> held;
};
}  // namespace

TEST_CASE("writer: with an answer timeout, a command the log does not acknowledge in time is answered 503 once; "
          "its retry gives the first result; a command past its deadline is not decided") {
  RuntimeFixture f;
  f.Open();
  std::string t = f.NewTenant();
  OwnWriter<HoldingLog> own(f, std::chrono::milliseconds(200));
  HoldingLog& hlog = own.log;
  core::MetricsRegistry& metrics = own.metrics;
  Writer& w = *own.w;
  const std::string app = f.ids.NewIdString(core::IdKind::kApplication);
  auto create = [&] { return MakeCommand<TenantDecider>(t, t, TenancyCommand(CreateApplication{app, "Cut"}), f.Ctx("cut-1", "fp-cut")); };

  // The log holds the append (a node cut from its brokers): the caller hears 503 at the deadline.
  {
    std::lock_guard lock(hlog.mu);
    hlog.hold = true;
  }
  auto unanswered = w.ExecuteAndWait(create());
  CHECK(unanswered.status().api_code() == "SERVICE_UNAVAILABLE");
  CHECK(metrics.GetCounter("svc_command_answer_timeouts_total", "").Value() == 1);
  {
    std::lock_guard lock(hlog.mu);
    CHECK(hlog.held.size() == 1);
  }
  // The log takes it after all: the late result reaches nobody (the caller above is gone; under
  // the sanitizers a second answer would be a use after free), and the retry gives the first result.
  hlog.Release();
  // Until the log's acknowledgement reaches the writer, the retry is told the first is in progress.
  auto retried = w.ExecuteAndWait(create());
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       !retried.ok() && retried.status().api_code() == "IDEMPOTENCY_KEY_IN_PROGRESS" &&
       std::chrono::steady_clock::now() < until;) {
    retried = w.ExecuteAndWait(create());
  }
  REQUIRE(retried.ok());
  CHECK(retried->replayed);

  // A command whose deadline passed while it waited (here: one from the commands topic, whose
  // asker answered 503 already) is refused before it is decided: nothing reaches the log.
  auto ends_before = *f.rt->log().EndOffsets();
  Command late = MakeCommand<TenantDecider>(
      t, t, TenancyCommand(CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "Late"}), f.Ctx());
  late.bus_offset = 7;
  late.answer_by_micros = core::SystemClock().Now().micros - 1;
  auto refused = w.ExecuteAndWait(std::move(late));
  CHECK(refused.status().api_code() == "SERVICE_UNAVAILABLE");
  CHECK(*f.rt->log().EndOffsets() == ends_before);
}

namespace {
// A writer of its own through a HoldingLog, with what the no-op tests ask of it.
struct HeldWriter : OwnWriter<HoldingLog> {
  using OwnWriter::OwnWriter;
  HoldingLog& hlog = log;
  void Hold() {
    std::lock_guard lock(hlog.mu);
    hlog.hold = true;
  }
  // Runs `cmd` without waiting: its answer arrives in the future.
  std::future<core::Result<CommandOutcome>> Start(Command cmd) {
    auto p = std::make_shared<std::promise<core::Result<CommandOutcome>>>();
    auto fut = p->get_future();
    w->Execute(std::move(cmd), [p](core::Result<CommandOutcome> r) { p->set_value(std::move(r)); });
    return fut;
  }
  // Blocks until `n` commands were refused by their decider (decided, answer not yet given).
  void WaitRejected(uint64_t n) {
    auto& c = metrics.GetCounter("svc_commands_total", "Commands by outcome", "outcome=\"rejected\"");
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
         c.Value() < n && std::chrono::steady_clock::now() < until;) {
      std::this_thread::yield();
    }
    REQUIRE(c.Value() == n);
  }
  size_t Held() {
    std::lock_guard lock(hlog.mu);
    return hlog.held.size();
  }
};
}  // namespace

TEST_CASE("writer: an answer that appended nothing waits for the appends decided before it; "
          "if one fails, it is 503, not an answer from a state the log never had") {
  RuntimeFixture f;
  f.Open();
  std::string t = f.NewTenant();
  auto create = [&](const std::string& name) { return NewApplication(f, t, name); };
  for (const bool fails : {true, false}) {
    CAPTURE(fails);
    HeldWriter hw(f);  // a writer of its own each time, recovered from the log
    hw.Hold();
    const std::string name = fails ? "Held" : "Kept";
    auto a = hw.Start(create(name));
    // The same name again: refused on the state the held append made (a name taken by a write
    // the log has not acknowledged yet).
    auto b = hw.Start(create(name));
    hw.WaitRejected(1);
    CHECK(hw.Held() == 1);
    CHECK(b.wait_for(std::chrono::seconds(0)) == std::future_status::timeout);  // not before the append's fate
    if (fails) {
      hw.hlog.FailHeld();
      CHECK(a.get().status().api_code() == "SERVICE_UNAVAILABLE");
      // Before: APPLICATION_NAME_TAKEN, for a name nobody has.
      CHECK(b.get().status().api_code() == "SERVICE_UNAVAILABLE");
    } else {
      hw.hlog.Release();
      REQUIRE(a.get().ok());
      CHECK(b.get().status().api_code() == "APPLICATION_NAME_TAKEN");
    }
  }
}

}  // namespace commands_writer_test
