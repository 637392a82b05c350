// `svc serve` as a user sees it: health, readiness, metrics, errors, the admin listener and the
// admin CLI in both modes (through a running server, and on a stopped data directory).
#include <doctest/doctest.h>
#include <strings.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "api/http/http_client.h"
#include "api/http/runtime.h"
#include "pipeline/certificate.h"
#include "core/crypto.h"
#include "core/json.h"
#include "tests/support/http_helpers.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace integration_serve_test {

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

namespace {

// A raw client on one connection: writes `head`, then (unless empty) `body` in 64 KiB pieces
// while the server may already be answering, then reads until the server closes. Returns what
// it read, or "" on a connection reset (the failure this guards against).
std::string RawExchange(uint16_t port, const std::string& head, const std::string& body) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  auto send_all = [&](const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::send(fd, s.data() + off, std::min<size_t>(65536, s.size() - off), MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  };
  bool sent = send_all(head) && (body.empty() || send_all(body));
  std::string got;
  char buf[8192];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0) {
      got.clear();  // reset: the client never sees the answer
      break;
    }
    if (n == 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  CHECK_MESSAGE(sent, "the body could not be sent in full");
  return got;
}

}  // namespace

TEST_CASE("serve: an oversized body's 413 reaches the client; Expect: 100-continue is answered") {
  testing::TempDir dir;
  SvcServer server(dir.Sub("data"));  // --max-body-bytes 1 MiB
  server.Start();
  const std::string big(2 << 20, 'x');
  const std::string head = "POST /v1/verification-sessions HTTP/1.1\r\nHost: x\r\n"
                           "Content-Type: application/json\r\nContent-Length: " +
                           std::to_string(big.size()) + "\r\n\r\n";
  // The server answers before the body has arrived, then reads the rest and closes gracefully:
  // every try gets the problem, none a reset (before: 35 of 40 were resets).
  int answered = 0;
  for (int i = 0; i < 40; ++i) {
    std::string got = RawExchange(server.port(), head, big);
    if (got.rfind("HTTP/1.1 413", 0) == 0 && got.find("\"PAYLOAD_TOO_LARGE\"") != std::string::npos &&
        got.find("application/problem+json") != std::string::npos) {
      ++answered;
    }
  }
  CHECK(answered == 40);

  // Expect: 100-continue over the limit: 413 at once, before any body byte is sent.
  std::string early = RawExchange(server.port(),
                                  "POST /v1/verification-sessions HTTP/1.1\r\nHost: x\r\n"
                                  "Content-Type: application/json\r\nExpect: 100-continue\r\n"
                                  "Content-Length: " + std::to_string(big.size()) + "\r\n\r\n",
                                  "");
  CHECK(early.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(early.find("100 Continue") == std::string::npos);

  // Within the limit: "100 Continue" first, then the body is read and answered.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server.port());
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::string body = R"({"channel":"api"})";
  std::string h = "POST /v1/verification-sessions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                  "Content-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                  std::to_string(body.size()) + "\r\n\r\n";
  REQUIRE(::send(fd, h.data(), h.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(h.size()));
  char buf[4096];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  REQUIRE(n > 0);
  CHECK(std::string(buf, static_cast<size_t>(n)).rfind("HTTP/1.1 100 Continue\r\n\r\n", 0) == 0);
  REQUIRE(::send(fd, body.data(), body.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(body.size()));
  std::string rest;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) rest.append(buf, static_cast<size_t>(n));
  ::close(fd);
  // The final answer for this body (no key was sent: 401, a problem), read in full.
  CHECK(rest.find("HTTP/1.1 401") != std::string::npos);
  CHECK(rest.find("AUTHENTICATION_REQUIRED") != std::string::npos);
  CHECK(api::HttpCall(server.target(), "GET", "/healthz")->status == 200);
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

TEST_CASE("keys: outside development, no master or service key is kept in the data directory") {
  testing::TempDir dir;
  const std::string data = dir.Sub("data");
  const testing::EnvChanges production = {{"SVC_DEV_KEYS_IN_DATA_DIR", ""}, {"SVC_MASTER_KEY", ""},
                                          {"SVC_SERVICE_KEY", ""}};
  // No key anywhere: serve refuses, names the ways to give one, and creates nothing.
  auto refused = RunSvc({"serve", "--data-dir", data, "--listen", "127.0.0.1:0"}, production);
  CHECK(refused.exit_code != 0);
  CHECK(refused.err.find("SVC_MASTER_KEY") != std::string::npos);
  CHECK(refused.err.find("--dev-keys-in-data-dir") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(data));
  // A key file inside the data directory is refused too (a backup would carry it).
  std::filesystem::create_directories(data);
  { std::ofstream(data + "/mine.key") << core::Base64Encode(core::RandomBytes(32)); }
  auto inside = RunSvc({"serve", "--data-dir", data, "--listen", "127.0.0.1:0", "--master-key-file",
                        data + "/mine.key"},
                       production);
  CHECK(inside.exit_code != 0);
  CHECK(inside.err.find("inside the data directory") != std::string::npos);
  std::filesystem::remove_all(data);

  // The key in the environment and the service key in a file outside: it serves, and the data
  // directory holds neither key.
  const std::string master = core::Base64Encode(core::RandomBytes(32));
  const std::string service_file = dir.Sub("secrets") + "/service.key";
  std::filesystem::create_directories(dir.Sub("secrets"));
  testing::EnvChanges env = production;
  env.push_back({"SVC_MASTER_KEY", master});
  SvcServer server(data, {"--service-key-file", service_file});
  server.SetEnv(env);
  server.Start();
  CHECK(api::HttpCall(server.target(), "GET", "/healthz")->status == 200);
  CHECK_FALSE(std::filesystem::exists(data + "/master.key"));
  CHECK_FALSE(std::filesystem::exists(data + "/service.key"));
  REQUIRE(std::filesystem::exists(service_file));
  // The admin CLI reaches the running server with the service key from outside.
  env.push_back({"SVC_SERVICE_KEY_FILE", service_file});
  auto tenant = RunSvc({"admin", "tenant", "create", "--name", "Prod", "--data-dir", data}, env);
  CHECK_MESSAGE(tenant.exit_code == 0, tenant.err);
  server.Stop();
  // A restart with another master key is refused (a key check value in the store), and so is
  // one with none.
  testing::EnvChanges other = production;
  other.push_back({"SVC_MASTER_KEY", core::Base64Encode(core::RandomBytes(32))});
  auto wrong = RunSvc({"serve", "--data-dir", data, "--listen", "127.0.0.1:0", "--service-key-file", service_file},
                      other);
  CHECK(wrong.exit_code != 0);
  CHECK(wrong.err.find("not the one this data directory uses") != std::string::npos);
  auto no_key = RunSvc({"serve", "--data-dir", data, "--listen", "127.0.0.1:0"}, production);
  CHECK(no_key.exit_code != 0);
  CHECK(no_key.err.find("no master key") != std::string::npos);
  // A key file outside the data directory works as well as the environment variable.
  const std::string key_file = dir.Sub("secrets") + "/master.key";
  { std::ofstream(key_file) << master << "\n"; }
  testing::EnvChanges by_file = production;
  by_file.push_back({"SVC_MASTER_KEY_FILE", key_file});
  by_file.push_back({"SVC_SERVICE_KEY_FILE", service_file});
  auto listed = RunSvc({"admin", "tenant", "list", "--data-dir", data}, by_file);  // stopped: direct
  CHECK_MESSAGE(listed.exit_code == 0, listed.err);
  CHECK(core::ParseJsonOrDiscarded(listed.out)["data"].size() == 1);

  // Development keeps today's behaviour, and says so loudly.
  testing::TempDir dev;
  SvcServer dev_server(dev.Sub("data"));
  dev_server.SetEnv({{"SVC_DEV_KEYS_IN_DATA_DIR", "1"}, {"SVC_MASTER_KEY", ""}});
  dev_server.Start();
  dev_server.Stop();
  CHECK(std::filesystem::exists(dev.Sub("data") + "/master.key"));
  CHECK(std::filesystem::exists(dev.Sub("data") + "/service.key"));
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

// Issue 31: a request that names a transfer coding other than chunked, or both Transfer-Encoding
// and Content-Length (the shape of request smuggling), has no length the server may trust.
TEST_CASE("serve: Transfer-Encoding other than chunked, or with Content-Length, is 400 and the connection ends") {
  testing::TempDir dir;
  SvcServer server(dir.Sub("data"));
  server.Start();
  const std::string body = "{}";
  for (const std::string framing :
       {"Transfer-Encoding: gzip\r\nContent-Length: 2\r\n", "Transfer-Encoding: gzip\r\n",
        "Transfer-Encoding: chunked\r\nContent-Length: 2\r\n", "Transfer-Encoding: gzip, chunked\r\n"}) {
    CAPTURE(framing);
    std::string got = RawExchange(server.port(),
                                  "POST /v1/persons HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
                                      framing + "\r\n",
                                  body);
    CHECK(got.rfind("HTTP/1.1 400", 0) == 0);
    CHECK(got.find("\"code\":\"BAD_REQUEST\"") != std::string::npos);
    // Beast itself refuses chunked with a Content-Length while reading the head ("malformed").
    if (framing.find("gzip") != std::string::npos) CHECK(got.find("RFC 9112") != std::string::npos);
  }
  // Chunked alone is read as always.
  std::string ok = RawExchange(server.port(),
                               "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
                               "2\r\n{}\r\n0\r\n\r\n");
  CHECK(ok.rfind("HTTP/1.1 405", 0) == 0);  // a GET route: read, routed, answered
  CHECK(api::HttpCall(server.target(), "GET", "/healthz")->status == 200);
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
  // Issue 31: each call against the running server moved its RocksDB info log aside.
  auto info_logs = [&data] {
    std::set<std::string> names;
    for (const auto& f : std::filesystem::directory_iterator(data + "/db")) {
      if (f.path().filename().string().rfind("LOG", 0) == 0) names.insert(f.path().filename().string());
    }
    return names;
  };
  const auto before = info_logs();
  for (int i = 0; i < 3; ++i) REQUIRE(RunSvc({"admin", "tenant", "list", "--data-dir", data}).exit_code == 0);
  CHECK(info_logs() == before);
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
  // The data directory's working root (kept wrapped under its master key), as the server signs with.
  auto root = api::LoadWorkingRoot(data, api::KeySources{"", "", true});
  REQUIRE_MESSAGE(root.ok(), root.status().ToString());
  core::Json content = {{"sessionId", "vrf_0123456789abcdef0123456789abcdef"},
                        {"tenantId", "ten_0123456789abcdef0123456789abcdef"},
                        {"environment", "live"},
                        {"outcome", "approved"},
                        {"trustScore", 0.9}};
  auto signed_doc = pipeline::SignCertificate(content, pipeline::CertificateRootKey(*root));
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

  // Without the service's keys: the tenant's Ed25519 public key (what GET /v1/certificate-keys
  // serves, and `svc certificate public-key` prints) checks the certificate; the HMAC is reported
  // as not checked, never as valid.
  { std::ofstream(file) << *signed_doc; }
  auto pub = RunSvc({"certificate", "public-key", "--tenant", "ten_0123456789abcdef0123456789abcdef", "--env",
                     "live", "--data-dir", data});
  REQUIRE_MESSAGE(pub.exit_code == 0, pub.err);
  std::string public_key = core::ParseJsonOrDiscarded(pub.out)["publicKey"];
  CHECK(core::ParseJsonOrDiscarded(pub.out)["keyId"] == core::ParseJsonOrDiscarded(*signed_doc)["signingKeyId"]);
  auto alone = RunSvc({"certificate", "verify", file, "--public-key", public_key});
  CHECK_MESSAGE(alone.exit_code == 0, alone.out << alone.err);
  core::Json a = core::ParseJsonOrDiscarded(alone.out);
  CHECK(a["valid"] == true);
  CHECK(a["ed25519SignatureValid"] == true);
  CHECK(a["hmacSignatureValid"].is_null());
  CHECK(a["notChecked"].size() == 1);
  { std::ofstream(file) << tampered; }
  CHECK(RunSvc({"certificate", "verify", file, "--public-key", public_key}).exit_code == 1);

  // The stand-alone Python verifier (standard library only) agrees.
  { std::ofstream(file) << *signed_doc; }
  std::string script = std::string(SVC_TEST_SOURCE_DIR) + "/../docs/verify_certificate.py";
  auto py = testing::RunProgram("python3", {script, file, "--public-key", public_key});
  CHECK_MESSAGE(py.exit_code == 0, py.out << py.err);
  CHECK(core::ParseJsonOrDiscarded(py.out)["valid"] == true);
  { std::ofstream(file) << core::ParseJsonOrDiscarded(*signed_doc).dump(2); }  // re-formatted: still valid
  CHECK(testing::RunProgram("python3", {script, file, "--public-key", public_key}).exit_code == 0);
  { std::ofstream(file) << tampered; }
  auto py_bad = testing::RunProgram("python3", {script, file, "--public-key", public_key});
  CHECK(py_bad.exit_code == 1);
  CHECK(core::ParseJsonOrDiscarded(py_bad.out)["contentHashValid"] == false);
  auto test_pub = RunSvc({"certificate", "public-key", "--tenant", "ten_0123456789abcdef0123456789abcdef", "--env",
                          "test", "--data-dir", data});
  { std::ofstream(file) << *signed_doc; }
  CHECK(testing::RunProgram("python3", {script, file, "--public-key",
                                        core::ParseJsonOrDiscarded(test_pub.out)["publicKey"]})
            .exit_code == 1);  // the test key does not sign live certificates

  // A wrong or empty data directory: nothing is created there, and the answer says what could
  // not be checked (it is not a signature failure).
  std::string empty = dir.Sub("not-a-data-dir");
  auto nowhere = RunSvc({"certificate", "verify", file, "--data-dir", empty});
  CHECK(nowhere.exit_code == 1);
  CHECK_FALSE(std::filesystem::exists(empty));
  core::Json n = core::ParseJsonOrDiscarded(nowhere.out);
  CHECK(n["valid"] == false);
  CHECK(n["contentHashValid"] == true);
  CHECK(n["hmacSignatureValid"].is_null());
  CHECK(n["notChecked"].dump().find("master key") != std::string::npos);
  std::filesystem::create_directories(empty);
  CHECK(RunSvc({"certificate", "verify", file, "--data-dir", empty}).exit_code == 1);
  CHECK(std::filesystem::is_empty(empty));  // still empty: no master.key was made
}

}  // namespace integration_serve_test
