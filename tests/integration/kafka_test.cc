// `svc serve` on the Kafka backend, against `svc dev-broker`: the same behaviour as on the
// embedded log, a client nobody here wrote (kcat) reading our topic, and kill -9 recovery.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "api/http/http_client.h"
#include "core/json.h"
#include "tests/support/child_process.h"
#include "tests/support/dev_broker_process.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace integration_kafka_test {

using namespace svc;
using svc::testing::RunProgram;
using svc::testing::RunSvc;
using svc::testing::SvcServer;

namespace {
std::vector<std::string> KafkaFlags(const testing::DevBrokerProcess& broker) {
  return {"--log-backend", "kafka", "--kafka-brokers", broker.bootstraps()};
}
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty()) out.push_back(l);
  }
  return out;
}
}  // namespace

TEST_CASE("kafka backend: serve, admin, and kcat reads CloudEvents headers and the envelope") {
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  std::string data = dir.Sub("data");
  SvcServer server(data, KafkaFlags(broker));
  server.Start();
  auto created = RunSvc({"admin", "tenant", "create", "--name", "Acme", "--data-dir", data});
  REQUIRE_MESSAGE(created.exit_code == 0, created.err);
  std::string tenant = core::ParseJsonOrDiscarded(created.out)["id"];
  auto key = RunSvc({"admin", "key", "create", "--tenant", tenant, "--data-dir", data});
  REQUIRE_MESSAGE(key.exit_code == 0, key.err);
  std::string secret = core::ParseJsonOrDiscarded(key.out)["secret"];
  auto list = RunSvc({"admin", "key", "list", "--tenant", tenant, "--data-dir", data});
  CHECK(core::ParseJsonOrDiscarded(list.out)["data"].size() == 1);  // read-your-writes
  auto ready = api::HttpCall(server.target(), "GET", "/readyz");
  CHECK(ready->status == 200);

  // Interop: kcat, which nobody here wrote, reads the topic.
  auto meta = RunProgram("kcat", {"-b", broker.bootstraps(), "-L"});
  REQUIRE_MESSAGE(meta.exit_code == 0, meta.err);
  CHECK(meta.out.find("topic \"svc.events\" with 4 partitions") != std::string::npos);
  auto consumed = RunProgram("kcat", {"-b", broker.bootstraps(), "-C", "-t", "svc.events", "-o",
                                      "beginning", "-e", "-q", "-f", "%k|%h|%s\\n"});
  REQUIRE_MESSAGE(consumed.exit_code == 0, consumed.err);
  auto lines = Lines(consumed.out);
  // 4 writer fences (one per partition, written when the writer opened) + 3 domain events.
  REQUIRE(lines.size() == 7);
  std::set<std::string> types;
  int fences = 0;
  for (const auto& line : lines) {
    auto a = line.find('|'), b = line.find('|', a + 1);
    std::string k = line.substr(0, a), headers = line.substr(a + 1, b - a - 1), value = line.substr(b + 1);
    CHECK(headers.find("ce_specversion=1.0") != std::string::npos);
    if (headers.find("ce_type=svc.writer_fence") != std::string::npos) {
      ++fences;
      CHECK(headers.find("ce_svcepoch=1") != std::string::npos);
      continue;
    }
    CHECK(k == tenant);  // partition key = tenant id
    CHECK(headers.find("content-type=application/json") != std::string::npos);
    CHECK(headers.find("ce_source=/svc/tenants/" + tenant) != std::string::npos);
    core::Json env = core::ParseJsonOrDiscarded(value);
    REQUIRE(env.is_object());
    CHECK(headers.find("ce_id=" + env["id"].get<std::string>()) != std::string::npos);
    CHECK(headers.find("ce_type=" + env["type"].get<std::string>()) != std::string::npos);
    CHECK(env["tenantId"] == tenant);
    types.insert(env["type"].get<std::string>());
  }
  CHECK(fences == 4);
  CHECK(types == std::set<std::string>{"tenancy.tenant_created", "tenancy.application_created",
                                       "tenancy.api_key_created"});
  // No secret in any record: the key travels only as a keyed hash.
  CHECK(consumed.out.find(secret) == std::string::npos);

  // kafkajs, as a downstream consumer written from the docs: control records are told apart by
  // their CloudEvents type alone (`svc.*`), everything else is a domain event with its envelope.
  testing::ChildProcess kafkajs({"node", std::string(SVC_TEST_SOURCE_DIR) + "/clients/kafka_consumer.mjs",
                                 broker.bootstraps(), "svc.events", "tenancy.api_key_created", "4",
                                 "60000"});
  core::Json got = core::ParseJsonOrDiscarded(kafkajs.ReadLine());
  REQUIRE_MESSAGE(got["error"].is_null(), got.dump());
  CHECK(got["control"].size() == 4);
  for (const auto& c : got["control"]) CHECK(c["type"] == "svc.writer_fence");
  REQUIRE(got["domain"].size() == 3);
  for (const auto& d : got["domain"]) {
    CHECK(d["type"] == d["envelopeType"]);  // ce_type is the envelope's type
    CHECK(d["id"] == d["envelopeId"]);
    CHECK(d["tenantId"] == tenant);
    CHECK(d["key"] == tenant);
  }

  // It started quietly: no librdkafka warnings (the topic exists; nothing is auto-created).
  server.Stop();
  std::ifstream log(server.stderr_path());
  std::string line, warnings;
  while (std::getline(log, line)) {
    if (line.find("\"librdkafka\"") != std::string::npos && line.find("\"level\":\"info\"") == std::string::npos) {
      warnings += line + "\n";
    }
  }
  CHECK_MESSAGE(warnings.empty(), warnings);
}

TEST_CASE("kafka backend: kill -9, restart, nothing acknowledged is lost, replay is identical") {
  testing::DevBrokerProcess broker;
  testing::TempDir dir;
  std::string data = dir.Sub("data");
  SvcServer server(data, KafkaFlags(broker));
  server.Start();
  auto created = RunSvc({"admin", "tenant", "create", "--name", "Acme", "--data-dir", data});
  REQUIRE(created.exit_code == 0);
  std::string tenant = core::ParseJsonOrDiscarded(created.out)["id"];
  std::string service_key;
  std::ifstream(data + "/service.key") >> service_key;
  std::map<std::string, std::string> auth = {{"Authorization", "Bearer " + service_key}};
  std::set<std::string> acked;
  for (int i = 0; i < 30; ++i) {
    auto r = api::HttpCall(server.admin_target(), "POST", "/admin/tenants/" + tenant + "/keys",
                           auth, R"({"scopes":["kyb:read"]})");
    REQUIRE(r->status == 201);
    acked.insert(core::ParseJsonOrDiscarded(r->body)["id"].get<std::string>());
  }
  server.Kill();
  server.Start();  // recovers the write model and read models from Kafka; waits for /readyz
  auto list = api::HttpCall(server.admin_target(), "GET", "/admin/tenants/" + tenant + "/keys",
                            auth);
  std::set<std::string> listed;
  core::Json rows = core::ParseJsonOrDiscarded(list->body)["data"];
  for (const auto& row : rows) {
    CHECK(listed.insert(row["id"].get<std::string>()).second);
  }
  CHECK_MESSAGE(listed == acked, "listed " << listed.size() << " acked " << acked.size());
  // Writes continue after the restart (the writer found its sequences in the topic's tail).
  auto more = api::HttpCall(server.admin_target(), "POST", "/admin/tenants/" + tenant + "/keys",
                            auth, R"({"scopes":["kyb:read"]})");
  CHECK(more->status == 201);
  server.Stop();
  auto verify = RunSvc({"replay", "--verify", "--data-dir", data, "--log-backend", "kafka",
                        "--kafka-brokers", broker.bootstraps()});
  CHECK_MESSAGE(verify.exit_code == 0, verify.out << verify.err);
}

// Issue 67: `svc kafka-check`, what the log relies on, checked against the brokers an operator
// names. The dev broker (librdkafka's mock cluster) cannot show some of it; the command says which,
// and fails on none of them: a real broker that failed one would make it exit 1.
TEST_CASE("kafka-check: against the dev broker, each check answers, and says what the mock cannot show") {
  testing::DevBrokerProcess broker;
  auto run = RunSvc({"kafka-check", "--kafka-brokers", broker.bootstraps(), "--timeout-ms", "10000"});
  INFO(run.out, run.err);
  REQUIRE(run.exit_code == 0);
  std::map<std::string, core::Json> checks;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    core::Json j = core::ParseJsonOrDiscarded(line);
    REQUIRE(j.is_object());
    checks[j["check"].get<std::string>()] = j;
  }
  REQUIRE(checks.size() == 3);
  CHECK(checks["events_topic"]["outcome"] == "not_answerable");
  CHECK(checks["events_topic"]["detail"].get<std::string>().find("DescribeConfigs") != std::string::npos);
  // librdkafka 2.0's mock cluster: a zombie producer commits, and an aborted record is read. The
  // command says so rather than fail (svc's own fence and epochs cover both there).
  CHECK(checks["producer_fencing"]["outcome"] == "not_answerable");
  CHECK(checks["producer_fencing"]["detail"].get<std::string>().find("fences no producer") != std::string::npos);
  CHECK(checks["read_committed"]["outcome"] == "not_answerable");
  CHECK(checks["read_committed"]["detail"].get<std::string>().find("does not filter aborted") != std::string::npos);
  // No brokers: an error, not a verdict.
  auto none = RunSvc({"kafka-check"});
  CHECK(none.exit_code != 0);
  CHECK(none.err.find("--kafka-brokers") != std::string::npos);
}

}  // namespace integration_kafka_test
