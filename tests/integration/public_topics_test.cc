// The public event topics (docs/events.md) read the way an analyst reads them: the example
// consumer (tests/events/consumer.mjs: kafkajs, Ajv against each record's ce_dataschema,
// de-duplication on ce_id) reads every area's topic after a mixed workload with a kill -9 of the
// publishing node in the middle, and its counts equal what the REST API lists; no record is
// invalid, repeated or out of order within its subject; no personal value written through the
// API, nor its SHA-256, is in any public record, nor any person id: a person is their pseudonym,
// the same in all their records, erasure events included, and the pseudonym's key is gone once a
// forgotten person's last record is published. On both log backends: the embedded one publishes
// to the Kafka cluster it is given.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <sstream>

#include "core/crypto.h"
#include "core/json.h"
#include "pipeline/events/pseudonyms.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"
#include "tests/support/dev_broker_process.h"
#include "tests/support/stopped_data_dir.h"

namespace integration_public_topics_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

const std::vector<std::string> kPersonal = {"Quetzalpublico", "publico.zx81@example.mx", "ZAQC660707HDFNRN05",
                                            "5587654329", "a reason that names Quetzalpublico"};

// Every page of a list: how many items it has in all.
size_t CountAll(Env& env, const std::string& key, const std::string& path) {
  size_t n = 0;
  std::string cursor;
  for (;;) {
    auto r = env.Call(key, "GET", path + "?limit=100" + (cursor.empty() ? "" : "&startingAfter=" + cursor));
    REQUIRE_MESSAGE(r.status == 200, r.body);
    core::Json b = Body(r);
    n += b["data"].size();
    if (!b.value("hasMore", false)) return n;
    cursor = b["nextCursor"];
  }
}

core::Json Consume(const std::string& brokers, const std::string& asyncapi, const std::string& env,
                   bool state = false) {
  std::vector<std::string> args = {"node", std::string(SVC_TEST_SOURCE_DIR) + "/events/consumer.mjs", "--brokers", brokers,
                                   "--asyncapi", asyncapi, "--env", env, "--idle-ms", "4000"};
  if (state) args.insert(args.end(), {"--state", "1"});
  testing::ChildProcess consumer(args);
  core::Json got = core::ParseJsonOrDiscarded(consumer.ReadLine());
  REQUIRE_MESSAGE(got.is_object(), "the consumer printed nothing");
  return got;
}

}  // namespace

TEST_CASE("public topics: an analyst's consumer counts what the API lists, exactly once, across a kill -9") {
  BOTH_BACKENDS;
  // The embedded log publishes to a Kafka cluster of its own; the Kafka log to its brokers.
  std::unique_ptr<testing::DevBrokerProcess> own_broker;
  std::vector<std::string> flags = {"--public-topics"};
  if (!kafka) {
    own_broker = std::make_unique<testing::DevBrokerProcess>();
    flags.insert(flags.end(), {"--public-topics-brokers", own_broker->bootstraps()});
  }
  Env env(kafka, flags, Sharing::kIsolated);
  const std::string brokers = kafka ? env.broker->bootstraps() : own_broker->bootstraps();
  const std::string k = env.test_key;
  int made = 0;
  auto sessions = [&](const std::string& key, int n) {
    for (int i = 0; i < n; ++i) {
      auto r = env.Create(key, "pt-" + std::to_string(made++));
      REQUIRE_MESSAGE(r.status == 201, r.body);
    }
  };
  auto person = [&](const std::string& ref) {
    core::Json pii = {{"givenName", "Quetzalpublico"}, {"phone", "5587654329"}};
    if (ref == "pt-person-1") {
      pii["email"] = "publico.zx81@example.mx";
      pii["curp"] = "ZAQC660707HDFNRN05";
    }
    auto r = env.Call(k, "POST", "/v1/persons", core::Json{{"externalRef", ref}, {"pii", pii}}.dump(),
                      {{"Idempotency-Key", ref}});
    REQUIRE_MESSAGE(r.status == 201, r.body);
    return Body(r)["id"].get<std::string>();
  };
  sessions(k, 6);
  sessions(env.live_key, 2);
  const std::string p1 = person("pt-person-1");
  auto dec = env.Call(k, "POST", "/v1/persons/" + p1 + "/decrypt",
                      core::Json{{"fields", {"email"}}, {"purpose", "identity_verification"},
                                 {"reason", "a reason that names Quetzalpublico"}}
                          .dump());
  REQUIRE_MESSAGE(dec.status == 200, dec.body);

  // The node dies with whatever batch it was publishing; it starts again and resumes from what
  // Kafka committed.
  env.server->Kill();
  env.server->Start();
  sessions(k, 5);
  person("pt-person-2");
  person("pt-person-3");
  // A person forgotten (purged, keys destroyed) while the publisher runs.
  const std::string gone = person("pt-person-gone");
  auto forget = env.Call(k, "POST", "/v1/persons/" + gone + "/forget", core::Json{{"mode", "purge"}}.dump());
  REQUIRE_MESSAGE(forget.status == 200, forget.body);
  // The purger runs by itself; told to run now, it finishes what is due (or finds it done).
  auto purged = env.Admin("POST", "/admin/persons/purge");
  REQUIRE_MESSAGE(purged.status == 200, purged.body);
  auto certificate = env.Call(k, "GET", "/v1/persons/" + gone + "/deletion-certificate");
  REQUIRE_MESSAGE(certificate.status == 200, certificate.body);
  auto caught = env.Admin("POST", "/admin/public-topics/wait-caught-up");
  REQUIRE_MESSAGE(caught.status == 200, caught.body);

  const std::string asyncapi = "http://127.0.0.1:" + std::to_string(env.server->port()) + "/v1/asyncapi.json";
  core::Json test = Consume(brokers, asyncapi, "test");
  INFO(test.dump());
  CHECK(test["error"].is_null());
  // On Kafka, read_committed never shows a batch the killed publisher left uncommitted. The dev
  // broker (librdkafka's mock cluster) answers every fetch with no aborted transaction, so there
  // the batch open at the kill can show beside its republished copy: the consumer keeps the first
  // copy of a ce_id (the documented rule), and every second copy must be the same event.
  MESSAGE("copies dropped by ce_id: " << test["duplicates"]);
  CHECK(test["duplicatesDiffering"] == 0);
  CHECK(test["invalid"].empty());
  CHECK(test["outOfOrder"] == 0);
  CHECK(test["counts"]["verification.session_created"] == CountAll(env, k, "/v1/verification-sessions"));
  CHECK(test["counts"]["verification.session_created"] == 11);
  // The purged person is still listed (as purged, without values), like their creation.
  CHECK(test["counts"]["persons.person_created"] == CountAll(env, k, "/v1/persons"));
  CHECK(test["counts"]["persons.person_purged"] == 1);
  CHECK(test["counts"]["persons.keys_destroyed"] == 1);
  CHECK(test["counts"]["persons.pii_accessed"] == 1);
  CHECK(test["counts"]["tenancy.tenant_created"] == 1);  // a tenant-level fact, on both environments' topics
  CHECK_FALSE(test["counts"].contains("claims.claim_taken"));  // internal: never published

  // The state topics: what a new consumer knows without the history. The forgotten person is a
  // tombstone; every other session and person is there, in its latest state.
  core::Json states = Consume(brokers, asyncapi, "test", /*state=*/true);
  INFO(states.dump());
  CHECK(states["error"].is_null());
  CHECK(states["invalid"].empty());
  CHECK(states["states"]["verification_session.state"] == 11);
  CHECK(states["statuses"]["verification_session.state"]["pending"] == 11);
  CHECK(states["states"]["person.state"] == 3);
  CHECK(states["tombstoned"].size() == 1);

  core::Json live = Consume(brokers, asyncapi, "live");
  INFO(live.dump());
  CHECK(live["duplicatesDiffering"] == 0);
  CHECK(live["invalid"].empty());
  CHECK(live["counts"]["verification.session_created"] == CountAll(env, env.live_key, "/v1/verification-sessions"));
  CHECK(live["counts"]["verification.session_created"] == 2);
  CHECK_FALSE(live["counts"].contains("persons.person_created"));  // test and live never share a topic

  // Every record of every public topic, committed or not: keys, headers and values.
  auto listed = testing::RunProgram("kcat", {"-b", brokers, "-L", "-J"});
  REQUIRE_MESSAGE(listed.exit_code == 0, listed.err);
  std::string all;
  size_t topics = 0;
  const core::Json metadata = core::ParseJsonOrDiscarded(listed.out);
  for (const auto& t : metadata["topics"]) {
    const std::string name = t["topic"];
    if (name.rfind("svc.test.", 0) != 0 && name.rfind("svc.live.", 0) != 0) continue;
    ++topics;
    auto consumed = testing::RunProgram("kcat", {"-b", brokers, "-C", "-t", name, "-o", "beginning", "-e", "-q", "-f",
                                                 "%k|%h|%s\\n"});
    REQUIRE_MESSAGE(consumed.exit_code == 0, consumed.err);
    all += consumed.out;
  }
  CHECK(topics == 20);  // six areas and four state topics, two environments
  CHECK(all.find("persons.person_created") != std::string::npos);
  for (const auto& value : kPersonal) {
    CHECK_MESSAGE(all.find(value) == std::string::npos, value);
    CHECK_MESSAGE(all.find(core::Sha256Hex(value)) == std::string::npos, "SHA-256 of " << value);
  }
  // No person id anywhere; the forgotten person is one pseudonym from creation to erasure.
  std::smatch found;
  CHECK_MESSAGE(!std::regex_search(all, found, std::regex("per_[0-9a-f]{32}")), found.str());
  std::map<std::string, std::set<std::string>> keys_of;  // event type -> record keys
  std::istringstream lines(all);
  for (std::string line; std::getline(lines, line);) {
    const size_t bar = line.find('|');
    const size_t type = line.find("ce_type=");
    if (bar == std::string::npos || type == std::string::npos) continue;
    keys_of[line.substr(type + 8, line.find_first_of(",|", type) - type - 8)].insert(line.substr(0, bar));
  }
  REQUIRE(keys_of["persons.keys_destroyed"].size() == 1);
  const std::string psn = *keys_of["persons.keys_destroyed"].begin();
  CHECK(psn.rfind("psn_", 0) == 0);
  CHECK(psn != "psn_erased");
  CHECK(keys_of["persons.forget_requested"] == std::set<std::string>{psn});
  CHECK(keys_of["persons.person_created"].contains(psn));
  CHECK(keys_of["persons.person_created"].size() == 4);  // four persons, four pseudonyms
  CHECK(states["tombstoned"][0] == psn);

  // The forgotten person's pseudonym key is gone from the node's key store; a living person's is there.
  const std::string data = env.server->data_dir();
  env.server->Stop();
  auto store = testing::OpenStoppedStore(data);
  const int cf = store->Cf("keystore");
  auto row = [&](const std::string& who) {
    auto r = store->Get(cf, "dek/" + pipeline::events::PersonPseudonyms::KeyName(env.tenant, "test", who));
    REQUIRE(r.ok());
    return r->has_value();
  };
  CHECK_FALSE(row(gone));
  CHECK(row(p1));
}

}  // namespace integration_public_topics_test
