// RFC 3161 over HTTP against OpenSSL's own TSA behind HTTP (tests/tsa/server.py): a token
// obtained, checked and kept; what a TSA that is down, unreachable, answering for another digest
// or nonce, signing under another root, or asking for credentials gives.
#include <doctest/doctest.h>

#include <fstream>

#include "core/clock.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/adapters/tsa_http.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tsa_process.h"

namespace pipeline_adapters_tsa_http_test {

using namespace svc;
using pipeline::adapters::HttpTsa;

namespace {

std::unique_ptr<HttpTsa> Client(const std::string& url, const std::string& roots, const std::string& credentials = "") {
  static const core::SystemClock clock;
  HttpTsa::Options o;
  o.url = url;
  o.roots_pem = roots;
  o.user_password = credentials;
  o.timeout = std::chrono::milliseconds(5000);
  o.clock = &clock;
  auto c = HttpTsa::Create(std::move(o));
  REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  return std::move(*c);
}

}  // namespace

TEST_CASE("tsa over http: a token from OpenSSL's TSA, checked, that `openssl ts -verify` accepts offline") {
  testing::TempDir dir;
  testing::TsaProcess tsa(dir.path());
  auto client = Client(tsa.url(), tsa.roots_pem());
  const std::string digest = core::Sha256("a deletion certificate");
  auto token = client->Stamp(digest);
  REQUIRE_MESSAGE(token.ok(), token.status().ToString());
  CHECK(token->policy == "1.2.3.4.1");
  CHECK(token->tsa_subject.find("CN=Test TSA") != std::string::npos);
  CHECK(tsa.Granted() == 1);
  std::ofstream(dir.Sub("token.der"), std::ios::binary) << token->der;
  auto verified = testing::RunProgram("openssl", {"ts", "-verify", "-digest", core::HexEncode(digest), "-in",
                                                  dir.Sub("token.der"), "-token_in", "-CAfile", tsa.roots_file()});
  CHECK_MESSAGE(verified.exit_code == 0, verified.out << verified.err);

  SUBCASE("a TSA that is down or cannot be reached: unavailable, to be asked again") {
    tsa.SetMode("down");
    auto down = client->Stamp(digest);
    CHECK(down.status().code() == core::StatusCode::kUnavailable);
    CHECK(down.status().api_code() == "TIMESTAMP_UNAVAILABLE");
    auto nowhere = Client("http://127.0.0.1:1/tsa", tsa.roots_pem())->Stamp(digest);
    CHECK(nowhere.status().api_code() == "TIMESTAMP_UNAVAILABLE");
    tsa.SetMode("ok");
    CHECK(client->Stamp(digest).ok());
  }
  SUBCASE("an answer for another digest or with another nonce is refused") {
    tsa.SetMode("wrong-imprint");
    auto imprint = client->Stamp(digest);
    CHECK(imprint.status().api_code() == "TIMESTAMP_INVALID");
    CHECK(imprint.status().message().find("imprint") != std::string::npos);
    tsa.SetMode("wrong-nonce");
    auto nonce = client->Stamp(digest);
    CHECK(nonce.status().api_code() == "TIMESTAMP_INVALID");
    CHECK(nonce.status().message().find("nonce") != std::string::npos);
  }
  SUBCASE("a TSA under a root not configured is refused") {
    testing::TempDir other_dir;
    testing::TsaProcess other(other_dir.path());
    auto foreign = Client(other.url(), tsa.roots_pem())->Stamp(digest);
    CHECK(foreign.status().api_code() == "TIMESTAMP_INVALID");
  }
  SUBCASE("credentials: HTTP Basic when configured; without them the TSA says no") {
    tsa.RequireAuth("svc:s3cret");
    CHECK(client->Stamp(digest).status().api_code() == "TIMESTAMP_UNAVAILABLE");
    CHECK(Client(tsa.url(), tsa.roots_pem(), "svc:wrong")->Stamp(digest).status().api_code() == "TIMESTAMP_UNAVAILABLE");
    auto with = Client(tsa.url(), tsa.roots_pem(), "svc:s3cret")->Stamp(digest);
    CHECK_MESSAGE(with.ok(), with.status().ToString());
  }
}

TEST_CASE("tsa over http: a configuration that cannot work is refused at start") {
  static const core::SystemClock clock;
  HttpTsa::Options o;
  o.url = "http://127.0.0.1:1/tsa";
  o.clock = &clock;
  o.roots_pem = "not a certificate";
  CHECK(HttpTsa::Create(o).status().message().find("--tsa-roots") != std::string::npos);
  testing::TempDir dir;
  testing::TsaProcess tsa(dir.path());
  o.roots_pem = tsa.roots_pem();
  o.policy_oid = "not an oid";
  CHECK(!HttpTsa::Create(o).ok());
  o.policy_oid = "";
  o.url = "ftp://example/tsa";
  CHECK(HttpTsa::Create(o).status().message().find("--tsa-url") != std::string::npos);
}

}  // namespace pipeline_adapters_tsa_http_test
