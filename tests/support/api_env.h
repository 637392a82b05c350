#pragma once
// A running svc (embedded or Kafka backend) for API tests, and the problem+json check.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/http/http_client.h"
#include "core/json.h"
#include "tests/support/dev_broker_process.h"
#include "tests/support/http_helpers.h"
#include "tests/support/s3_process.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace svc::testing {

// A running svc (embedded or Kafka backend) and the data directory it serves.
// SVC_TEST_BLOB_STORE=s3 (the ctest entries integration.s3.*): its blobs in a bucket of an S3
// server of its own (tests/s3/server.mjs, signatures checked), unless the case names a store.
struct SvcInstance {
  testing::TempDir dir;
  std::unique_ptr<testing::DevBrokerProcess> broker;
  std::unique_ptr<testing::S3Process> s3;
  std::vector<std::string> blob_flags;  // the S3 flags, for a restart or a command on the directory
  std::unique_ptr<SvcServer> server;
  std::string service_key;

  SvcInstance(bool kafka, std::vector<std::string> extra) {
    if (kafka) {
      broker = std::make_unique<testing::DevBrokerProcess>();
      extra.insert(extra.end(), {"--log-backend", "kafka", "--kafka-brokers", broker->bootstraps()});
    }
    const char* store = std::getenv("SVC_TEST_BLOB_STORE");
    if (store != nullptr && std::string(store) == "s3" &&
        std::find(extra.begin(), extra.end(), "--blob-store") == extra.end()) {
      s3 = std::make_unique<testing::S3Process>(dir.Sub("s3"));
      blob_flags = s3->ServerFlags(dir.Sub("aws-credentials"));
      extra.insert(extra.end(), blob_flags.begin(), blob_flags.end());
    }
    server = std::make_unique<SvcServer>(dir.Sub("data"), extra);
    server->Start();
    std::ifstream(dir.Sub("data") + "/service.key") >> service_key;
  }
};

// kShared: one svc per backend and flag set for the whole test process (one ctest entry runs one
// test file), each case with a fresh tenant and keys: what most cases need, at a fraction of the
// start-ups. kIsolated: a svc of the case's own, for cases that stop, kill or restart it, or
// assert on state of the whole server (the delivery queue, every event on the topic).
enum class Sharing { kShared, kIsolated };

inline std::shared_ptr<SvcInstance> SvcFor(bool kafka, const std::vector<std::string>& extra,
                                           Sharing sharing) {
  // SVC_TEST_ISOLATED=1: every case gets its own server (to tell a case's failure from a
  // neighbour's leftovers).
  if (sharing == Sharing::kIsolated || std::getenv("SVC_TEST_ISOLATED") != nullptr) {
    return std::make_shared<SvcInstance>(kafka, extra);
  }
  static std::map<std::string, std::shared_ptr<SvcInstance>> shared;
  std::string key = kafka ? "kafka" : "embedded";
  for (const auto& f : extra) key += " " + f;
  auto& slot = shared[key];
  if (!slot) slot = std::make_shared<SvcInstance>(kafka, extra);
  return slot;
}

// A case's view of a running svc: its own tenant with a test and a live key made through the
// admin socket.
struct Env {
  std::shared_ptr<SvcInstance> instance;
  testing::TempDir& dir;
  std::unique_ptr<testing::DevBrokerProcess>& broker;
  std::unique_ptr<SvcServer>& server;
  std::string& service_key;
  // Empty, or the S3 flags under SVC_TEST_BLOB_STORE=s3: add them to a server the case starts
  // again itself and to a command it runs on the data directory.
  const std::vector<std::string>& blob_flags;
  std::string tenant, test_key, live_key;

  explicit Env(bool kafka, std::vector<std::string> extra = {}, Sharing sharing = Sharing::kShared)
      : instance(SvcFor(kafka, extra, sharing)),
        dir(instance->dir),
        broker(instance->broker),
        server(instance->server),
        service_key(instance->service_key),
        blob_flags(instance->blob_flags) {
    tenant = NewTenant("Acme");
    test_key = NewKey(tenant, "test", {"*"});
    live_key = NewKey(tenant, "live", {"*"});
  }
  api::HttpResponse Admin(const std::string& method, const std::string& path,
                          const core::Json& body = core::Json::object()) {
    auto r = api::HttpCall(server->admin_target(), method, path,
                           {{"Authorization", "Bearer " + service_key}}, core::DumpJson(body));
    REQUIRE(r.ok());
    return *r;
  }
  std::string NewTenant(const std::string& name) {
    auto r = Admin("POST", "/admin/tenants", {{"name", name}});
    REQUIRE(r.status == 201);
    return Body(r)["id"];
  }
  std::string NewKey(const std::string& t, const std::string& env, std::vector<std::string> scopes,
                     const std::string& application = "") {
    core::Json body = {{"environment", env}, {"scopes", scopes}};
    if (!application.empty()) body["applicationId"] = application;
    auto r = Admin("POST", "/admin/tenants/" + t + "/keys", body);
    REQUIRE(r.status == 201);
    return Body(r)["secret"];
  }
  // Another application of a tenant (its id).
  std::string NewApplication(const std::string& t, const std::string& name) {
    auto r = Admin("POST", "/admin/tenants/" + t + "/applications", {{"name", name}});
    REQUIRE_MESSAGE(r.status == 201, r.body);
    return Body(r)["id"];
  }
  api::HttpResponse Call(const std::string& key, const std::string& method,
                         const std::string& path, const std::string& body = "",
                         std::map<std::string, std::string> headers = {}) {
    if (!key.empty()) headers["Authorization"] = "Bearer " + key;
    if (!body.empty() && headers.count("Content-Type") == 0) headers["Content-Type"] = "application/json";
    auto r = api::HttpCall(server->target(), method, path, headers, body);
    REQUIRE_MESSAGE(r.ok(), r.status().ToString());
    return *r;
  }
  api::HttpResponse Create(const std::string& key, const std::string& idem,
                           const std::string& body = R"({"channel":"api"})") {
    return Call(key, "POST", "/v1/verification-sessions", body, {{"Idempotency-Key", idem}});
  }
};

// Registers a webhook endpoint of the env's test key at a local receiver (port, path) for
// `events`; its signing secret.
inline std::string Subscribe(Env& env, int port, const std::string& path, const std::vector<std::string>& events,
                             const std::string& idempotency_key) {
  auto r = env.Call(env.test_key, "POST", "/v1/developer/webhooks",
                    core::Json{{"url", "http://127.0.0.1:" + std::to_string(port) + path}, {"events", events}}.dump(),
                    {{"Idempotency-Key", idempotency_key}});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["secret"];
}

inline void CheckProblem(const api::HttpResponse& r, int status, const std::string& code) {
  CHECK_MESSAGE(r.status == status, r.body);
  CHECK(r.content_type == "application/problem+json");
  core::Json p = Body(r);
  CHECK(p["code"] == code);
  CHECK(p["status"] == status);
  CHECK(p["type"].get<std::string>().find("/docs/errors#" + code) != std::string::npos);
  CHECK(p["title"].is_string());
  CHECK(p["detail"].is_string());
  CHECK(p["instance"].is_string());
  CHECK(p["requestId"] == HeaderOf(r, "Service-Request-Id"));
}

#define BOTH_BACKENDS                                  \
  bool kafka = false;                                  \
  SUBCASE("embedded log") { kafka = false; }           \
  SUBCASE("kafka log") { kafka = true; }               \
  CAPTURE(kafka)


}  // namespace svc::testing
