// `svc serve` as a user sees it: health, readiness, metrics, errors, the admin listener and the
// admin CLI in both modes (through a running server, and on a stopped data directory).
#include <doctest/doctest.h>
#include <strings.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "api/http_client.h"
#include "api/runtime.h"
#include "pipeline/certificate.h"
#include "core/json.h"
#include "tests/support/http_helpers.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

using namespace svc;
using svc::testing::RunSvc;
using svc::testing::SvcServer;

namespace {
using svc::testing::Body;
using svc::testing::HeaderOf;
std::string ServiceKey(const std::string& data_dir) {
  auto r = RunSvc({"--help"});  // ensures the binary runs
  (void)r;
  std::ifstream in(data_dir + "/service.key");
  std::string k;
  in >> k;
  return k;
}
}  // namespace

TEST_CASE("serve: health, readiness, metrics, 404/405 problems, request ids") {
  testing::TempDir dir;
  SvcServer server(dir.Sub("data"));
  server.Start();
  auto health = api::HttpCall(server.target(), "GET", "/healthz");
  REQUIRE(health.ok());
  CHECK(health->status == 200);
  std::string rid = HeaderOf(*health, "Service-Request-Id");
  CHECK(rid.rfind("req_", 0) == 0);

  // Readiness: ready once the projections have caught up with the log at start.
  api::HttpResponse ready;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {  // polls a condition, bounded; readiness is reached without any write
    ready = *api::HttpCall(server.target(), "GET", "/readyz");
  } while (ready.status != 200 && std::chrono::steady_clock::now() < deadline);
  CHECK(ready.status == 200);

  auto metrics = api::HttpCall(server.target(), "GET", "/metrics");
  REQUIRE(metrics.ok());
  CHECK(metrics->content_type.rfind("text/plain", 0) == 0);
  CHECK(metrics->body.find("svc_projection_lag_events{projector=\"tenancy\"}") != std::string::npos);

  auto missing = api::HttpCall(server.target(), "GET", "/v1/nothing-here");
  CHECK(missing->status == 404);
  CHECK(missing->content_type == "application/problem+json");
  core::Json p = Body(*missing);
  CHECK(p["code"] == "RESOURCE_NOT_FOUND");
  CHECK(p["status"] == 404);
  CHECK(p["instance"] == "/v1/nothing-here");
  CHECK(p["requestId"] == HeaderOf(*missing, "Service-Request-Id"));
  CHECK(p["type"].get<std::string>().find("#RESOURCE_NOT_FOUND") != std::string::npos);

  auto wrong = api::HttpCall(server.target(), "DELETE", "/healthz");
  CHECK(wrong->status == 405);
  CHECK(HeaderOf(*wrong, "Allow") == "GET");
  CHECK(Body(*wrong)["code"] == "METHOD_NOT_ALLOWED");

  // A caller's X-Request-Id never replaces ours.
  auto mine = api::HttpCall(server.target(), "GET", "/healthz", {{"X-Request-Id", "caller-1"}});
  CHECK(HeaderOf(*mine, "Service-Request-Id").rfind("req_", 0) == 0);
  server.Stop();
}

TEST_CASE("serve: oversized bodies get 413 PAYLOAD_TOO_LARGE") {
  testing::TempDir dir;
  SvcServer server(dir.Sub("data"), {"--max-body-bytes", "1024"});
  server.Start();
  auto r = api::HttpCall(server.target(), "POST", "/healthz", {}, std::string(4096, 'x'));
  REQUIRE(r.ok());
  CHECK(r->status == 413);
  CHECK(Body(*r)["code"] == "PAYLOAD_TOO_LARGE");
  auto small = api::HttpCall(server.target(), "GET", "/healthz");
  CHECK(small->status == 200);  // the server is fine afterwards
  server.Stop();
}

TEST_CASE("dev bootstrap: a development tenant and a working test key, printed once") {
  testing::TempDir dir;
  SvcServer server(dir.Sub("data"), {"--dev-bootstrap"});
  server.Start();
  server.Stop();
  std::string out = server.stdout_text();
  CHECK(out.find("Development tenant created: ten_") != std::string::npos);
  CHECK(out.find("svc_test_sk_") != std::string::npos);
  server.Start();
  server.Stop();
  CHECK(server.stdout_text().find("svc_test_sk_") == std::string::npos);  // never again
  auto list = RunSvc({"admin", "tenant", "list", "--data-dir", dir.Sub("data")});
  REQUIRE(list.exit_code == 0);
  CHECK(core::ParseJsonOrDiscarded(list.out)["data"].size() == 1);
}

TEST_CASE("admin listener: service key required; errors are problems") {
  testing::TempDir dir;
  SvcServer server(dir.Sub("data"));
  server.Start();
  std::string key = ServiceKey(dir.Sub("data"));
  REQUIRE(key.rfind("svc_service_", 0) == 0);

  auto none = api::HttpCall(server.admin_target(), "GET", "/admin/tenants");
  CHECK(none->status == 401);
  CHECK(Body(*none)["code"] == "SERVICE_KEY_REQUIRED");
  auto bad = api::HttpCall(server.admin_target(), "GET", "/admin/tenants",
                           {{"Authorization", "Bearer " + key + "x"}});
  CHECK(bad->status == 401);

  std::map<std::string, std::string> auth = {{"Authorization", "Bearer " + key}};
  auto malformed = api::HttpCall(server.admin_target(), "POST", "/admin/tenants", auth, "{nope");
  CHECK(malformed->status == 400);
  auto wrong_type = api::HttpCall(server.admin_target(), "POST", "/admin/tenants", auth,
                                  R"({"name": 7})");
  CHECK(wrong_type->status == 422);
  CHECK(Body(*wrong_type)["code"] == "VALIDATION_ERROR");
  auto empty = api::HttpCall(server.admin_target(), "POST", "/admin/tenants", auth, R"({})");
  CHECK(Body(*empty)["code"] == "VALIDATION_ERROR");

  auto created = api::HttpCall(server.admin_target(), "POST", "/admin/tenants", auth,
                               R"({"name": "Acme"})");
  REQUIRE(created->status == 201);
  std::string tenant = Body(*created)["id"];

  auto uuid = api::HttpCall(server.admin_target(), "GET",
                            "/admin/tenants/123e4567-e89b-12d3-a456-426614174000/keys", auth);
  CHECK(uuid->status == 400);
  CHECK(Body(*uuid)["code"] == "INVALID_ID");
  auto unknown_tenant = api::HttpCall(
      server.admin_target(), "GET", "/admin/tenants/ten_00000000000000000000000000000000/keys",
      auth);
  CHECK(unknown_tenant->status == 404);
  CHECK(Body(*unknown_tenant)["code"] == "TENANT_NOT_FOUND");
  auto bad_scope = api::HttpCall(server.admin_target(), "POST",
                                 "/admin/tenants/" + tenant + "/keys", auth,
                                 R"({"scopes": ["persons:fly"]})");
  CHECK(bad_scope->status == 422);
  CHECK(Body(*bad_scope)["code"] == "UNKNOWN_SCOPE");
  auto pk = api::HttpCall(server.admin_target(), "POST", "/admin/tenants/" + tenant + "/keys",
                          auth, R"({"type": "publishable", "scopes": ["persons:read"]})");
  CHECK(Body(*pk)["code"] == "SCOPE_NOT_ALLOWED_FOR_KEY_TYPE");
  server.Stop();
}

TEST_CASE("admin CLI: the same commands work against a running server and a stopped one") {
  testing::TempDir dir;
  std::string data = dir.Sub("data");
  auto created = RunSvc({"admin", "tenant", "create", "--name", "Acme", "--data-dir", data});
  REQUIRE_MESSAGE(created.exit_code == 0, created.err);
  std::string tenant = core::ParseJsonOrDiscarded(created.out)["id"];

  SvcServer server(data);
  server.Start();
  auto key = RunSvc({"admin", "key", "create", "--tenant", tenant, "--env", "live", "--scopes",
                     "persons:*,webhook:read", "--data-dir", data});
  REQUIRE_MESSAGE(key.exit_code == 0, key.err);
  core::Json k = core::ParseJsonOrDiscarded(key.out);
  CHECK(k["secret"].get<std::string>().rfind("svc_live_sk_", 0) == 0);
  CHECK(k["scopes"] == core::Json::array({"persons:*", "webhook:read"}));

  auto list = RunSvc({"admin", "key", "list", "--tenant", tenant, "--data-dir", data});
  REQUIRE(list.exit_code == 0);
  core::Json rows = core::ParseJsonOrDiscarded(list.out)["data"];
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["id"] == k["id"]);
  CHECK(list.out.find(k["secret"].get<std::string>()) == std::string::npos);  // shown once
  CHECK(list.out.find("secretHash") == std::string::npos);
  server.Stop();

  auto revoke = RunSvc({"admin", "key", "revoke", "--tenant", tenant, "--key",
                        k["id"].get<std::string>(), "--data-dir", data});
  REQUIRE_MESSAGE(revoke.exit_code == 0, revoke.err);
  CHECK(!core::ParseJsonOrDiscarded(revoke.out)["revokedAt"].is_null());
  auto missing = RunSvc({"admin", "key", "revoke", "--tenant", tenant, "--key",
                         "key_00000000000000000000000000000000", "--data-dir", data});
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find("API_KEY_NOT_FOUND") != std::string::npos);

  auto verify = RunSvc({"replay", "--verify", "--data-dir", data});
  CHECK_MESSAGE(verify.exit_code == 0, verify.out << verify.err);
  CHECK(core::ParseJsonOrDiscarded(verify.out)["identical"] == true);
}

TEST_CASE("serve --help documents every flag with its environment variable") {
  auto help = RunSvc({"serve", "--help"});
  CHECK(help.exit_code == 0);
  for (const char* flag : {"--data-dir", "--listen", "--partitions", "--durability", "--threads",
                           "--admin-socket", "--port-file", "--dev-bootstrap", "--log-level",
                           "--max-body-bytes", "--read-timeout-ms"}) {
    CHECK_MESSAGE(help.out.find(flag) != std::string::npos, flag);
  }
  CHECK(help.out.find("SVC_DATA_DIR") != std::string::npos);
  auto unknown = RunSvc({"serve", "--no-such-flag"});
  CHECK(unknown.exit_code == 2);
}

TEST_CASE("serve: a slow client cannot hold a connection (read timeout)") {
  testing::TempDir dir;
  SvcServer server(dir.Sub("data"), {"--read-timeout-ms", "300"});
  server.Start();
  // Half a request, then nothing: the server must close the connection on its own.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server.port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  const char partial[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  REQUIRE(::send(fd, partial, sizeof partial - 1, 0) > 0);
  timeval tv{30, 0};  // a bound on the test, far above the server's 300 ms
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buf[256];
  auto started = std::chrono::steady_clock::now();
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) {
  }
  auto waited = std::chrono::steady_clock::now() - started;
  ::close(fd);
  CHECK(n == 0);  // closed by the server, not by our 30 s bound
  CHECK(waited < std::chrono::seconds(10));
  CHECK(api::HttpCall(server.target(), "GET", "/healthz")->status == 200);  // others unaffected
  server.Stop();
}

TEST_CASE("svc certificate verify: a signed certificate verifies; one changed byte fails") {
  testing::TempDir dir;
  std::string data = dir.Sub("data");
  REQUIRE(RunSvc({"admin", "tenant", "create", "--name", "Acme", "--data-dir", data}).exit_code == 0);
  auto master = api::LoadMasterKey(data);  // the key the data directory was created with
  REQUIRE(master.ok());
  core::Json content = {{"sessionId", "vrf_0123456789abcdef0123456789abcdef"},
                        {"tenantId", "ten_0123456789abcdef0123456789abcdef"},
                        {"environment", "live"},
                        {"outcome", "approved"},
                        {"trustScore", 0.9}};
  auto signed_doc = pipeline::SignCertificate(content, pipeline::CertificateRootKey(*master));
  REQUIRE(signed_doc.ok());
  std::string file = dir.Sub("certificate.json");
  { std::ofstream(file) << *signed_doc; }
  auto ok = RunSvc({"certificate", "verify", file, "--data-dir", data});
  CHECK_MESSAGE(ok.exit_code == 0, ok.out << ok.err);
  CHECK(core::ParseJsonOrDiscarded(ok.out)["valid"] == true);

  std::string tampered = *signed_doc;
  tampered[tampered.find("0.9") + 2] = '8';  // trustScore 0.9 -> 0.8
  { std::ofstream(file) << tampered; }
  auto bad = RunSvc({"certificate", "verify", file, "--data-dir", data});
  CHECK(bad.exit_code == 1);
  CHECK(core::ParseJsonOrDiscarded(bad.out)["valid"] == false);
  CHECK(RunSvc({"certificate", "verify", dir.Sub("missing.json"), "--data-dir", data}).exit_code != 0);
}
