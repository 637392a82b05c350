// The EventLog contract, run against every backend (see event_log.h for the contract).
#include <doctest/doctest.h>

#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "core/ids.h"
#include "eventstore/embedded_log.h"
#include "eventstore/kafka_log.h"
#include "tests/support/dev_broker_process.h"
#include "tests/support/temp_dir.h"

namespace eventstore_event_log_contract_test {

using namespace svc;
using namespace svc::eventstore;

namespace {

// A backend under test: opens a log over a directory (reopenable), closes it.
struct Backend {
  std::function<std::unique_ptr<EventLog>()> open;
  std::function<void()> close;
};

EventEnvelope Event(const std::string& tenant, int n) {
  EventEnvelope e;
  static core::SequentialIdSource ids(99);
  e.id = ids.NewIdString(core::IdKind::kEvent);
  e.type = "test.happened";
  e.tenant_id = tenant;
  e.environment = "test";
  e.aggregate_type = "thing";
  e.aggregate_id = tenant;
  e.aggregate_version = n;
  e.occurred_at = core::Timestamp::FromSeconds(1767225600 + n);
  e.actor = {"system", "test"};
  e.data = "{\"n\":" + std::to_string(n) + "}";
  return e;
}

std::vector<RecordedEvent> ReadAll(EventLog& log, std::vector<PartitionCheckpoint> from = {}) {
  auto reader = log.OpenReader("test", std::move(from));
  REQUIRE(reader.ok());
  std::vector<RecordedEvent> all;
  for (;;) {
    auto got = (*reader)->Poll(1000, std::chrono::milliseconds(100));
    REQUIRE(got.ok());
    if (got->empty() && (*reader)->CaughtUp()) break;
    for (auto& e : *got) all.push_back(std::move(e));
  }
  return all;
}

void RunContract(Backend& backend) {
  auto log = backend.open();
  const std::string t1 = "ten_00000000000000000000000000000001";
  const std::string t2 = "ten_00000000000000000000000000000002";
  uint32_t p1 = log->PartitionFor(t1);

  SUBCASE("multi-event appends get contiguous positions and are read back in order") {
    auto a = log->AppendAndWait(p1, {Event(t1, 1), Event(t1, 2), Event(t1, 3)});
    REQUIRE(a.ok());
    REQUIRE(a->positions.size() == 3);
    CHECK(a->positions[0].offset == 0);
    CHECK(a->positions[2].offset == 2);
    auto b = log->AppendAndWait(p1, {Event(t1, 4)});
    REQUIRE(b.ok());
    CHECK(b->positions[0].offset == 3);
    auto all = ReadAll(*log);
    REQUIRE(all.size() == 4);
    for (int i = 0; i < 4; ++i) {
      CHECK(all[i].position.offset == static_cast<uint64_t>(i));
      CHECK(all[i].event.aggregate_version == i + 1);
      CHECK(all[i].event.data == "{\"n\":" + std::to_string(i + 1) + "}");
    }
    auto ends = log->EndOffsets();
    REQUIRE(ends.ok());
    CHECK((*ends)[p1] == 4);
  }

  SUBCASE("a reader resumes from a checkpoint") {
    REQUIRE(log->AppendAndWait(p1, {Event(t1, 1), Event(t1, 2), Event(t1, 3)}).ok());
    auto all = ReadAll(*log);
    REQUIRE(all.size() == 3);
    std::vector<PartitionCheckpoint> from(log->PartitionCount());
    from[p1] = {all[1].position.offset + 1, all[1].backend_cursor};
    auto rest = ReadAll(*log, from);
    REQUIRE(rest.size() == 1);
    CHECK(rest[0].event.aggregate_version == 3);
  }

  SUBCASE("a tailing reader wakes on append") {
    auto reader = log->OpenReader("tail", {});
    REQUIRE(reader.ok());
    auto first = (*reader)->Poll(10, std::chrono::milliseconds(0));
    REQUIRE(first.ok());
    CHECK(first->empty());
    std::thread writer([&] { REQUIRE(log->AppendAndWait(p1, {Event(t1, 1)}).ok()); });
    std::vector<RecordedEvent> got;
    while (got.empty()) {  // returns as soon as the append commits
      auto r = (*reader)->Poll(10, std::chrono::milliseconds(5000));
      REQUIRE(r.ok());
      for (auto& e : *r) got.push_back(std::move(e));
    }
    writer.join();
    CHECK(got.size() == 1);
  }

  SUBCASE("concurrent appends: every acknowledged event is present exactly once") {
    constexpr int kThreads = 8, kPerThread = 200;
    std::vector<std::thread> threads;
    std::atomic<int> acked{0};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::string tenant = t % 2 == 0 ? t1 : t2;
        for (int i = 0; i < kPerThread; ++i) {
          auto r = log->AppendAndWait(log->PartitionFor(tenant), {Event(tenant, t * 1000 + i)});
          REQUIRE(r.ok());
          acked.fetch_add(1);
        }
      });
    }
    for (auto& th : threads) th.join();
    CHECK(acked.load() == kThreads * kPerThread);
    auto all = ReadAll(*log);
    CHECK(all.size() == static_cast<size_t>(kThreads * kPerThread));
    std::set<std::string> ids;
    std::map<uint32_t, uint64_t> next;
    for (const auto& e : all) {
      ids.insert(e.event.id);
      CHECK(e.position.offset == next[e.position.partition]++);  // contiguous per partition
    }
    CHECK(ids.size() == all.size());
  }

  SUBCASE("appended events survive closing and reopening") {
    REQUIRE(log->AppendAndWait(p1, {Event(t1, 1), Event(t1, 2)}).ok());
    log->Close();
    log.reset();
    backend.close();
    log = backend.open();
    auto all = ReadAll(*log);
    CHECK(all.size() == 2);
    auto c = log->AppendAndWait(p1, {Event(t1, 3)});
    REQUIRE(c.ok());
    CHECK(c->positions[0].offset == 2);
  }

  SUBCASE("appends after Close fail rather than vanish") {
    log->Close();
    auto r = log->AppendAndWait(p1, {Event(t1, 1)});
    CHECK_FALSE(r.ok());
  }
  log.reset();
  backend.close();
}

}  // namespace

TEST_CASE("event log contract: embedded RocksDB backend") {
  testing::TempDir dir;
  std::unique_ptr<KvStore> store;
  core::MetricsRegistry metrics;
  Backend b;
  b.open = [&]() -> std::unique_ptr<EventLog> {
    KvStore::Options so;
    so.path = dir.Sub("db");
    so.column_families = {"log"};
    auto s = KvStore::Open(so);
    REQUIRE(s.ok());
    store = std::move(s).value();
    EmbeddedLog::Options lo;
    lo.store = store.get();
    lo.partitions = 4;
    lo.metrics = &metrics;
    auto l = EmbeddedLog::Open(lo);
    REQUIRE(l.ok());
    return std::move(l).value();
  };
  b.close = [&] { store.reset(); };
  RunContract(b);
}

namespace {

// A Kafka log of 4 partitions on the dev broker (a new writer each call, as a restarted svc).
std::unique_ptr<KafkaLog> OpenKafka(testing::DevBrokerProcess& broker, core::MetricsRegistry& metrics) {
  KafkaLog::Options ko;
  ko.brokers = broker.bootstraps();
  ko.partitions = 4;
  ko.metrics = &metrics;
  auto l = KafkaLog::Open(ko);
  REQUIRE_MESSAGE(l.ok(), l.status().ToString());
  return std::move(l).value();
}

}  // namespace

TEST_CASE("event log contract: Kafka backend on svc dev-broker") {
  testing::DevBrokerProcess broker;
  core::MetricsRegistry metrics;
  Backend b;
  b.open = [&]() -> std::unique_ptr<EventLog> { return OpenKafka(broker, metrics); };
  b.close = [] {};
  RunContract(b);
}

TEST_CASE("embedded log: group commit shares fsyncs; partition count is fixed") {
  testing::TempDir dir;
  KvStore::Options so;
  so.path = dir.Sub("db");
  so.column_families = {"log"};
  auto store = KvStore::Open(so);
  REQUIRE(store.ok());
  core::MetricsRegistry metrics;
  {
    EmbeddedLog::Options lo;
    lo.store = store->get();
    lo.partitions = 4;
    lo.metrics = &metrics;
    auto log = EmbeddedLog::Open(lo);
    REQUIRE(log.ok());
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t) {
      threads.emplace_back([&, t] {
        std::string tenant = "ten_0000000000000000000000000000000" + std::to_string(t % 10);
        for (int i = 0; i < 100; ++i) {
          REQUIRE((*log)->AppendAndWait((*log)->PartitionFor(tenant), {Event(tenant, i)}).ok());
        }
      });
    }
    for (auto& th : threads) th.join();
    uint64_t appends = metrics.GetCounter("svc_log_appends_total", "", "backend=\"embedded\"").Value();
    uint64_t fsyncs = metrics.GetCounter("svc_log_fsyncs_total", "", "backend=\"embedded\"").Value();
    CHECK(appends == 1600);
    CHECK(fsyncs < appends);  // many appends per fsync
    MESSAGE("1600 appends took " << fsyncs << " fsyncs");
    // Each group commit's write and sync is timed (what a durable command waits on the disk).
    auto timed = metrics.GetHistogram("svc_log_group_commit_seconds", "", {}, "backend=\"embedded\"").Take();
    CHECK(timed.count == fsyncs);
    CHECK(timed.sum > 0);
  }
  EmbeddedLog::Options lo;
  lo.store = store->get();
  lo.partitions = 8;
  auto reopened = EmbeddedLog::Open(lo);
  REQUIRE_FALSE(reopened.ok());
  CHECK(reopened.status().code() == core::StatusCode::kFailedPrecondition);
}

// Issue 31: the development broker kept 5 MiB per partition and dropped the oldest records past
// it, so a longer run found a gap at its next start (DATA_LOSS) and `svc replay --verify` failed.
TEST_CASE("event log: the development broker keeps every record, past the mock cluster's 5 MiB a partition") {
  testing::DevBrokerProcess broker;
  core::MetricsRegistry metrics;
  auto log = OpenKafka(broker, metrics);
  const std::string tenant = "ten_00000000000000000000000000000007";
  const uint32_t p = log->PartitionFor(tenant);
  // 8 MiB in one partition, in batches of 64 events of 2 KiB.
  const std::string padding(2000, 'x');
  int n = 0;
  while (n < 4096) {
    std::vector<EventEnvelope> batch;
    for (int i = 0; i < 64; ++i) {
      EventEnvelope e = Event(tenant, ++n);
      e.data = "{\"n\":" + std::to_string(n) + ",\"pad\":\"" + padding + "\"}";
      batch.push_back(std::move(e));
    }
    REQUIRE(log->AppendAndWait(p, std::move(batch)).ok());
  }
  log->Close();
  // A new writer (as a restarted svc) finds no gap, and a reader from the start sees every event.
  auto again = OpenKafka(broker, metrics);
  auto all = ReadAll(*again);
  REQUIRE(all.size() == 4096);
  CHECK(all.front().event.aggregate_version == 1);
  CHECK(all.back().event.aggregate_version == 4096);
}

// The events topic's configuration as DescribeConfigs gives it: only one that keeps every event
// is taken; the refusal names the setting and the value to set.
TEST_CASE("event log: an events topic whose retention would delete events is refused, naming the setting") {
  const std::string t = "svc.events";
  CHECK(CheckEventTopicConfig(t, {{"retention.ms", "-1"}, {"retention.bytes", "-1"}, {"cleanup.policy", "delete"}}).ok());
  CHECK(CheckEventTopicConfig(t, {{"retention.ms", "-1"}}).ok());
  auto week = CheckEventTopicConfig(t, {{"retention.ms", "604800000"}, {"retention.bytes", "-1"}, {"cleanup.policy", "delete"}});
  REQUIRE_FALSE(week.ok());
  CHECK(week.message().find("retention.ms=604800000") != std::string::npos);
  CHECK(week.message().find("retention.ms=-1") != std::string::npos);
  auto bytes = CheckEventTopicConfig(t, {{"retention.ms", "-1"}, {"retention.bytes", "1073741824"}});
  REQUIRE_FALSE(bytes.ok());
  CHECK(bytes.message().find("retention.bytes=-1") != std::string::npos);
  auto compact = CheckEventTopicConfig(t, {{"retention.ms", "-1"}, {"cleanup.policy", "compact,delete"}});
  REQUIRE_FALSE(compact.ok());
  CHECK(compact.message().find("cleanup.policy=delete") != std::string::npos);
  CHECK_FALSE(CheckEventTopicConfig(t, {}).ok());  // retention.ms unknown: not known to keep events
}

// Issue 67: what keeps an acknowledged event through a broker's loss. Unclean leader election
// and one in-sync replica on a replicated topic are refused, naming the setting.
TEST_CASE("event log: unclean leader election, and min.insync.replicas=1 on a replicated topic, are refused") {
  const std::string t = "svc.events";
  const std::map<std::string, std::string> keeps = {{"retention.ms", "-1"}, {"retention.bytes", "-1"}};
  auto with = [&](std::map<std::string, std::string> extra) {
    auto c = keeps;
    c.insert(extra.begin(), extra.end());
    return c;
  };
  auto unclean = CheckEventTopicConfig(t, with({{"unclean.leader.election.enable", "true"}}), 3);
  REQUIRE_FALSE(unclean.ok());
  CHECK(unclean.message().find("unclean.leader.election.enable=false") != std::string::npos);
  CHECK(CheckEventTopicConfig(t, with({{"unclean.leader.election.enable", "false"}, {"min.insync.replicas", "2"}}), 3).ok());
  auto one = CheckEventTopicConfig(t, with({{"min.insync.replicas", "1"}}), 3);
  REQUIRE_FALSE(one.ok());
  CHECK(one.message().find("min.insync.replicas=2") != std::string::npos);
  CHECK(one.message().find("3 replicas") != std::string::npos);
  CHECK_FALSE(CheckEventTopicConfig(t, keeps, 2).ok());  // unset is Kafka's default, 1
  // One replica (a development broker): taken, with a warning; replication unknown: as before.
  CHECK(CheckEventTopicConfig(t, with({{"min.insync.replicas", "1"}}), 1).ok());
  CHECK(CheckEventTopicConfig(t, keeps).ok());
}

// Issue 67: the take-over's tail scan. A window every record of which is invisible (aborted
// transactions, markers: a read_committed consumer sees nothing there) used to end the scan, and
// the new writer's epoch came out as 1, below the one readers had seen, so they dropped its
// events. It widens until the partition's start; the verdict also names a group's partitions.
TEST_CASE("event log: a take-over's tail window that shows nothing widens until the partition's start") {
  // Offsets 936-1000 hold nothing visible; the partition starts at 0.
  auto empty = JudgeTail({}, 0, 0, 1000, 64);
  CHECK(empty.widen);
  CHECK_FALSE(empty.found_seq);
  CHECK_FALSE(JudgeTail({}, 0, 0, 1000, 4096).widen);  // reaches the start: an empty partition
  // A window with the epoch's fence and an accepted event after it is enough.
  std::vector<TailRecord> tail = {{900, true, 7, false, 0, true}, {901, false, 7, true, 41, true}};
  auto v = JudgeTail(tail, 7, 0, 1000, 128);
  CHECK_FALSE(v.widen);
  CHECK(v.found_seq);
  CHECK(v.next_seq == 42);
  CHECK(v.group);
  // Only a fence of the highest epoch (no event since): the window widens for the sequence.
  CHECK(JudgeTail({{990, true, 8, false, 0, false}}, 8, 0, 1000, 64).widen);
  // A fenced writer's late record (a lower epoch after the fence) is not accepted.
  std::vector<TailRecord> late = {{900, false, 7, true, 41, true}, {950, true, 8, false, 0, false},
                                  {960, false, 7, true, 42, true}, {970, false, 8, true, 42, false}};
  auto w = JudgeTail(late, 8, 0, 1000, 128);
  CHECK(w.next_seq == 43);
  CHECK_FALSE(w.group);  // the single writer that fenced the group writes it now
}

}  // namespace eventstore_event_log_contract_test
