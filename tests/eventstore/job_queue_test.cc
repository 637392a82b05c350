// Jobs shared by a consumer group (eventstore/job_queue.h), on the real `svc dev-broker` and its
// topic svc.jobs (16 partitions): every job published is given to the member that has its
// partition; a member that leaves gives its partitions back (revoked runs for each first); the
// next member is given again exactly the jobs that were not done, and none that were.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "eventstore/envelope.h"
#include "eventstore/job_queue.h"
#include "tests/support/dev_broker_process.h"

namespace eventstore_job_queue_test {

using namespace svc;
using namespace svc::eventstore;

namespace {

constexpr uint32_t kPartitions = 16;  // what svc dev-broker makes svc.jobs with

// A member of the workers' group: the jobs it was given, and the partitions it gave back.
struct Member {
  std::unique_ptr<JobQueue> q;
  std::mutex mu;
  std::vector<JobRecord> given;
  std::multiset<uint32_t> revoked;

  explicit Member(const testing::DevBrokerProcess& broker, const std::string& id) {
    JobQueue::Options o;
    o.brokers = broker.bootstraps();
    o.partitions = kPartitions;
    o.member = id;
    o.timeout = std::chrono::milliseconds(20000);
    auto opened = JobQueue::Open(o);
    REQUIRE_MESSAGE(opened.ok(), opened.status().ToString());
    q = std::move(*opened);
  }
  void Consume() {
    auto st = q->Consume(
        [this](JobRecord r) {
          std::lock_guard lock(mu);
          given.push_back(std::move(r));
        },
        [this](uint32_t p, bool) {
          std::lock_guard lock(mu);
          revoked.insert(p);
        });
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }
  std::set<std::string> Keys() {
    std::lock_guard lock(mu);
    std::set<std::string> out;
    for (const auto& r : given) out.insert(r.key);
    return out;
  }
  std::optional<JobRecord> Find(const std::string& key) {
    std::lock_guard lock(mu);
    for (const auto& r : given) {
      if (r.key == key) return r;
    }
    return std::nullopt;
  }
};

// Waits until `done()` holds, asking every 20 ms, for at most 30 s: the condition is what the
// member was given, not the passing of time.
template <class Pred>
bool Eventually(Pred done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

// `n` keys, each in a partition of its own (and none in `taken`).
std::vector<std::string> KeysInDistinctPartitions(size_t n, const std::string& prefix, std::set<uint32_t>& taken) {
  std::vector<std::string> keys;
  for (int i = 0; keys.size() < n; ++i) {
    std::string k = prefix + std::to_string(i);
    if (taken.insert(PartitionForTenant(k, kPartitions)).second) keys.push_back(k);
  }
  return keys;
}

}  // namespace

TEST_CASE("job queue: jobs not done are given again to the next member, jobs done are not") {
  testing::DevBrokerProcess broker;
  std::set<uint32_t> used;
  const auto keys = KeysInDistinctPartitions(8, "ten_1/test/vrf_", used);
  Member first(broker, "worker-1");
  first.Consume();
  std::vector<std::pair<std::string, std::string>> jobs;
  for (const auto& k : keys) jobs.emplace_back(k, R"({"job":")" + k + R"("})");
  REQUIRE(first.q->Publish(jobs).ok());
  // The only member is given every partition, so every job, each once, with its payload.
  REQUIRE(Eventually([&] { return first.Keys().size() == keys.size(); }));
  CHECK(first.q->Owned().size() == kPartitions);
  {
    std::lock_guard lock(first.mu);
    CHECK(first.given.size() == keys.size());
    for (const auto& r : first.given) {
      CHECK(r.payload == R"({"job":")" + r.key + R"("})");
      CHECK(r.partition == PartitionForTenant(r.key, kPartitions));
    }
  }
  // Five jobs end; three do not (their worker is about to leave).
  for (size_t i = 0; i < 5; ++i) {
    auto r = first.Find(keys[i]);
    REQUIRE(r.has_value());
    first.q->Done(r->partition, r->offset);
  }
  // Leaving gives every partition back, each through `revoked` first.
  first.q->Close();
  CHECK(first.revoked.size() == kPartitions);
  CHECK(first.q->Owned().empty());

  Member next(broker, "worker-2");
  next.Consume();
  // The three jobs not done come again.
  REQUIRE(Eventually([&] { return next.Keys().size() >= 3; }));
  // A new job in each partition of a job that was done arrives after that job would have: once
  // every one of them is here, none of the done jobs was given again.
  std::vector<std::pair<std::string, std::string>> after;
  for (size_t i = 0; i < 5; ++i) {
    const uint32_t p = PartitionForTenant(keys[i], kPartitions);
    for (int j = 0;; ++j) {
      std::string k = "ten_2/test/vrf_" + std::to_string(j);
      if (PartitionForTenant(k, kPartitions) == p) {
        after.emplace_back(k, "{}");
        break;
      }
    }
  }
  REQUIRE(next.q->Publish(after).ok());
  REQUIRE(Eventually([&] {
    auto got = next.Keys();
    for (const auto& [k, v] : after) {
      if (got.count(k) == 0) return false;
    }
    return true;
  }));
  std::set<std::string> expected = {keys[5], keys[6], keys[7]};
  for (const auto& [k, v] : after) expected.insert(k);
  CHECK(next.Keys() == expected);
  next.q->Close();
}

TEST_CASE("job queue: two members share the partitions, each partition with one of them") {
  testing::DevBrokerProcess broker;
  Member a(broker, "worker-a"), b(broker, "worker-b");
  a.Consume();
  b.Consume();
  REQUIRE(Eventually([&] {
    auto oa = a.q->Owned(), ob = b.q->Owned();
    std::set<uint32_t> all(oa.begin(), oa.end());
    all.insert(ob.begin(), ob.end());
    return !oa.empty() && !ob.empty() && oa.size() + ob.size() == kPartitions && all.size() == kPartitions;
  }));
  // A job goes to the member that has its partition, and only there.
  std::set<uint32_t> used;
  const auto keys = KeysInDistinctPartitions(kPartitions, "ten_3/test/vrf_", used);
  std::vector<std::pair<std::string, std::string>> jobs;
  for (const auto& k : keys) jobs.emplace_back(k, "{}");
  REQUIRE(a.q->Publish(jobs).ok());
  REQUIRE(Eventually([&] { return a.Keys().size() + b.Keys().size() == kPartitions; }));
  const auto owned_a = a.q->Owned();
  for (const auto& k : keys) {
    const uint32_t p = PartitionForTenant(k, kPartitions);
    const bool at_a = std::find(owned_a.begin(), owned_a.end(), p) != owned_a.end();
    CAPTURE(k);
    CHECK(a.Keys().count(k) == (at_a ? 1u : 0u));
    CHECK(b.Keys().count(k) == (at_a ? 0u : 1u));
  }
  // A clean leave hands a's partitions to b without waiting for a's session to time out.
  a.q->Close();
  CHECK(Eventually([&] { return b.q->Owned().size() == kPartitions; }));
  b.q->Close();
}

}  // namespace eventstore_job_queue_test
