// The key stores of a cluster on one keys topic (eventstore/key_topic.h), on the real
// `svc dev-broker`: keys created on one node open on every other, two nodes creating one name at
// once agree on one key, a destroyed key is gone on every node (also on one that was stopped while
// it happened), a directory's own keys join the topic and a foreign one is refused, and a master-key
// rotation on one node keeps every node reading.
#include <doctest/doctest.h>

#include <future>
#include <map>
#include <thread>

#include "core/crypto.h"
#include "eventstore/key_topic.h"
#include "tests/support/dev_broker_process.h"
#include "tests/support/key_store_fixture.h"

namespace eventstore_key_topic_test {

using namespace svc;
using namespace svc::eventstore;

namespace {

// One node: its own RocksDB directory and key store, attached to the broker's keys topic.
struct Node {
  testing::KeyStoreFixture f;
  explicit Node(const std::string& kek) { f.keys = std::make_unique<KeyStore>(f.store.get(), kek); }
  core::Status Attach(const testing::DevBrokerProcess& broker) {
    KafkaKeyTopic::Options o;
    o.brokers = broker.bootstraps();
    o.timeout = std::chrono::milliseconds(20000);
    return KafkaKeyTopic::Attach(o, f.keys.get());
  }
  // A restart: the store closes (the replica stops), then opens again under `kek`.
  void Reopen(const std::string& kek) {
    f.keys.reset();
    f.keys = std::make_unique<KeyStore>(f.store.get(), kek);
  }
  std::optional<std::string> Get(const std::string& name) {
    auto r = f.keys->Get(name);
    REQUIRE_MESSAGE(r.ok(), r.status().ToString());
    return *r;
  }
};

}  // namespace

TEST_CASE("keys topic: a key created on one node opens on another, and a destroyed one on none") {
  testing::DevBrokerProcess broker;
  const std::string kek = core::RandomBytes(32);
  Node a(kek), b(kek);
  REQUIRE(a.Attach(broker).ok());
  REQUIRE(b.Attach(broker).ok());
  auto created = a.f.keys->GetOrCreate("person/ten_1/live/per_1");
  REQUIRE(created.ok());
  CHECK(b.Get("person/ten_1/live/per_1") == *created);  // b reads the topic on a miss
  // Asynchronous creation (the request paths) goes through the topic too.
  std::promise<core::Result<std::string>> done;
  a.f.keys->GetOrCreateAsync("session/ten_1/live/vrf_1", [&](core::Result<std::string> k) { done.set_value(k); },
                             /*fresh=*/true);
  auto async_key = done.get_future().get();
  REQUIRE(async_key.ok());
  CHECK(b.Get("session/ten_1/live/vrf_1") == *async_key);
  // A forget's purge on b: the key is gone on a as well, and stays gone after a restart of a.
  REQUIRE(b.f.keys->DestroyForGood({"person/ten_1/live/per_1"}).ok());
  CHECK_FALSE(a.Get("person/ten_1/live/per_1").has_value());
  a.Reopen(kek);
  REQUIRE(a.Attach(broker).ok());
  CHECK_FALSE(a.Get("person/ten_1/live/per_1").has_value());
  CHECK(a.Get("session/ten_1/live/vrf_1") == *async_key);
  // A node stopped while a key was destroyed does not keep it when it comes back.
  b.Reopen(kek);
  REQUIRE(a.f.keys->Destroy("session/ten_1/live/vrf_1").ok());
  REQUIRE(b.Attach(broker).ok());
  auto count = b.f.keys->Count();
  REQUIRE(count.ok());
  CHECK_FALSE(b.Get("session/ten_1/live/vrf_1").has_value());
}

TEST_CASE("keys topic: two nodes creating one name at once keep one key, also for a node that joins later") {
  testing::DevBrokerProcess broker;
  const std::string kek = core::RandomBytes(32);
  Node a(kek), b(kek);
  REQUIRE(a.Attach(broker).ok());
  REQUIRE(b.Attach(broker).ok());
  for (int round = 0; round < 20; ++round) {
    const std::string name = "blind/ten_" + std::to_string(round);
    core::Result<std::string> ka = core::Internal("unset"), kb = core::Internal("unset");
    std::thread ta([&] { ka = a.f.keys->GetOrCreate(name); });
    std::thread tb([&] { kb = b.f.keys->GetOrCreate(name); });
    ta.join();
    tb.join();
    REQUIRE(ka.ok());
    REQUIRE(kb.ok());
    CHECK(*ka == *kb);
  }
  Node c(kek);
  REQUIRE(c.Attach(broker).ok());
  for (int round = 0; round < 20; ++round) {
    const std::string name = "blind/ten_" + std::to_string(round);
    CHECK(c.Get(name) == a.Get(name));
  }
}

TEST_CASE("keys topic: a directory's own keys join the cluster; a foreign directory is refused") {
  testing::DevBrokerProcess broker;
  const std::string kek = core::RandomBytes(32);
  Node a(kek);
  // a ran alone before: its keys are published at its first attach.
  auto before = a.f.keys->GetOrCreate("svc/working-root");
  REQUIRE(before.ok());
  REQUIRE(a.Attach(broker).ok());
  Node b(kek);
  REQUIRE(b.Attach(broker).ok());
  CHECK(b.Get("svc/working-root") == *before);
  // Another directory with its own root (another deployment) does not join.
  Node foreign(kek);
  REQUIRE(foreign.f.keys->GetOrCreate("svc/working-root").ok());
  auto refused = foreign.Attach(broker);
  CHECK(refused.code() == core::StatusCode::kFailedPrecondition);
  CHECK(refused.message().find("belongs to one cluster") != std::string::npos);
}

TEST_CASE("keys topic: a master-key rotation on one node; the others keep reading, and restart with the new key") {
  testing::DevBrokerProcess broker;
  const std::string old_kek = core::RandomBytes(32), new_kek = core::RandomBytes(32);
  Node a(old_kek), b(old_kek);
  REQUIRE(a.Attach(broker).ok());
  REQUIRE(b.Attach(broker).ok());
  std::map<std::string, std::string> keys;
  for (int i = 0; i < 300; ++i) {
    const std::string name = "person/ten_1/live/per_" + std::to_string(i);
    auto k = (i % 2 == 0 ? a : b).f.keys->GetOrCreate(name);
    REQUIRE(k.ok());
    keys[name] = *k;
  }
  // a has applied every key b made before it rotates (a Get that misses reads the topic to its
  // end): then a itself rewraps all 300. (A key of another node that a applies only during its
  // rotation is wrapped again by a's apply path instead, and published; under load the last of
  // b's keys could arrive that way, and this count would be 299 with every key still readable.)
  for (const auto& [name, k] : keys) REQUIRE(a.Get(name) == k);
  auto moved = a.f.keys->Rewrap(new_kek);
  REQUIRE_MESSAGE(moved.ok(), moved.status().ToString());
  CHECK(*moved == 300);
  // b still runs with the old master key: it reads every key, and a key it creates now opens on a.
  for (const auto& [name, k] : keys) CHECK(b.Get(name) == k);
  auto after = b.f.keys->GetOrCreate("person/ten_1/live/per_after");
  REQUIRE(after.ok());
  CHECK(a.Get("person/ten_1/live/per_after") == *after);
  // b restarts with the new master key: everything opens, and a joins the same way afterwards.
  b.Reopen(new_kek);
  CHECK(b.f.keys->RotatedTo());
  REQUIRE(b.f.keys->LoadUnfinishedRotation().ok());
  REQUIRE(b.Attach(broker).ok());
  auto resumed = b.f.keys->ResumeRotation();
  REQUIRE(resumed.ok());
  for (const auto& [name, k] : keys) CHECK(b.Get(name) == k);
  CHECK(b.Get("person/ten_1/live/per_after") == *after);
  // A node that joins with the new key reads everything; one with another master key reads nothing.
  Node c(new_kek);
  REQUIRE(c.Attach(broker).ok());
  for (const auto& [name, k] : keys) CHECK(c.Get(name) == k);
  Node wrong(core::RandomBytes(32));
  REQUIRE(wrong.Attach(broker).ok());
  CHECK(wrong.f.keys->Get("person/ten_1/live/per_1").status().code() == core::StatusCode::kDataLoss);
}

TEST_CASE("keys topic: settings that could drop live keys or keep destroyed ones without bound are refused") {
  const std::string t = "svc.keys";
  auto ok = CheckKeyTopicConfig(t, {{"cleanup.policy", "compact"}, {"max.compaction.lag.ms", "86400000"}});
  REQUIRE(ok.ok());
  CHECK(*ok == 86400000);
  auto deleting = CheckKeyTopicConfig(t, {{"cleanup.policy", "compact,delete"}, {"max.compaction.lag.ms", "1000"}});
  CHECK(deleting.status().code() == core::StatusCode::kFailedPrecondition);
  CHECK(deleting.status().message().find("cleanup.policy=compact") != std::string::npos);
  auto unbounded = CheckKeyTopicConfig(t, {{"cleanup.policy", "compact"}, {"max.compaction.lag.ms", "9223372036854775807"}});
  CHECK(unbounded.status().message().find("max.compaction.lag.ms=86400000") != std::string::npos);
  CHECK_FALSE(CheckKeyTopicConfig(t, {{"cleanup.policy", "compact"}}).ok());
}

}  // namespace eventstore_key_topic_test
