// The plaintext canary: distinctive personal data written through every person route must not
// appear anywhere the service keeps or emits data — the data directory (RocksDB read back through
// RocksDB, so LZ4-compressed blocks are searched decompressed, and every file's raw bytes: the
// WAL, sealed media, key files), the server's logs (at debug level), /metrics, every record of the
// public event topics (both backends) and, on the Kafka backend, every record of the source topic
// (keys, headers, values). Only the reveal answers carry them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/http/runtime.h"
#include "core/crypto.h"
#include "eventstore/kv_store.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"
#include "tests/support/dev_broker_process.h"

namespace integration_persons_canary_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

// Values no other test writes, each searched for in its stored (normalised) form and as sent.
const std::vector<std::string> kCanaries = {
    "Quetzalcanario",          // in the names, as sent
    "quetzalcanario",          // lower case: the folded name tokens
    "canario.zx81@example.mx", // e-mail
    "+525587654321",           // phone, normalised
    "87654321",                // the phone's tail, as sent ("55 8765 4321")
    "Callejón Canario 4417",   // address
    "CNRDOC77310",             // document number
    "CNRCLV8801QZ",            // elector key
    "ZAQC660707HDFNRN05",      // CURP (check digit valid)
    "ZAQC660707QX5",           // RFC
    "canary-metadata-7731",    // the integrator's metadata
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The SHA-256 (hex) of each canary and of each request body sent (and of the request as the
// unkeyed fingerprint once hashed it: method, path, body): an unkeyed hash of personal data gives
// it back to anyone who tries the candidates, so none may be kept either.
std::vector<std::string>& Hashes() {
  static std::vector<std::string> hashes = [] {
    std::vector<std::string> h;
    for (const auto& c : kCanaries) h.push_back(core::Sha256Hex(c));
    return h;
  }();
  return hashes;
}

// Which canaries (or hashes of them) `haystack` holds.
std::vector<std::string> Found(const std::string& haystack) {
  std::vector<std::string> out;
  for (const auto& c : kCanaries) {
    if (haystack.find(c) != std::string::npos) out.push_back(c);
  }
  for (const auto& h : Hashes()) {
    if (haystack.find(h) != std::string::npos) out.push_back("sha256:" + h);
  }
  return out;
}

}  // namespace

TEST_CASE("persons: no plaintext canary in the data directory, logs, metrics or the Kafka topic") {
  BOTH_BACKENDS;
  // The public event topics too (docs/events.md): on the embedded log, published to a cluster of
  // the test's own.
  std::unique_ptr<testing::DevBrokerProcess> public_broker;
  std::vector<std::string> flags = {"--log-level", "debug", "--rate-reveals", "0", "--public-topics"};
  if (!kafka) {
    public_broker = std::make_unique<testing::DevBrokerProcess>();
    flags.insert(flags.end(), {"--public-topics-brokers", public_broker->bootstraps()});
  }
  Env env(kafka, flags, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto call = [&](const std::string& method, const std::string& path, const core::Json& body,
                  std::map<std::string, std::string> headers = {}) {
    const std::string text = body.is_null() ? "" : body.dump();
    if (!text.empty()) {
      Hashes().push_back(core::Sha256Hex(text));
      Hashes().push_back(core::Sha256Hex(method + "\n" + path + "\n" + text));
    }
    auto r = env.Call(k, method, path, text, std::move(headers));
    CHECK_MESSAGE(r.status < 300, method << " " << path << ": " << r.body);
    return r;
  };
  auto made = call("POST", "/v1/persons",
                   {{"externalRef", "canary-user-1"},
                    {"metadata", {{"note", "canary-metadata-7731"}}},
                    {"pii", {{"fullName", "Quetzalcanario Zacarías Núñez"},
                             {"givenName", "Quetzalcanario"},
                             {"email", "Canario.ZX81@example.mx"},
                             {"phone", "55 8765 4321"},
                             {"address", "Callejón Canario 4417"},
                             {"documentNumber", "CNRDOC77310"},
                             {"claveElector", "CNRCLV8801QZ"},
                             {"curp", "ZAQC660707HDFNRN05"}}}},
                   {{"Idempotency-Key", "canary-1"}});
  CHECK(Found(made.body).empty());
  std::string id = Body(made)["id"];
  const std::string base = "/v1/persons/" + id;
  CHECK(Found(call("PATCH", base, {{"pii", {{"rfc", "ZAQC660707QX5"}}}}).body).empty());
  CHECK(Found(call("POST", "/v1/persons", {{"externalRef", "canary-user-1"}, {"pii", {{"sex", "M"}}}}).body).empty());
  // The masked read shows the integrator's metadata (theirs, not one of the vault's fields).
  CHECK(Found(call("GET", base, nullptr).body) == std::vector<std::string>{"canary-metadata-7731"});
  CHECK(Found(call("GET", "/v1/persons", nullptr).body).empty());
  CHECK(Found(call("GET", base + "/fields", nullptr).body).empty());
  CHECK(Found(call("GET", base + "/duplicates", nullptr).body).empty());
  for (auto [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"name", "quetzalcanario"}, {"email", "canario.zx81@example.mx"}, {"phone", "5587654321"},
           {"curp", "ZAQC660707HDFNRN05"}, {"rfc", "ZAQC660707QX5"}}) {
    auto r = call("POST", "/v1/persons/search", {{"field", field}, {"value", value}});
    CHECK(Body(r)["data"].size() == 1);
    CHECK(Found(r.body).empty());
  }
  // Every reveal carries them (that is its purpose) and leaves nothing behind.
  const core::Json why = {{"purpose", "identity_verification"}, {"reason", "canary"}};
  auto dec = call("POST", base + "/decrypt", {{"fields", {"fullName", "email", "curp"}}, {"purpose", "identity_verification"},
                                              {"reason", "call from Quetzalcanario"}});
  CHECK(Found(dec.body).size() >= 3);
  // The reveal's reason is the caller's words: served opened in the access log, sealed elsewhere.
  CHECK(Found(call("GET", "/v1/audit-logs?personId=" + id, nullptr).body) == std::vector<std::string>{"Quetzalcanario"});
  CHECK(!Found(call("POST", "/v1/persons/batch-decrypt",
                    {{"personIds", {id}}, {"fields", {"phone"}}, {"purpose", "identity_verification"}, {"reason", "canary"}}).body).empty());
  CHECK(!Found(call("GET", base + "?expand=pii", nullptr, {{"Service-Reason", "canary"}}).body).empty());
  CHECK(!Found(call("POST", base + "/export", {{"reason", "canary"}}).body).empty());
  // A client token's and a bulk export's reasons are the caller's words too: the token's sealed
  // under the person's key, the export's under the service's (the export job serves it opened).
  auto issued = call("POST", base + "/client-token", {{"fields", {"address"}}, {"reason", "token for Quetzalcanario"}});
  CHECK(Found(issued.body).empty());
  auto spent = env.Call(Body(issued)["token"], "POST", base + "/decrypt", "");
  CHECK(Found(spent.body) == std::vector<std::string>{"Callejón Canario 4417"});
  const std::string secret_file = std::filesystem::temp_directory_path() / ("canary-export-" + id + ".secret");
  auto keygen = testing::RunSvc({"export-bulk", "keygen", "--secret-key-file", secret_file});
  REQUIRE_MESSAGE(keygen.exit_code == 0, keygen.err);
  std::filesystem::remove(secret_file);
  REQUIRE(env.Admin("POST", "/admin/tenants/" + env.tenant + "/export-key",
                    {{"publicKey", core::ParseJsonOrDiscarded(keygen.out)["publicKey"]}}).status == 200);
  auto job = call("POST", "/v1/persons/export-bulk",
                  {{"personIds", {id}}, {"purpose", "identity_verification"}, {"reason", "bulk export for Quetzalcanario"}});
  REQUIRE_MESSAGE(job.status == 202, job.body);
  CHECK(Body(job)["reason"] == "bulk export for Quetzalcanario");
  REQUIRE(env.Admin("POST", "/admin/persons/wait-idle").status == 200);
  auto done = env.Call(k, "GET", "/v1/persons/export-bulk/" + Body(job)["id"].get<std::string>());
  CHECK(Body(done)["status"] == "ready");
  CHECK(Body(done)["reason"] == "bulk export for Quetzalcanario");
  CHECK(Found(call("POST", base + "/integrity",
                   {{"fields", {{"curp", std::string(64, 'a')}}}, {"signingKey", "c2VjcmV0LXNpZ25pbmcta2V5LTE2"}}).body).empty());

  // The words a caller writes about the person (a legal hold's reason and legal basis, an
  // opposition's reason) are their data too: served opened, kept sealed under their key.
  auto hold = call("POST", base + "/legal-hold",
                   {{"reason", "Callejón Canario 4417 inquiry"}, {"legalBasis", "oficio CNRDOC77310"}});
  CHECK(Found(hold.body) == std::vector<std::string>{"Callejón Canario 4417", "CNRDOC77310"});
  CHECK(Found(call("GET", base + "/legal-holds", nullptr).body).size() == 2);
  CHECK(Found(call("POST", base + "/legal-hold/release", {{"reason", "released for Quetzalcanario"}}).body) ==
        std::vector<std::string>{"Quetzalcanario"});
  auto opposed = call("POST", base + "/oppositions", {{"purpose", "credit_assessment"}, {"reason", "Quetzalcanario objects"}});
  CHECK(Found(opposed.body) == std::vector<std::string>{"Quetzalcanario"});
  CHECK(Found(call("GET", base + "/oppositions", nullptr).body) == std::vector<std::string>{"Quetzalcanario"});

  auto metrics = env.Call("", "GET", "/metrics");
  CHECK(metrics.status == 200);
  CHECK(Found(metrics.body).empty());

  // Every public topic and the publisher's resume points: keys, headers and values.
  REQUIRE(env.Admin("POST", "/admin/public-topics/wait-caught-up").status == 200);
  const std::string public_brokers = kafka ? env.broker->bootstraps() : public_broker->bootstraps();
  std::string published;
  for (const std::string environment : {"test", "live"}) {
    for (const char* area : {"verification", "persons", "review", "kyb", "tenancy", "compliance"}) {
      auto consumed = testing::RunProgram("kcat", {"-b", public_brokers, "-C", "-t", "svc." + environment + "." + area,
                                                   "-o", "beginning", "-e", "-q", "-f", "%k|%h|%s\n"});
      REQUIRE_MESSAGE(consumed.exit_code == 0, consumed.err);
      published += consumed.out;
    }
  }
  CHECK(published.find("persons.person_created") != std::string::npos);
  CHECK(published.find("persons.pii_accessed") != std::string::npos);
  CHECK_MESSAGE(Found(published).empty(), "in the public topics");

  std::string topic;
  if (kafka) {
    auto consumed = testing::RunProgram("kcat", {"-b", env.broker->bootstraps(), "-C", "-t", "svc.events", "-o",
                                                 "beginning", "-e", "-q", "-f", "%k|%h|%s\\n"});
    REQUIRE_MESSAGE(consumed.exit_code == 0, consumed.err);
    topic = consumed.out;
    CHECK(topic.find("persons.person_created") != std::string::npos);
    CHECK(topic.find("persons.pii_accessed") != std::string::npos);
    CHECK_MESSAGE(Found(topic).empty(), "in the Kafka topic");
  }

  env.server->Stop();
  std::string logs = env.server->stdout_text() + Slurp(env.server->stderr_path());
  CHECK(logs.find("/v1/persons") != std::string::npos);  // the requests were logged
  CHECK_MESSAGE(Found(logs).empty(), "in the logs");

  // Every file's raw bytes.
  const std::string data = env.server->data_dir();
  size_t files = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(data)) {
    if (!f.is_regular_file()) continue;
    ++files;
    auto found = Found(Slurp(f.path().string()));
    CHECK_MESSAGE(found.empty(), f.path().string() << " holds " << found.front());
  }
  CHECK(files > 5);
  // RocksDB through RocksDB: every key and value of every column family, decompressed.
  eventstore::KvStore::Options so;
  so.path = data + "/db";
  so.column_families = api::StoreColumnFamilies();
  so.read_only = true;
  auto store = eventstore::KvStore::Open(so);
  REQUIRE_MESSAGE(store.ok(), store.status().ToString());
  size_t rows = 0;
  bool saw_sealed = false, saw_external_ref = false;
  for (const auto& cf_name : so.column_families) {
    int cf = (*store)->Cf(cf_name);
    auto it = (*store)->NewIterator(cf);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ++rows;
      std::string kv = std::string(it->key()) + "\n" + std::string(it->value());
      saw_sealed |= kv.find("persons.person_created") != std::string::npos;
      // A control: externalRef is stored in clear by design, so the scan must find it.
      saw_external_ref |= kv.find("canary-user-1") != std::string::npos;
      auto found = Found(kv);
      CHECK_MESSAGE(found.empty(), cf_name << " row " << std::string(it->key()) << " holds " << found.front());
    }
  }
  CHECK(rows > 40);
  CHECK(saw_external_ref);
  if (!kafka) CHECK(saw_sealed);  // the embedded log's person events were there to search
}

}  // namespace integration_persons_canary_test
