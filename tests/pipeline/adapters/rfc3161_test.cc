// RFC 3161 against OpenSSL's own TSA (`openssl ts -reply`) and verifier (`openssl ts -verify`):
// a root and a TSA certificate made with `openssl` here (the TSA's with the critical timeStamping
// key usage), our request answered by OpenSSL, the answer checked by us, the token we keep checked
// by OpenSSL offline; then each refusal: another digest, another nonce, another root, another
// policy, a time too far off, a tampered token, a TSA that refuses, bytes that are no answer.
#include <doctest/doctest.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "core/clock.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/adapters/rfc3161.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace pipeline_adapters_rfc3161_test {

using namespace svc;
namespace ts = svc::pipeline::rfc3161;
using svc::testing::RunProgram;

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

void Openssl(const std::vector<std::string>& args) {
  auto r = RunProgram("openssl", args);
  REQUIRE_MESSAGE(r.exit_code == 0, "openssl " << args[0] << ": " << r.err);
}

// A CA root and a TSA certificate under it, and the TSA's configuration for `openssl ts -reply`
// (default policy 1.2.3.4.1, also 1.2.3.4.5).
struct LocalTsa {
  testing::TempDir dir;
  std::string root_pem;

  LocalTsa() {
    const std::string d = dir.path();
    Openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
             d + "/root.key", "-out", d + "/root.pem", "-days", "2", "-subj", "/CN=Test TSA Root"});
    Openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", d + "/tsa.key",
             "-out", d + "/tsa.csr", "-subj", "/O=Sello de Tiempo de Prueba/CN=Test TSA"});
    WriteAll(d + "/ext.cnf",
             "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping\n");
    Openssl({"x509", "-req", "-in", d + "/tsa.csr", "-CA", d + "/root.pem", "-CAkey", d + "/root.key",
             "-CAcreateserial", "-out", d + "/tsa.pem", "-days", "2", "-extfile", d + "/ext.cnf"});
    WriteAll(d + "/serial", "01\n");
    WriteAll(d + "/tsa.cnf", "[ tsa ]\ndefault_tsa = tsa_config1\n[ tsa_config1 ]\n"
                             "serial = " + d + "/serial\ncrypto_device = builtin\n"
                             "signer_cert = " + d + "/tsa.pem\ncerts = " + d + "/tsa.pem\n"
                             "signer_key = " + d + "/tsa.key\nsigner_digest = sha256\n"
                             "default_policy = 1.2.3.4.1\nother_policies = 1.2.3.4.5\ndigests = sha256\n"
                             "accuracy = secs:1\nclock_precision_digits = 0\nordering = no\ntsa_name = yes\n"
                             "ess_cert_id_chain = no\ness_cert_id_alg = sha256\n");
    root_pem = ReadAll(d + "/root.pem");
  }

  // OpenSSL's answer to `request`.
  std::string Reply(const ts::Request& request) {
    WriteAll(dir.Sub("req.der"), request.der);
    Openssl({"ts", "-reply", "-config", dir.Sub("tsa.cnf"), "-queryfile", dir.Sub("req.der"), "-out",
             dir.Sub("resp.der")});
    return ReadAll(dir.Sub("resp.der"));
  }
};

}  // namespace

TEST_CASE("rfc3161: OpenSSL's TSA answers our request, we check the answer, OpenSSL checks the token we keep") {
  LocalTsa tsa;
  const std::string digest = core::Sha256("a verdict certificate");
  auto request = ts::MakeRequest(digest, "");
  REQUIRE(request.ok());
  CHECK(request->nonce.size() == 8);
  // OpenSSL reads our request as we meant it.
  WriteAll(tsa.dir.Sub("q.der"), request->der);
  auto text = RunProgram("openssl", {"ts", "-query", "-in", tsa.dir.Sub("q.der"), "-text"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("Hash Algorithm: sha256") != std::string::npos);
  CHECK(text.out.find("Certificate required: yes") != std::string::npos);

  const std::string answer = tsa.Reply(*request);
  const ts::Trust trust{tsa.root_pem, "", std::chrono::seconds(300)};
  const core::Timestamp now = core::SystemClock().Now();
  auto token = ts::VerifyResponse(answer, *request, trust, now);
  REQUIRE_MESSAGE(token.ok(), token.status().ToString());
  CHECK(token->policy == "1.2.3.4.1");
  // The serial and the time OpenSSL says it put in the token.
  auto shown = RunProgram("openssl", {"ts", "-reply", "-in", tsa.dir.Sub("resp.der"), "-text"});
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("Serial number: 0x" + token->serial_hex) != std::string::npos);
  CHECK(shown.out.find("Status: Granted.") != std::string::npos);
  std::string nonce_hex = core::HexEncode(request->nonce);  // OpenSSL prints it in capitals
  for (char& c : nonce_hex) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(shown.out.find("Nonce: 0x" + nonce_hex) != std::string::npos);
  CHECK(token->tsa_subject.find("CN=Test TSA") != std::string::npos);
  CHECK(std::llabs(token->gen_time.micros - now.micros) < 120LL * 1000000);

  // The token alone, later, as an auditor checks it: by us, and by stock `openssl ts -verify`.
  auto again = ts::VerifyToken(token->der, digest, trust);
  REQUIRE_MESSAGE(again.ok(), again.status().ToString());
  CHECK(again->serial_hex == token->serial_hex);
  WriteAll(tsa.dir.Sub("token.der"), token->der);
  auto verified = RunProgram("openssl", {"ts", "-verify", "-digest", core::HexEncode(digest), "-in",
                                         tsa.dir.Sub("token.der"), "-token_in", "-CAfile", tsa.dir.Sub("root.pem")});
  CHECK_MESSAGE(verified.exit_code == 0, verified.out << verified.err);
  CHECK(verified.out.find("Verification: OK") != std::string::npos);
  // And OpenSSL refuses the token for another digest, as we do.
  auto other = RunProgram("openssl", {"ts", "-verify", "-digest", core::Sha256Hex("another document"), "-in",
                                      tsa.dir.Sub("token.der"), "-token_in", "-CAfile", tsa.dir.Sub("root.pem")});
  CHECK(other.exit_code != 0);
  CHECK(ts::VerifyToken(token->der, core::Sha256("another document"), trust).status().api_code() ==
        "TIMESTAMP_INVALID");

  SUBCASE("a policy asked for is the one granted") {
    auto with_policy = ts::MakeRequest(digest, "1.2.3.4.5");
    REQUIRE(with_policy.ok());
    auto granted = ts::VerifyResponse(tsa.Reply(*with_policy), *with_policy, trust, now);
    REQUIRE_MESSAGE(granted.ok(), granted.status().ToString());
    CHECK(granted->policy == "1.2.3.4.5");
  }
}

TEST_CASE("rfc3161: an answer is refused for another digest, nonce, root, policy or time, when tampered, when the "
          "TSA refuses, and when it is no answer") {
  LocalTsa tsa;
  const std::string digest = core::Sha256("a deletion certificate");
  auto request = ts::MakeRequest(digest, "");
  REQUIRE(request.ok());
  const std::string answer = tsa.Reply(*request);
  const ts::Trust trust{tsa.root_pem, "", std::chrono::seconds(300)};
  const core::Timestamp now = core::SystemClock().Now();
  REQUIRE(ts::VerifyResponse(answer, *request, trust, now).ok());
  auto refused = [&](const ts::Request& r, const ts::Trust& t, core::Timestamp at, std::string_view bytes) {
    auto v = ts::VerifyResponse(bytes, r, t, at);
    CAPTURE(v.ok() ? std::string("accepted") : v.status().ToString());
    return !v.ok() ? v.status().api_code() : std::string("accepted");
  };

  ts::Request other_digest = *request;
  other_digest.digest = core::Sha256("something else");
  CHECK(refused(other_digest, trust, now, answer) == "TIMESTAMP_INVALID");

  ts::Request other_nonce = *request;  // an answer replayed for another request
  other_nonce.nonce[7] = static_cast<char>(other_nonce.nonce[7] ^ 1);
  CHECK(refused(other_nonce, trust, now, answer) == "TIMESTAMP_INVALID");

  LocalTsa stranger;  // a TSA chaining to a root nobody configured
  CHECK(refused(*request, ts::Trust{stranger.root_pem, "", std::chrono::seconds(300)}, now, answer) ==
        "TIMESTAMP_INVALID");

  CHECK(refused(*request, ts::Trust{tsa.root_pem, "1.2.3.4.5", std::chrono::seconds(300)}, now, answer) ==
        "TIMESTAMP_INVALID");

  CHECK(refused(*request, trust, core::Timestamp{now.micros + 3600LL * 1000000}, answer) == "TIMESTAMP_INVALID");

  std::string tampered = answer;  // one bit of the signed content flipped near the end
  tampered[tampered.size() - 40] = static_cast<char>(tampered[tampered.size() - 40] ^ 0x01);
  CHECK(refused(*request, trust, now, tampered) == "TIMESTAMP_INVALID");

  CHECK(refused(*request, trust, now, "not DER at all") == "TIMESTAMP_INVALID");
  CHECK(refused(*request, trust, now, answer + "x") == "TIMESTAMP_INVALID");

  // A policy the TSA does not serve: it answers with a rejection, which we report as its refusal.
  auto unknown_policy = ts::MakeRequest(digest, "1.2.3.4.99");
  REQUIRE(unknown_policy.ok());
  CHECK(refused(*unknown_policy, trust, now, tsa.Reply(*unknown_policy)) == "TIMESTAMP_REFUSED");

  CHECK(ts::MakeRequest("short", "").status().code() == core::StatusCode::kInvalidArgument);
  CHECK(ts::MakeRequest(digest, "not an oid").status().code() == core::StatusCode::kInvalidArgument);
  CHECK(ts::VerifyToken("junk", digest, trust).status().api_code() == "TIMESTAMP_INVALID");
}

}  // namespace pipeline_adapters_rfc3161_test
