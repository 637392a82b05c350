// Kafka backend under faults injected into `svc dev-broker` (librdkafka's mock cluster): request
// errors on Produce and EndTxn, brokers down then up, and a second writer with the same
// transactional.id. In every case: no acknowledged event lost, none duplicated for readers.
#include <doctest/doctest.h>

#include <future>
#include <set>
#include <thread>

#include "core/ids.h"
#include "eventstore/kafka_log.h"
#include "tests/support/dev_broker_process.h"

namespace eventstore_kafka_faults_test {

using namespace svc;
using namespace svc::eventstore;

namespace {

EventEnvelope Ev(const std::string& tenant, int n) {
  static core::RandomIdSource ids;
  EventEnvelope e;
  e.id = ids.NewIdString(core::IdKind::kEvent);
  e.type = "test.happened";
  e.tenant_id = tenant;
  e.aggregate_type = "thing";
  e.aggregate_id = tenant;
  e.aggregate_version = n;
  e.occurred_at = core::Timestamp::FromSeconds(1767225600);
  e.data = "{\"n\":" + std::to_string(n) + "}";
  return e;
}

std::unique_ptr<KafkaLog> Open(const testing::DevBrokerProcess& broker, core::MetricsRegistry* m,
                               const std::string& txn_id = "svc-writer") {
  KafkaLog::Options o;
  o.brokers = broker.bootstraps();
  o.partitions = 4;
  o.transactional_id = txn_id;
  o.metrics = m;
  o.timeout = std::chrono::milliseconds(20000);
  auto l = KafkaLog::Open(o);
  REQUIRE_MESSAGE(l.ok(), l.status().ToString());
  return std::move(l).value();
}

// Everything a fresh reader sees, checking per-partition sequences are contiguous.
std::vector<RecordedEvent> ReadAll(EventLog& log) {
  auto reader = log.OpenReader("check", {});
  REQUIRE(reader.ok());
  std::vector<RecordedEvent> all;
  std::map<uint32_t, uint64_t> next;
  for (;;) {
    auto got = (*reader)->Poll(1000, std::chrono::milliseconds(200));
    REQUIRE(got.ok());
    if (got->empty() && (*reader)->CaughtUp()) break;
    for (auto& e : *got) {
      CHECK(e.position.offset == next[e.position.partition]++);
      all.push_back(std::move(e));
    }
  }
  return all;
}

// Appends `n` single-event commands from several threads; returns the acknowledged event ids.
std::set<std::string> AppendMany(EventLog& log, int n) {
  std::mutex mu;
  std::set<std::string> acked;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::string tenant = "ten_0000000000000000000000000000000" + std::to_string(t);
      for (int i = 0; i < n / 4; ++i) {
        EventEnvelope e = Ev(tenant, i);
        std::string id = e.id;
        auto r = log.AppendAndWait(log.PartitionFor(tenant), {std::move(e)});
        REQUIRE_MESSAGE(r.ok(), r.status().ToString());
        std::lock_guard lock(mu);
        acked.insert(id);
      }
    });
  }
  for (auto& th : threads) th.join();
  return acked;
}

void CheckExactlyOnce(EventLog& log, const std::set<std::string>& acked) {
  auto all = ReadAll(log);
  std::set<std::string> seen;
  for (const auto& e : all) CHECK_MESSAGE(seen.insert(e.event.id).second, "duplicate " << e.event.id);
  CHECK(seen == acked);
}

}  // namespace

TEST_CASE("kafka faults: Produce request errors are retried; nothing lost or doubled") {
  testing::DevBrokerProcess broker;
  core::MetricsRegistry m;
  auto log = Open(broker, &m);
  REQUIRE(broker.Control("produce-errors 5 NOT_LEADER_FOR_PARTITION") == "ok");
  REQUIRE(broker.Control("produce-errors 3 REQUEST_TIMED_OUT") == "ok");
  auto acked = AppendMany(*log, 200);
  CHECK(acked.size() == 200);
  CheckExactlyOnce(*log, acked);
}

TEST_CASE("kafka faults: EndTxn errors; an aborted transaction is re-sent and read once") {
  testing::DevBrokerProcess broker;
  core::MetricsRegistry m;
  auto log = Open(broker, &m);
  // Retriable coordinator errors: librdkafka retries the commit itself.
  REQUIRE(broker.Control("endtxn-errors 3 COORDINATOR_NOT_AVAILABLE") == "ok");
  auto first = AppendMany(*log, 40);
  // A permanent EndTxn error makes the transaction abortable: the log aborts and re-sends the
  // same records with the same sequences. The mock broker does not hide aborted records, so the
  // first copies stay visible in the topic; readers must drop them by sequence.
  REQUIRE(broker.Control("endtxn-errors 1 INVALID_REQUEST") == "ok");
  auto second = AppendMany(*log, 40);
  CHECK(m.GetCounter("svc_log_transaction_aborts_total", "", "backend=\"kafka\"").Value() >= 1);
  first.insert(second.begin(), second.end());
  CheckExactlyOnce(*log, first);
}

TEST_CASE("kafka faults: all brokers down, then up; the pending append completes once") {
  testing::DevBrokerProcess broker;
  core::MetricsRegistry m;
  auto log = Open(broker, &m);
  auto before = AppendMany(*log, 20);
  REQUIRE(broker.Control("broker-down -1") == "ok");
  std::string tenant = "ten_00000000000000000000000000000009";
  EventEnvelope e = Ev(tenant, 1);
  std::string id = e.id;
  std::promise<core::Result<AppendResult>> done;
  log->Append(log->PartitionFor(tenant), {std::move(e)},
              [&](core::Result<AppendResult> r) { done.set_value(std::move(r)); });
  REQUIRE(broker.Control("broker-up -1") == "ok");
  auto r = done.get_future().get();
  REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  before.insert(id);
  CheckExactlyOnce(*log, before);
}

TEST_CASE("kafka: a second writer with the same transactional.id fences the first") {
  testing::DevBrokerProcess broker;
  core::MetricsRegistry m1, m2;
  auto a = Open(broker, &m1, "svc-writer-x");
  std::string tenant = "ten_00000000000000000000000000000001";
  uint32_t p = a->PartitionFor(tenant);
  auto e1 = Ev(tenant, 1);
  std::string id1 = e1.id;
  REQUIRE(a->AppendAndWait(p, {e1}).ok());

  auto b = Open(broker, &m2, "svc-writer-x");  // the zombie's successor
  auto zombie = a->AppendAndWait(p, {Ev(tenant, 2)});
  CHECK_FALSE(zombie.ok());
  CHECK_FALSE(a->AppendAndWait(p, {Ev(tenant, 3)}).ok());  // stays stopped

  auto e4 = Ev(tenant, 4);
  std::string id4 = e4.id;
  auto ok = b->AppendAndWait(p, {e4});
  REQUIRE_MESSAGE(ok.ok(), ok.status().ToString());
  CHECK(ok->positions[0].offset == 1);  // continues the sequence after the first writer's event
  a->Close();
  auto all = ReadAll(*b);
  REQUIRE(all.size() == 2);
  CHECK(all[0].event.id == id1);
  CHECK(all[1].event.id == id4);
}

TEST_CASE("kafka: partitions written by different writers; a newer writer of one partition fences only that one") {
  testing::DevBrokerProcess broker;
  auto open_empty = [&] {
    KafkaLog::Options o;
    o.brokers = broker.bootstraps();
    o.partitions = 4;
    o.write_all = false;  // a cluster's writer: it writes what it takes over
    o.timeout = std::chrono::milliseconds(20000);
    auto l = KafkaLog::Open(o);
    REQUIRE_MESSAGE(l.ok(), l.status().ToString());
    return std::move(l).value();
  };
  // Tenants of two different partitions.
  std::string t0, t1;
  for (int i = 0; t0.empty() || t1.empty(); ++i) {
    std::string t = "ten_000000000000000000000000000000" + std::to_string(10 + i);
    if (PartitionForTenant(t, 4) == 0 && t0.empty()) t0 = t;
    if (PartitionForTenant(t, 4) == 1 && t1.empty()) t1 = t;
  }
  auto a = open_empty();
  auto b = open_empty();
  CHECK(a->OwnedPartitions().empty());
  CHECK_FALSE(a->AppendAndWait(0, {Ev(t0, 1)}).ok());  // not written here
  REQUIRE(a->TakeOver({0}, "svc-writer-0").ok());
  REQUIRE(a->TakeOver({1}, "svc-writer-1").ok());
  CHECK(a->OwnedPartitions() == std::vector<uint32_t>{0, 1});
  CHECK_FALSE(a->TakeOver({1}, "svc-writer-1").ok());  // already written here
  auto first = Ev(t0, 1);
  const std::string first_id = first.id;
  REQUIRE(a->AppendAndWait(0, {first}).ok());
  REQUIRE(a->AppendAndWait(1, {Ev(t1, 1)}).ok());

  // b takes partition 0 over while a still thinks it writes it (a zombie): a's next append there
  // is refused and never read; a goes on writing partition 1.
  REQUIRE(b->TakeOver({0}, "svc-writer-0").ok());
  CHECK_FALSE(a->AppendAndWait(0, {Ev(t0, 2)}).ok());
  auto next = Ev(t0, 3);
  const std::string next_id = next.id;
  auto on_b = b->AppendAndWait(0, {next});
  REQUIRE_MESSAGE(on_b.ok(), on_b.status().ToString());
  CHECK(on_b->positions[0].offset == 1);  // after a's acknowledged event
  REQUIRE(a->AppendAndWait(1, {Ev(t1, 2)}).ok());

  // A clean hand-over of partition 1: a releases it (what it queued is written), b takes it.
  a->Release({1}, /*drain=*/true);
  CHECK(a->OwnedPartitions() == std::vector<uint32_t>{0});
  REQUIRE(b->TakeOver({1}, "svc-writer-1").ok());
  auto third = b->AppendAndWait(1, {Ev(t1, 3)});
  REQUIRE(third.ok());
  CHECK(third->positions[0].offset == 2);
  CHECK(*b->EndOffsets() == std::vector<uint64_t>{2, 3, 0, 0});
  // a's unit of partition 0 was fenced and partition 1 released: a reads both ends from the topic.
  CHECK(*a->EndOffsets() == std::vector<uint64_t>{2, 3, 0, 0});

  auto all = ReadAll(*b);
  std::vector<std::string> p0;
  for (const auto& e : all) {
    if (e.position.partition == 0) p0.push_back(e.event.id);
  }
  CHECK(p0 == std::vector<std::string>{first_id, next_id});
  CHECK(all.size() == 5);
}

// Issue 67: a single writer (`--kafka-writers single`, Open with write_all) fences every partition.
// Started by mistake beside a cluster, it would stop every node's writes: it refuses a topic whose
// partitions a writer group's unit wrote last, unless told the group is gone
// (--kafka-take-over-group). And a take-over's epoch is above every epoch this process's readers
// have seen.
TEST_CASE("kafka: a single writer refuses a topic a writer group writes, unless told to take it over") {
  testing::DevBrokerProcess broker;
  KafkaLog::Options o;
  o.brokers = broker.bootstraps();
  o.partitions = 4;
  o.timeout = std::chrono::milliseconds(20000);
  o.write_all = false;
  auto node = KafkaLog::Open(o);
  REQUIRE_MESSAGE(node.ok(), node.status().ToString());
  REQUIRE((*node)->TakeOver({2}, "svc-writer-2").ok());  // a group's unit (group by default)
  std::string t2;
  for (int i = 0; t2.empty(); ++i) {
    std::string t = "ten_000000000000000000000000000000" + std::to_string(10 + i);
    if (PartitionForTenant(t, 4) == 2) t2 = t;
  }
  REQUIRE((*node)->AppendAndWait(2, {Ev(t2, 1)}).ok());

  o.write_all = true;
  o.transactional_id = "svc-writer";
  auto single = KafkaLog::Open(o);
  REQUIRE_FALSE(single.ok());
  CHECK(single.status().code() == core::StatusCode::kFailedPrecondition);
  CHECK(single.status().message().find("partitions 2 of svc.events are written by a writer group") != std::string::npos);
  CHECK(single.status().message().find("--kafka-take-over-group") != std::string::npos);
  // The group's node was not fenced: it still writes.
  REQUIRE((*node)->AppendAndWait(2, {Ev(t2, 2)}).ok());

  // Told that the group is gone: it takes every partition over, fencing the node.
  (*node)->Close();
  o.take_over_group = true;
  auto taken = KafkaLog::Open(o);
  REQUIRE_MESSAGE(taken.ok(), taken.status().ToString());
  REQUIRE((*taken)->AppendAndWait(2, {Ev(t2, 3)}).ok());
  (*taken)->Close();
  // Its records are a single writer's: the next single writer starts without the flag.
  o.take_over_group = false;
  auto again = KafkaLog::Open(o);
  REQUIRE_MESSAGE(again.ok(), again.status().ToString());
  auto all = ReadAll(**again);
  CHECK(all.size() == 3);
}

}  // namespace eventstore_kafka_faults_test
