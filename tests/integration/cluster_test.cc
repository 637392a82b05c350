// A cluster on the Kafka backend: svc serve --roles (which sets a process may run, what GET /node
// says about a node, a node that only reads the topic beside the one that writes it), and
// --kafka-writers group (the writers' group shares the partitions, hands them over and takes them
// over, each new owner recovering from the log).
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "api/http/http_client.h"
#include "core/json.h"
#include "eventstore/envelope.h"
#include "tests/support/dev_broker_process.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

using namespace svc;
using svc::testing::RunSvc;
using svc::testing::SvcServer;

namespace {

std::vector<std::string> KafkaFlags(const testing::DevBrokerProcess& broker, std::vector<std::string> more = {}) {
  std::vector<std::string> f = {"--log-backend", "kafka", "--kafka-brokers", broker.bootstraps()};
  for (auto& m : more) f.push_back(std::move(m));
  return f;
}

core::Json Node(const SvcServer& s) {
  auto r = api::HttpCall(s.target(), "GET", "/node");
  REQUIRE(r.ok());
  REQUIRE(r->status == 200);
  return core::ParseJsonOrDiscarded(r->body);
}

// The value of one sample of GET /metrics (-1 when absent).
double Metric(const SvcServer& s, const std::string& sample) {
  auto r = api::HttpCall(s.target(), "GET", "/metrics");
  REQUIRE(r.ok());
  std::istringstream in(r->body);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(sample + " ", 0) == 0) return std::stod(line.substr(sample.size() + 1));
  }
  return -1;
}

std::map<std::string, std::string> Auth(const std::string& data) {
  std::string service_key;
  std::ifstream(data + "/service.key") >> service_key;
  return {{"Authorization", "Bearer " + service_key}};
}

std::string CreateTenant(const std::string& data, const std::vector<std::string>& kafka, const std::string& name) {
  std::vector<std::string> args = {"admin", "tenant", "create", "--name", name, "--data-dir", data};
  for (const auto& k : kafka) args.push_back(k);
  auto created = RunSvc(args);
  REQUIRE_MESSAGE(created.exit_code == 0, created.err);
  return core::ParseJsonOrDiscarded(created.out)["id"];
}

}  // namespace

TEST_CASE("cluster roles: a set a process cannot run is refused at start, naming what is missing") {
  testing::TempDir dir;
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--roles", "api,reader"}, "unknown role 'reader'"},
      {{"--roles", "projector"}, "needs --log-backend kafka"},
      {{"--roles", "api,writer", "--log-backend", "kafka", "--kafka-brokers", "127.0.0.1:1"}, "add projector"},
      {{"--roles", "pipeline,projector", "--log-backend", "kafka", "--kafka-brokers", "127.0.0.1:1"}, "add writer"},
      {{"--roles", "projector", "--dev-bootstrap", "--log-backend", "kafka", "--kafka-brokers", "127.0.0.1:1"},
       "needs the writer role"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"serve", "--data-dir", dir.Sub("d"), "--listen", "127.0.0.1:0"};
    for (const auto& a : c.args) args.push_back(a);
    auto r = RunSvc(args);
    CAPTURE(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

TEST_CASE("cluster roles: one node writes, another only reads the topic, and GET /node tells them apart") {
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  const auto kafka = KafkaFlags(broker);
  SvcServer writer(dir.Sub("a"), KafkaFlags(broker, {"--node-id", "node-a"}));
  writer.Start();
  const std::string first = CreateTenant(dir.Sub("a"), kafka, "Acme");

  core::Json a = Node(writer);
  CHECK(a["object"] == "node");
  CHECK(a["id"] == "node-a");
  CHECK(a["backend"] == "kafka");
  CHECK(a["ready"] == true);
  CHECK(a["roles"] == core::Json::array({"api", "writer", "projector", "pipeline", "webhooks", "timers"}));
  CHECK(a["partitions"]["count"] == 4);
  CHECK(a["partitions"]["owned"] == core::Json::array({0, 1, 2, 3}));
  for (const char* job : {"verification", "verified-data", "consolidation", "review-outcomes", "company-verification",
                          "webhook-deliveries", "session-expiry", "retention-sweep", "audit-checkpoints", "purge",
                          "bulk-export"}) {
    CAPTURE(job);
    bool listed = false;
    for (const auto& j : a["jobs"]) listed |= j == job;
    CHECK(listed);
  }

  // A second node with only the projector role: its start waits until its own read models hold
  // what the writer appended before it (its /readyz answers 200 only then).
  SvcServer reader(dir.Sub("b"), KafkaFlags(broker, {"--roles", "projector", "--node-id", "node-b"}));
  reader.Start();
  core::Json b = Node(reader);
  CHECK(b["id"] == "node-b");
  CHECK(b["roles"] == core::Json::array({"projector"}));
  CHECK(b["partitions"]["owned"] == core::Json::array());
  CHECK(b["jobs"] == core::Json::array());
  CHECK(b["ready"] == true);
  CHECK(Metric(reader, "svc_projection_events_applied_total{projector=\"tenancy\"}") >= 1);
  CHECK(Metric(reader, "svc_projection_lag_events{projector=\"tenancy\"}") == 0);
  // It serves no API: the public routes are not there, the health endpoints are.
  auto tenants = api::HttpCall(reader.target(), "GET", "/v1/sessions");
  REQUIRE(tenants.ok());
  CHECK(tenants->status == 404);
  auto ready = api::HttpCall(reader.target(), "GET", "/readyz");
  REQUIRE(ready.ok());
  CHECK(ready->status == 200);

  // The reader opened no transactional producer and wrote no fence: the writer goes on writing.
  const std::string second = CreateTenant(dir.Sub("a"), kafka, "Beta");
  CHECK(second != first);
  CHECK(Node(writer)["ready"] == true);
  auto list = api::HttpCall(writer.admin_target(), "GET", "/admin/tenants", Auth(dir.Sub("a")));
  REQUIRE(list.ok());
  REQUIRE(list->status == 200);
  CHECK(core::ParseJsonOrDiscarded(list->body)["data"].size() == 2);
  reader.Stop();
  writer.Stop();
}

namespace {

// Waits until `done()` holds, asking again every 50 ms, for at most `limit`: the condition is
// something a node shows (GET /node), not the passing of time.
template <class Pred>
bool Eventually(Pred done, std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

std::set<uint32_t> Owned(const SvcServer& s) {
  std::set<uint32_t> out;
  const core::Json node = Node(s);
  for (const auto& p : node["partitions"]["owned"]) out.insert(p.get<uint32_t>());
  return out;
}

// POST /admin/tenants/{t}/keys on `s`: the status.
int CreateKey(const SvcServer& s, const std::string& tenant) {
  auto r = api::HttpCall(s.admin_target(), "POST", "/admin/tenants/" + tenant + "/keys", Auth(s.data_dir()),
                         R"({"scopes":["kyb:read"]})");
  REQUIRE(r.ok());
  return r->status;
}

size_t KeyCount(const SvcServer& s, const std::string& tenant) {
  auto r = api::HttpCall(s.admin_target(), "GET", "/admin/tenants/" + tenant + "/keys", Auth(s.data_dir()));
  REQUIRE(r.ok());
  REQUIRE(r->status == 200);
  return core::ParseJsonOrDiscarded(r->body)["data"].size();
}

}  // namespace

TEST_CASE("cluster writers: the writers' group shares the partitions, commands travel to their writer, a stop "
          "hands partitions over, a kill -9 loses them after the session timeout, and each new owner recovers the "
          "write model from the log") {
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  const std::set<uint32_t> all = {0, 1, 2, 3};
  auto group_flags = [&](const std::string& id) {
    return KafkaFlags(broker, {"--kafka-writers", "group", "--node-id", id});
  };
  SvcServer a(dir.Sub("a"), group_flags("node-a"));
  a.Start();
  REQUIRE(Eventually([&] { return Owned(a) == all; }));
  auto created = api::HttpCall(a.admin_target(), "POST", "/admin/tenants", Auth(a.data_dir()), R"({"name":"Acme"})");
  REQUIRE(created->status == 201);
  const std::string tenant = core::ParseJsonOrDiscarded(created->body)["id"];
  REQUIRE(CreateKey(a, tenant) == 201);

  // A second writer joins: the group splits the partitions between the two, each owned once.
  SvcServer b(dir.Sub("b"), group_flags("node-b"));
  b.Start();
  REQUIRE(Eventually([&] {
    auto oa = Owned(a), ob = Owned(b);
    std::set<uint32_t> both = oa;
    both.insert(ob.begin(), ob.end());
    return !oa.empty() && !ob.empty() && oa.size() + ob.size() == 4 && both == all;
  }));
  // The tenant's commands are decided by the node that owns its partition; the other node sends
  // them there (the commands topic) and answers once its own read models hold the result.
  const uint32_t p = eventstore::PartitionForTenant(tenant, 4);
  SvcServer& owner = Owned(a).count(p) != 0 ? a : b;
  SvcServer& other = &owner == &a ? b : a;
  CHECK(CreateKey(owner, tenant) == 201);
  CHECK(CreateKey(other, tenant) == 201);
  CHECK(KeyCount(other, tenant) == 3);  // read-your-writes on the node that answered
  CHECK(Eventually([&] { return KeyCount(owner, tenant) == 3; }));
  {
    // A node without the writer role decides nothing and sends every command to its writer.
    SvcServer reader(dir.Sub("c"), KafkaFlags(broker, {"--kafka-writers", "group", "--node-id", "node-c",
                                                       "--roles", "api,projector"}));
    reader.Start();
    CHECK(Node(reader)["partitions"]["owned"] == core::Json::array());
    CHECK(KeyCount(reader, tenant) == 3);
    CHECK(CreateKey(reader, tenant) == 201);
    CHECK(KeyCount(reader, tenant) == 4);
    reader.Stop();
  }

  // A clean stop hands the owner's partitions to the other node, which recovers the tenant's
  // write model from the log (the keys created on the first node count) and decides from there.
  owner.Stop();
  REQUIRE(Eventually([&] { return Owned(other) == all; }));
  CHECK(CreateKey(other, tenant) == 201);
  CHECK(KeyCount(other, tenant) == 5);

  // The stopped node comes back and takes some partitions again; then the other one dies.
  owner.Start();
  REQUIRE(Eventually([&] { return !Owned(owner).empty() && Owned(owner).size() + Owned(other).size() == 4; }));
  CHECK(CreateKey(owner, tenant) == 201);
  CHECK(CreateKey(other, tenant) == 201);
  CHECK(Eventually([&] { return KeyCount(owner, tenant) == 7; }));
  other.Kill();
  // After the session timeout the group gives everything to the survivor, which fences what the
  // dead node wrote, recovers and decides.
  REQUIRE(Eventually([&] { return Owned(owner) == all; }));
  CHECK(CreateKey(owner, tenant) == 201);
  CHECK(KeyCount(owner, tenant) == 8);
  owner.Stop();
}
