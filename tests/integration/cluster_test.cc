// A cluster on the Kafka backend: svc serve --roles (which sets a process may run, what GET /node
// says about a node, a node that only reads the topic beside the one that writes it), and
// --kafka-writers group (the writers' group shares the partitions, hands them over and takes them
// over, each new owner recovering from the log).
#include <doctest/doctest.h>

#include <array>
#include <csignal>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "api/http/http_client.h"
#include "core/crypto.h"
#include "core/json.h"
#include "core/mx_ids.h"
#include "eventstore/envelope.h"
#include "eventstore/kv_store.h"
#include "tests/support/capture_bytes.h"
#include "tests/support/dev_broker_process.h"
#include "tests/support/s3_process.h"
#include "tests/support/stopped_data_dir.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace integration_cluster_test {

using namespace svc;
using svc::testing::RunSvc;
using svc::testing::SvcServer;

namespace {

std::vector<std::string> KafkaFlags(const testing::DevBrokerProcess& broker, std::vector<std::string> more = {}) {
  std::vector<std::string> f = {"--log-backend", "kafka", "--kafka-brokers", broker.bootstraps()};
  for (auto& m : more) f.push_back(std::move(m));
  return f;
}

// The master key a cluster's nodes share (the keys topic carries keys wrapped under it), in a file
// outside every node's data directory.
std::string ClusterKeyFile(const testing::TempDir& dir) {
  const std::string path = dir.Sub("cluster.key");
  if (!std::filesystem::exists(path)) {
    std::ofstream(path) << core::Base64Encode(core::RandomBytes(32)) << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  return path;
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
  CHECK(a["roles"] == core::Json::array({"api", "writer", "projector", "pipeline", "webhooks", "timers", "worker"}));
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

// The flags of a node of a writers' group on `broker`, with the cluster's master key.
std::vector<std::string> GroupFlags(const testing::DevBrokerProcess& broker, const testing::TempDir& dir,
                                    const std::string& id, std::vector<std::string> more = {}) {
  std::vector<std::string> f = {"--kafka-writers", "group", "--node-id", id, "--master-key-file", ClusterKeyFile(dir)};
  f.insert(f.end(), more.begin(), more.end());
  return KafkaFlags(broker, std::move(f));
}

// True when each of two nodes writes some of the four partitions and together all of them.
bool Shared(const SvcServer& a, const SvcServer& b) {
  auto oa = Owned(a), ob = Owned(b);
  return !oa.empty() && !ob.empty() && oa.size() + ob.size() == 4;
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
  auto group_flags = [&](const std::string& id) { return GroupFlags(broker, dir, id); };
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
                                                       "--master-key-file", ClusterKeyFile(dir),
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

TEST_CASE("cluster keys and lists: an API key works on every node, a person sealed on one node opens on another, "
          "a purge shreds the person's key on every node, and a list loaded through one node screens on the other") {
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));  // the nodes' shared object storage
  const std::vector<std::string> blobs = s3.ServerFlags(dir.Sub("aws-credentials"));
  auto flags = [&](const std::string& id) {
    std::vector<std::string> more = {"--reveal-budget-per-day", "6", "--rate-reads", "0.5"};
    more.insert(more.end(), blobs.begin(), blobs.end());
    return GroupFlags(broker, dir, id, more);
  };
  SvcServer a(dir.Sub("a"), flags("node-a"));
  a.Start();
  SvcServer b(dir.Sub("b"), flags("node-b"));
  b.Start();
  REQUIRE(Eventually([&] { return Shared(a, b); }));
  auto tenant_made = api::HttpCall(a.admin_target(), "POST", "/admin/tenants", Auth(a.data_dir()), R"({"name":"Acme"})");
  REQUIRE(tenant_made->status == 201);
  const std::string tenant = core::ParseJsonOrDiscarded(tenant_made->body)["id"];
  // An API key made through node a authenticates on node b: the lookup key derives from the
  // cluster's working root, which both nodes read from the keys topic.
  auto key_made = api::HttpCall(a.admin_target(), "POST", "/admin/tenants/" + tenant + "/keys", Auth(a.data_dir()),
                                R"({"scopes":["persons:read","persons:write","persons:read_pii","persons:redact","aml:write"]})");
  REQUIRE_MESSAGE(key_made->status == 201, key_made->body);
  const std::string secret = core::ParseJsonOrDiscarded(key_made->body)["secret"];
  const std::map<std::string, std::string> bearer = {{"Authorization", "Bearer " + secret},
                                                     {"Content-Type", "application/json"}};
  auto person = api::HttpCall(b.target(), "POST", "/v1/persons", bearer,
                              R"({"pii":{"curp":"PEPJ800101HDFRRN03","email":"nube@example.mx","fullName":"Nube Pérez"}})");
  REQUIRE_MESSAGE(person->status == 201, person->body);
  const std::string id = core::ParseJsonOrDiscarded(person->body)["id"];
  // Sealed on b under the person's key (made on b, published), opened on a at once: a person
  // acknowledged through b a moment ago is no 404 on a, which waits for its read models to reach
  // the log's end before a miss is an answer (read-your-writes across nodes).
  const std::string decrypt = R"({"fields":["email"],"purpose":"identity_verification","reason":"cluster test"})";
  auto first = api::HttpCall(a.target(), "POST", "/v1/persons/" + id + "/decrypt", bearer, decrypt);
  REQUIRE_MESSAGE(first->status == 200, first->body);
  core::Json opened = core::ParseJsonOrDiscarded(first->body);
  CHECK(opened["fields"]["email"] == "nube@example.mx");

  // One CURP sent to two nodes at once: exactly one person gets it (the CURP's claim is decided in
  // the log by the partition's one writer, whichever node each request reached).
  for (char homoclave = '1'; homoclave <= '5'; ++homoclave) {
    std::string curp = std::string("PEPJ800101HDFRRN") + homoclave;
    curp += core::mx::CurpCheckDigit(curp);
    const std::string body = R"({"pii":{"curp":")" + curp + R"("}})";
    std::map<std::string, std::string> plain = bearer;
    api::HttpResponse ra, rb;
    std::thread ta([&] { ra = *api::HttpCall(a.target(), "POST", "/v1/persons", plain, body); });
    std::thread tb([&] { rb = *api::HttpCall(b.target(), "POST", "/v1/persons", plain, body); });
    ta.join();
    tb.join();
    CAPTURE(curp);
    CHECK((ra.status == 201) + (rb.status == 201) == 1);
    const api::HttpResponse& lost = ra.status == 201 ? rb : ra;
    CHECK(lost.status == 409);
    CHECK(lost.body.find("CURP_CONFLICT") != std::string::npos);
  }

  // Per-key rate limits are per node (docs/operations.md#limits-on-a-cluster): at 0.5 reads/s
  // (a burst of one) each node lets one read through and refuses the next, whatever the other did.
  const std::string person_path = "/v1/persons/" + id;
  CHECK(api::HttpCall(a.target(), "GET", person_path, bearer)->status == 200);
  auto limited = api::HttpCall(a.target(), "GET", person_path, bearer);
  CHECK(limited->status == 429);
  CHECK(limited->body.find("RATE_LIMITED") != std::string::npos);
  CHECK(api::HttpCall(b.target(), "GET", person_path, bearer)->status == 200);
  CHECK(api::HttpCall(b.target(), "GET", person_path, bearer)->status == 429);
  // The daily reveal budget (6 here) is an aggregate decided by its partition's one writer: exact
  // across nodes. One reveal is spent above; reveals alternating between the nodes get five more.
  int revealed = 1;
  api::HttpResponse last;
  for (int i = 0; i < 10; ++i) {
    last = *api::HttpCall(i % 2 == 0 ? b.target() : a.target(), "POST", person_path + "/decrypt", bearer, decrypt);
    if (last.status != 200) break;
    ++revealed;
  }
  CHECK(revealed == 6);
  CHECK(last.status == 429);
  CHECK(last.body.find("PII_DECRYPT_CAP_REACHED") != std::string::npos);

  // A sanctions list loaded through node a (its files in the shared bucket, its version an event)
  // is in force on node b within seconds, without a restart.
  const std::string samples = std::string(SVC_TEST_SOURCE_DIR) + "/../docs/samples/lists/";
  const core::Json load = {{"format", "ofac_sdn_csv"}, {"files", {samples + "sdn.csv", samples + "alt.csv"}}};
  auto loaded = api::HttpCall(a.admin_target(), "POST", "/admin/aml/lists", Auth(a.data_dir()), load.dump());
  REQUIRE_MESSAGE(loaded->status == 200, loaded->body);
  const std::string screen = R"({"subjectType":"name","name":"Rogelio Armando Villarreal Quintana"})";
  CHECK(Eventually([&] {
    auto r = api::HttpCall(b.target(), "POST", "/v1/screenings", bearer, screen);
    return r->status == 201 && core::ParseJsonOrDiscarded(r->body)["hits"].size() >= 1;
  }));

  // Forget with mode purge through a; the purge runs on the node that writes the tenant's partition.
  auto forget = api::HttpCall(a.target(), "POST", "/v1/persons/" + id + "/forget", bearer,
                              R"({"mode":"purge","reason":"ARCO"})");
  REQUIRE_MESSAGE(forget->status == 200, forget->body);
  // The purge is due at once; the purger of the node that writes the person's partition does it
  // (its timer, or the admin call once that node's read model holds the forget).
  int64_t purged = 0;
  CHECK(Eventually([&] {
    for (SvcServer* s : {&a, &b}) {
      auto ran = api::HttpCall(s->admin_target(), "POST", "/admin/persons/purge", Auth(s->data_dir()), "{}");
      if (ran->status == 200) purged += core::ParseJsonOrDiscarded(ran->body)["purged"].get<int64_t>();
    }
    for (SvcServer* s : {&a, &b}) {
      auto r = api::HttpCall(s->target(), "POST", "/v1/persons/" + id + "/decrypt", bearer, decrypt);
      if (r->status != 410 || r->body.find("PERSON_PURGED") == std::string::npos) return false;
    }
    return true;
  }));
  CHECK(purged <= 1);  // never twice
  a.Stop();
  b.Stop();
  // On both stopped data directories: the key store holds keys (the working root, the tenant's),
  // and none of the person's.
  for (const std::string& data : {dir.Sub("a"), dir.Sub("b")}) {
    auto store = testing::OpenStoppedStore(data);
    const int cf = store->Cf("keystore");
    int rows = 0, persons = 0;
    auto it = store->NewIterator(cf, "dek/", eventstore::PrefixEnd("dek/"));
    for (it->Seek("dek/"); it->Valid(); it->Next()) {
      ++rows;
      if (std::string(it->key()).find(id) != std::string::npos) ++persons;
    }
    CHECK(rows > 0);
    CHECK(persons == 0);
  }
}

TEST_CASE("cluster fencing: a node paused past its session (a zombie) loses its partitions; woken, it answers "
          "503 or a success that is in the log, never a stale one") {
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  const std::set<uint32_t> all = {0, 1, 2, 3};
  auto flags = [&](const std::string& id) { return GroupFlags(broker, dir, id); };
  SvcServer a(dir.Sub("a"), flags("node-a"));
  a.Start();
  SvcServer b(dir.Sub("b"), flags("node-b"));
  b.Start();
  REQUIRE(Eventually([&] { return Shared(a, b); }));
  auto made = api::HttpCall(a.admin_target(), "POST", "/admin/tenants", Auth(a.data_dir()), R"({"name":"Acme"})");
  REQUIRE(made->status == 201);
  const std::string tenant = core::ParseJsonOrDiscarded(made->body)["id"];
  REQUIRE(CreateKey(a, tenant) == 201);
  const uint32_t p = eventstore::PartitionForTenant(tenant, 4);
  SvcServer& zombie = Owned(a).count(p) != 0 ? a : b;
  SvcServer& survivor = &zombie == &a ? b : a;

  // Paused (a stop-the-world pause, a frozen VM): no heartbeats, so the group gives its partitions
  // to the survivor, which fences the paused node's producers and decides from the log.
  REQUIRE(::kill(zombie.pid(), SIGSTOP) == 0);
  REQUIRE(Eventually([&] { return Owned(survivor) == all; }));
  CHECK(CreateKey(survivor, tenant) == 201);
  REQUIRE(::kill(zombie.pid(), SIGCONT) == 0);
  // Woken, it still believes it writes p for a moment. Whatever it answers now is 503 (fenced: not
  // decided) or a success the log holds; never a stale success.
  int succeeded = 0;
  for (int i = 0; i < 5; ++i) {
    const int status = CreateKey(zombie, tenant);
    CAPTURE(i);
    CHECK((status == 201 || status == 503));
    if (status == 201) ++succeeded;
  }
  MESSAGE("the woken node's answers: " << succeeded << " x 201, " << 5 - succeeded << " x 503");
  CHECK(Eventually([&] { return KeyCount(survivor, tenant) == static_cast<size_t>(2 + succeeded); }));
  // And it comes back as a member: the partitions are shared again, each written once.
  CHECK(Eventually([&] {
    auto oa = Owned(a), ob = Owned(b);
    std::set<uint32_t> both = oa;
    both.insert(ob.begin(), ob.end());
    return !oa.empty() && !ob.empty() && oa.size() + ob.size() == 4 && both == all;
  }));
  CHECK(CreateKey(zombie, tenant) == 201);
  CHECK(Eventually([&] { return KeyCount(survivor, tenant) == static_cast<size_t>(3 + succeeded); }));
}

namespace {

// POST with a JSON body and the tenant key; the answer.
api::HttpResponse Call(const SvcServer& s, const std::string& key, const std::string& method, const std::string& path,
                       const std::string& body = "", std::map<std::string, std::string> headers = {}) {
  headers["Authorization"] = "Bearer " + key;
  if (!body.empty() && headers.count("Content-Type") == 0) headers["Content-Type"] = "application/json";
  auto r = api::HttpCall(s.target(), method, path, headers, body);
  REQUIRE(r.ok());
  return *r;
}

// A sandbox session (policy testOutcome approved) with the four minimal captures, submitted
// through `s`. Returns its id.
std::string SubmitSandboxSession(const SvcServer& s, const std::string& key, const std::string& idempotency_key) {
  auto created = Call(s, key, "POST", "/v1/verification-sessions",
                      R"({"channel":"api","policy":{"testOutcome":"approved"}})", {{"Idempotency-Key", idempotency_key}});
  REQUIRE_MESSAGE(created.status == 201, created.body);
  const std::string id = core::ParseJsonOrDiscarded(created.body)["id"];
  const std::string base = "/v1/verification-sessions/" + id;
  REQUIRE(Call(s, key, "POST", base + "/consent", R"({"accepted":true})").status == 200);
  const std::string boundary = "svc-cluster-boundary-7MA4YWxk";
  const std::vector<std::array<std::string, 3>> captures = {{"document_front", "image/jpeg", testing::Jpeg(1280, 800)},
                                                            {"document_back", "image/jpeg", testing::Jpeg(1280, 801)},
                                                            {"selfie", "image/jpeg", testing::Jpeg(720, 960)},
                                                            {"liveness_video", "video/mp4", testing::Mp4()}};
  for (const auto& [kind, mime, bytes] : captures) {
    auto up = Call(s, key, "POST", base + "/media",
                   testing::Multipart(boundary, {{"kind", "", "", kind}, {"file", "capture.bin", mime, bytes}}),
                   {{"Content-Type", "multipart/form-data; boundary=" + boundary}});
    REQUIRE_MESSAGE(up.status == 201, up.body);
  }
  auto submitted = Call(s, key, "POST", base + "/submit");
  REQUIRE_MESSAGE(submitted.status == 200, submitted.body);
  return id;
}

// The session's progress stream, whole (it ends at the verdict): how many stage results each
// stage has, and how many verdicts.
std::pair<std::map<std::string, int>, int> StagesAndVerdicts(const SvcServer& s, const std::string& key,
                                                             const std::string& id) {
  auto r = Call(s, key, "GET", "/v1/verification-sessions/" + id + "/events");
  REQUIRE(r.status == 200);
  std::map<std::string, int> stages;
  int verdicts = 0;
  std::istringstream in(r.body);
  std::string event;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("event: ", 0) == 0) event = line.substr(7);
    if (line.rfind("data: ", 0) != 0) continue;
    if (event == "verification.stage_completed") ++stages[core::ParseJsonOrDiscarded(line.substr(6))["stage"]];
    for (const char* v : {"verification.approved", "verification.declined", "verification.review_required",
                          "verification.more_info_requested"}) {
      verdicts += event == v ? 1 : 0;
    }
  }
  return {stages, verdicts};
}

// A node's whole log, as a test message: what a failed wait on it leaves to read.
void DumpLog(const SvcServer& s, const std::string& name) {
  std::ifstream log(s.stderr_path());
  MESSAGE(name << "'s log:\n" << std::string(std::istreambuf_iterator<char>(log), {}));
}

std::set<uint32_t> JobPartitions(const SvcServer& s) {
  std::set<uint32_t> out;
  const core::Json node = Node(s);
  if (!node.contains("jobPartitions")) return out;
  for (const auto& p : node["jobPartitions"]["owned"]) out.insert(p.get<uint32_t>());
  return out;
}

}  // namespace

TEST_CASE("cluster workers: verification jobs go to the workers' group; a worker killed mid-job loses nothing, "
          "the next one resumes at the first stage without a result; two workers share the jobs by partition") {
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));  // captures in shared object storage: any worker reads them
  const std::vector<std::string> blobs = s3.ServerFlags(dir.Sub("aws-credentials"));
  auto flags = [&](const std::string& id, std::vector<std::string> more) {
    more.insert(more.end(), blobs.begin(), blobs.end());
    return GroupFlags(broker, dir, id, more);
  };
  constexpr uint32_t kJobPartitions = 16;  // the default --verification-job-partitions
  std::set<uint32_t> all_jobs;
  for (uint32_t p = 0; p < kJobPartitions; ++p) all_jobs.insert(p);
  // Node a answers the API, writes every partition and publishes the jobs; it runs none.
  SvcServer a(dir.Sub("a"), flags("node-a", {"--roles", "api,writer,projector,pipeline,webhooks,timers"}));
  a.Start();
  // Worker 1 stops its runs after the liveness stage (as if it died there).
  auto w1 = std::make_unique<SvcServer>(
      dir.Sub("w1"), flags("worker-1", {"--roles", "projector,worker", "--debug-pipeline-halt-after", "liveness"}));
  w1->Start();
  REQUIRE(Eventually([&] { return Owned(a).size() == 4 && JobPartitions(*w1) == all_jobs; }));
  core::Json w1_node = Node(*w1);
  CHECK(w1_node["roles"] == core::Json::array({"projector", "worker"}));
  CHECK(w1_node["jobs"] == core::Json::array({"verification"}));
  CHECK(w1_node["jobPartitions"]["topic"] == "svc.jobs");
  CHECK(w1_node["partitions"]["owned"] == core::Json::array());
  CHECK(Node(a)["jobPartitions"]["owned"] == core::Json::array());  // a publishes, takes none

  auto made = api::HttpCall(a.admin_target(), "POST", "/admin/tenants", Auth(a.data_dir()), R"({"name":"Acme"})");
  REQUIRE(made->status == 201);
  const std::string tenant = core::ParseJsonOrDiscarded(made->body)["id"];
  auto key_made = api::HttpCall(a.admin_target(), "POST", "/admin/tenants/" + tenant + "/keys", Auth(a.data_dir()),
                                R"({"environment":"test","scopes":["*"]})");
  REQUIRE_MESSAGE(key_made->status == 201, key_made->body);
  const std::string key = core::ParseJsonOrDiscarded(key_made->body)["secret"];

  const std::string first = SubmitSandboxSession(a, key, "worker-job-1");
  // Worker 1 ran the document and liveness stages (its own metric says so), then halted.
  REQUIRE(Eventually([&] { return Metric(*w1, "svc_pipeline_stages_total") == 2; }));
  CHECK(Call(a, key, "GET", "/v1/verification-sessions/" + first).body.find("\"processing\"") != std::string::npos);
  w1->Kill();

  // Worker 2 joins; once worker 1's session (the job's lease) runs out, the group gives it every
  // partition, and it runs the job again: the two recorded stages are not run again.
  const auto killed_at = std::chrono::steady_clock::now();
  SvcServer w2(dir.Sub("w2"), flags("worker-2", {"--roles", "projector,worker"}));
  w2.Start();
  const bool taken_over = Eventually([&] { return JobPartitions(w2) == all_jobs; });
  MESSAGE("worker 2 held every job partition " << std::chrono::duration_cast<std::chrono::milliseconds>(
                                                      std::chrono::steady_clock::now() - killed_at).count()
                                               << " ms after worker 1's kill");
  if (!taken_over) DumpLog(w2, "worker 2");
  REQUIRE(taken_over);
  const bool resumed = Eventually([&] {
    return core::ParseJsonOrDiscarded(Call(a, key, "GET", "/v1/verification-sessions/" + first).body)["status"] ==
           "approved";
  }, std::chrono::seconds(60));
  if (!resumed) {
    DumpLog(w2, "worker 2");
    DumpLog(a, "node a");
  }
  REQUIRE(resumed);
  CHECK(Metric(w2, "svc_pipeline_stages_total") == 4);  // face_match, deepfake, gov_curp, gov_ine
  CHECK(Metric(w2, "svc_pipeline_verdicts_total") == 1);
  auto [stages, verdicts] = StagesAndVerdicts(a, key, first);
  CHECK(stages == std::map<std::string, int>{{"document", 1}, {"liveness", 1}, {"face_match", 1},
                                             {"deepfake", 1}, {"gov_curp", 1}, {"gov_ine", 1}});
  CHECK(verdicts == 1);

  // Worker 1 comes back without the halt: the two workers share the jobs topic's partitions, and
  // each job runs on the worker that has its partition (the key: tenant/environment/session).
  w1 = std::make_unique<SvcServer>(dir.Sub("w1"), flags("worker-1", {"--roles", "projector,worker"}));
  w1->Start();
  const bool shared = Eventually([&] {
    auto j1 = JobPartitions(*w1), j2 = JobPartitions(w2);
    std::set<uint32_t> both = j1;
    both.insert(j2.begin(), j2.end());
    return !j1.empty() && !j2.empty() && j1.size() + j2.size() == kJobPartitions && both == all_jobs;
  });
  if (!shared) {
    DumpLog(*w1, "worker 1");
    DumpLog(w2, "worker 2");
  }
  REQUIRE(shared);
  const auto w1_jobs = JobPartitions(*w1);
  std::vector<std::string> sessions;
  int expect_w1 = 0;
  for (int i = 0; i < 12; ++i) {
    sessions.push_back(SubmitSandboxSession(a, key, "worker-job-spread-" + std::to_string(i)));
    expect_w1 += w1_jobs.count(eventstore::PartitionForTenant(tenant + "/test/" + sessions.back(), kJobPartitions));
  }
  for (const auto& id : sessions) {
    CAPTURE(id);
    CHECK(Eventually([&] {
      return core::ParseJsonOrDiscarded(Call(a, key, "GET", "/v1/verification-sessions/" + id).body)["status"] ==
             "approved";
    }, std::chrono::seconds(60)));
    auto [st, v] = StagesAndVerdicts(a, key, id);
    CHECK(st.size() == 6);
    for (const auto& [name, n] : st) CHECK(n == 1);
    CHECK(v == 1);
  }
  MESSAGE("worker 1 ran " << expect_w1 << " of 12 jobs by partition");
  CHECK(Metric(*w1, "svc_pipeline_verdicts_total") == expect_w1);
  CHECK(Metric(w2, "svc_pipeline_verdicts_total") == 1 + (12 - expect_w1));

  // A clean stop gives worker 2's partitions back at once (no lease to wait out).
  w2.Stop();
  const bool handed = Eventually([&] { return JobPartitions(*w1) == all_jobs; }, std::chrono::seconds(10));
  if (!handed) DumpLog(*w1, "worker 1");
  REQUIRE(handed);
  const std::string last = SubmitSandboxSession(a, key, "worker-job-last");
  CHECK(Eventually([&] {
    return core::ParseJsonOrDiscarded(Call(a, key, "GET", "/v1/verification-sessions/" + last).body)["status"] ==
           "approved";
  }));
  w1->Stop();
  a.Stop();
}

TEST_CASE("cluster reads: a capture sent to one node right after the consent was recorded through another is "
          "admitted (a refusal read from a read model waits for the log, as a miss does)") {
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  SvcServer a(dir.Sub("a"), GroupFlags(broker, dir, "node-a"));
  a.Start();
  SvcServer b(dir.Sub("b"), GroupFlags(broker, dir, "node-b"));
  // b's read models trail the log by 300 ms a batch, as a loaded node's do.
  b.SetEnv({{"SVC_DEBUG_PROJECTION_LAG_MS", "300"}});
  b.Start();
  REQUIRE(Eventually([&] { return Shared(a, b); }));
  auto made = api::HttpCall(a.admin_target(), "POST", "/admin/tenants", Auth(a.data_dir()), R"({"name":"Acme"})");
  REQUIRE(made->status == 201);
  const std::string tenant = core::ParseJsonOrDiscarded(made->body)["id"];
  auto key_made = api::HttpCall(a.admin_target(), "POST", "/admin/tenants/" + tenant + "/keys", Auth(a.data_dir()),
                                R"({"scopes":["verification:read","verification:write"]})");
  REQUIRE_MESSAGE(key_made->status == 201, key_made->body);
  const std::string key = core::ParseJsonOrDiscarded(key_made->body)["secret"];
  const std::string boundary = "svc-cluster-boundary-Qx81";
  const std::string capture =
      testing::Multipart(boundary, {{"kind", "", "", "document_front"}, {"file", "front.jpg", "image/jpeg", testing::Jpeg(1280, 800)}});
  // An API key made a moment ago is known to a node once its read models have it (an unknown key
  // is refused at once: a miss there does not ask the log, or every bad key would).
  REQUIRE(Eventually([&] { return Call(b, key, "GET", "/v1/verification-sessions?limit=1").status == 200; }));
  // Each round: the session made and its consent recorded through a, the capture sent to b at
  // once. b's read models may not hold the consent yet; its answer must not be CONSENT_REQUIRED.
  for (int round = 0; round < 5; ++round) {
    CAPTURE(round);
    auto created = Call(a, key, "POST", "/v1/verification-sessions", R"({"channel":"api"})",
                        {{"Idempotency-Key", "reads-" + std::to_string(round)}});
    REQUIRE_MESSAGE(created.status == 201, created.body);
    const std::string base = "/v1/verification-sessions/" + std::string(core::ParseJsonOrDiscarded(created.body)["id"]);
    REQUIRE(Call(a, key, "POST", base + "/consent", R"({"accepted":true})").status == 200);
    auto up = Call(b, key, "POST", base + "/media", capture, {{"Content-Type", "multipart/form-data; boundary=" + boundary}});
    CHECK_MESSAGE(up.status == 201, up.body);
  }
}

// Issue 67: a writer unit that halts (its transaction failed and could not be aborted: what a
// broker that keeps refusing leaves) kept its partition, and that partition's tenants got 503 on
// every node until someone restarted the node. The node now stops by itself, saying why, and its
// graceful stop leaves the writers' group: the other node takes the partition at once and writes.
TEST_CASE("cluster halts: a node whose partition halts after a log failure stops, and another takes its partitions") {
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  const std::set<uint32_t> all = {0, 1, 2, 3};
  // No periodic writer (the audit checkpoint): the broker's injected errors reach the owner's
  // next transaction, not another node's.
  const std::vector<std::string> quiet = {"--audit-checkpoint-interval-seconds", "3600"};
  SvcServer a(dir.Sub("a"), GroupFlags(broker, dir, "node-a", quiet));
  a.Start();
  SvcServer b(dir.Sub("b"), GroupFlags(broker, dir, "node-b", quiet));
  b.Start();
  REQUIRE(Eventually([&] { return Shared(a, b); }));
  // Each node's verification-jobs consumer has had its first assignment too: librdkafka 2.0.2
  // (Debian's) aborts when a cooperative-sticky consumer is destroyed before it
  // (confluentinc/librdkafka#4312, fixed in 2.3.0), and the halted node stops right after this.
  REQUIRE(Eventually([&] {
    return !Node(a)["jobPartitions"]["owned"].empty() && !Node(b)["jobPartitions"]["owned"].empty();
  }));
  auto created = api::HttpCall(a.admin_target(), "POST", "/admin/tenants", Auth(a.data_dir()), R"({"name":"Acme"})");
  REQUIRE(created->status == 201);
  const std::string tenant = core::ParseJsonOrDiscarded(created->body)["id"];
  const uint32_t p = eventstore::PartitionForTenant(tenant, 4);
  SvcServer& owner = Owned(a).count(p) != 0 ? a : b;
  SvcServer& other = &owner == &a ? b : a;
  REQUIRE(CreateKey(owner, tenant) == 201);

  // The owner's next commit fails, and so does the abort after it: its unit halts.
  REQUIRE(broker.Control("endtxn-errors 2 INVALID_REQUEST") == "ok");
  CHECK(CreateKey(owner, tenant) == 503);
  CHECK(owner.WaitExit() == 3);
  std::ifstream err(owner.stderr_path());
  const std::string log((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  CHECK(log.find("a partition this node writes halted after an event-log failure") != std::string::npos);
  REQUIRE(Eventually([&] { return Owned(other) == all; }));
  CHECK(CreateKey(other, tenant) == 201);
  CHECK(KeyCount(other, tenant) >= 2);
}

TEST_CASE("cluster clocks: a writer whose wall clock is 30 s ahead decides the commands another node sends it, on "
          "its own time (issue 67)") {
  // Before: a forwarded command carried its asker's deadline in the asker's clock, so a writer
  // whose clock ran ahead by more than the wait dropped every command sent to it (503 on every
  // node but the writer's). Now the wait is counted on the writer's clock, and the decision is
  // stamped with the writer's time.
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  const std::set<uint32_t> all = {0, 1, 2, 3};
  SvcServer ahead(dir.Sub("ahead"), GroupFlags(broker, dir, "node-ahead", {"--debug-clock-offset-seconds", "30"}));
  ahead.Start();
  REQUIRE(Eventually([&] { return Owned(ahead) == all; }));
  auto created = api::HttpCall(ahead.admin_target(), "POST", "/admin/tenants", Auth(ahead.data_dir()),
                               R"({"name":"Acme"})");
  REQUIRE(created->status == 201);
  const std::string tenant = core::ParseJsonOrDiscarded(created->body)["id"];
  // A node that writes nothing: every command it takes travels to the writer ahead of it.
  SvcServer asker(dir.Sub("asker"), GroupFlags(broker, dir, "node-asker", {"--roles", "api,projector"}));
  asker.Start();
  const int64_t before = core::SystemClock().Now().seconds();
  CHECK(CreateKey(asker, tenant) == 201);
  CHECK(CreateKey(asker, tenant) == 201);
  CHECK(KeyCount(asker, tenant) == 2);
  auto keys = api::HttpCall(asker.admin_target(), "GET", "/admin/tenants/" + tenant + "/keys", Auth(asker.data_dir()));
  REQUIRE(keys->status == 200);
  const core::Json listed = core::ParseJsonOrDiscarded(keys->body);
  for (const auto& k : listed["data"]) {
    auto at = core::ParseRfc3339(k.value("createdAt", ""));
    REQUIRE(at.ok());
    CHECK(at->seconds() >= before + 25);  // the writer's time, not the asker's
  }
  CHECK(Metric(asker, "svc_cluster_command_timeouts_total") <= 0);
}

}  // namespace integration_cluster_test
