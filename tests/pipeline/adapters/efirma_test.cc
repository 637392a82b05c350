// The e.firma checks (pipeline/adapters/efirma.h) against a SAT-like CA made by the openssl
// command line (tests/efirma/sat_ca.py: RFC in x500UniqueIdentifier, CURP in serialNumber, a CSD
// with its branch in the OU, an expired, a revoked and a foreign certificate) and OpenSSL's own
// OCSP responder (`openssl ocsp`, answering the requests our code makes).
#include "pipeline/adapters/efirma.h"

#include <doctest/doctest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdlib>
#include <fstream>

#include "core/clock.h"
#include "core/crypto.h"
#include "pipeline/adapters/efirma_http.h"
#include "tests/support/sat_ca_process.h"
#include "tests/support/temp_dir.h"

namespace pipeline_adapters_efirma_test {

namespace ef = svc::pipeline::efirma;
using svc::testing::ReadFile;

namespace {

// The CA, made once for the test binary's run.
const std::string& CaDir() {
  static svc::testing::TempDir dir;
  static const bool made = [] {
    const std::string cmd = "python3 " + std::string(SVC_TEST_SOURCE_DIR) + "/efirma/sat_ca.py " + dir.path() + "/ca";
    return std::system(cmd.c_str()) == 0;
  }();
  REQUIRE(made);
  static const std::string path = dir.path() + "/ca";
  return path;
}

std::string File(const std::string& name) { return ReadFile(CaDir() + "/" + name); }

// `message` signed with SHA-256 by the unencrypted PEM key `name`.pem.key (what the browser does
// with the .key once the password opens it).
std::string Sign(const std::string& name, const std::string& message) {
  const std::string pem = File(name + ".pem.key");
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  REQUIRE(key != nullptr);
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  size_t len = 0;
  REQUIRE(EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, key) == 1);
  REQUIRE(EVP_DigestSign(md, nullptr, &len, reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1);
  std::string sig(len, '\0');
  REQUIRE(EVP_DigestSign(md, reinterpret_cast<unsigned char*>(sig.data()), &len,
                         reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1);
  sig.resize(len);
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(key);
  return sig;
}

std::shared_ptr<const ef::Trust> SatTrust() {
  auto t = ef::Trust::FromPem(File("sat_root.pem"));
  REQUIRE_MESSAGE(t.ok(), t.status().ToString());
  return *t;
}

ef::Certificate Cert(const std::string& name) {
  auto c = ef::ParseCertificate(File(name + ".cer"));
  REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  return *c;
}

// OpenSSL's responder's answer to `request` (a file round trip through `openssl ocsp`).
std::string Answer(const std::string& request_der) {
  svc::testing::TempDir t;
  std::ofstream(t.Sub("q.der"), std::ios::binary) << request_der;
  const std::string d = CaDir();
  const std::string cmd = "openssl ocsp -index " + d + "/index.txt -CA " + d + "/sat_root.pem -rsigner " + d +
                          "/ocsp.pem -rkey " + d + "/ocsp.key.pem -reqin " + t.Sub("q.der") + " -respout " +
                          t.Sub("r.der") + " -ndays 1 >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return ReadFile(t.Sub("r.der"));
}

}  // namespace

TEST_CASE("efirma: a SAT e.firma certificate is read: RFC, CURP, name, validity, key usage") {
  REQUIRE(svc::core::InitCrypto().ok());
  ef::Certificate c = Cert("fiel");
  CHECK(c.rfc == "PEPJ800101AB6");
  CHECK(c.curp == "PEPJ800101HDFRRN03");
  CHECK(c.subject_name == "JOSE PEREZ PEREZ");
  CHECK(c.organizational_unit.empty());
  CHECK(c.digital_signature);
  CHECK(c.non_repudiation);
  CHECK(c.sha256_hex == svc::core::Sha256Hex(File("fiel.cer")));
  CHECK(c.issuer.find("AC DE PRUEBAS DEL SAT") != std::string::npos);
  CHECK(c.not_after_micros > c.not_before_micros);
  CHECK(ef::ParseCertificate(File("fiel.pem"))->sha256_hex == c.sha256_hex);  // PEM reads the same
  CHECK(Cert("csd").organizational_unit == "Sucursal Centro");
  CHECK(c.data_encipherment);
  CHECK(c.key_agreement);
  CHECK(c.key_type == "RSA");
  CHECK(c.key_bits == 2048);
  CHECK_FALSE(Cert("csd_no_ou").key_agreement);
  CHECK(Cert("fiel_ec").key_type == "EC");
  CHECK(Cert("fiel_rsa1024").key_bits == 1024);
  {
    // Not DER (issue 68): the same certificate with its outer length in one byte more than it
    // needs (BER allows it, DER does not), as DER and inside PEM.
    const std::string der = File("fiel.cer");
    REQUIRE(static_cast<unsigned char>(der[1]) == 0x82);
    const std::string ber = der.substr(0, 1) + std::string("\x83\x00", 2) + der.substr(2);
    auto r = ef::ParseCertificate(ber);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().api_code() == "EFIRMA_CERT_NOT_READY");
    auto pem_of = [](const std::string& bytes) {
      const std::string b64 = svc::core::Base64Encode(bytes);
      std::string pem = "-----BEGIN CERTIFICATE-----\n";
      for (size_t i = 0; i < b64.size(); i += 64) pem += b64.substr(i, 64) + "\n";
      return pem + "-----END CERTIFICATE-----\n";
    };
    REQUIRE(ef::ParseCertificate(pem_of(der)).ok());  // the same wrapping of the DER reads
    CHECK(ef::ParseCertificate(pem_of(ber)).status().api_code() == "EFIRMA_CERT_NOT_READY");
  }
  // Not a certificate: EFIRMA_CERT_NOT_READY, whatever the bytes.
  for (const std::string& bad : {std::string(), std::string("hola"), File("fiel.cer").substr(0, 100),
                                File("fiel.cer") + "x", File("fiel.key")}) {
    auto r = ef::ParseCertificate(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().api_code() == "EFIRMA_CERT_NOT_READY");
  }
  CHECK_FALSE(ef::Trust::FromPem("no certificates here").ok());
  CHECK(SatTrust()->size() == 1);
}

TEST_CASE("efirma: the possession proof holds for the holder's key only, on a valid FIEL of the SAT") {
  REQUIRE(svc::core::InitCrypto().ok());
  auto trust = SatTrust();
  const svc::core::Timestamp now = svc::core::SystemClock().Now();
  const std::string challenge = "svc e.firma\nsession: vrf_1\nnonce: 3q2-7w\n";
  ef::Check ok = ef::CheckEfirma(*trust, Cert("fiel"), challenge, Sign("fiel", challenge), now);
  CHECK_MESSAGE(ok.passed(), ok.reasons.size());
  CHECK(svc::core::Sha256Hex(ok.issuer_der) == svc::core::Sha256Hex(ef::ParseCertificate(File("sat_root.pem"))->der));
  auto reasons = [&](const std::string& cert, const std::string& key, std::string signature = "") {
    if (signature.empty()) signature = Sign(key, challenge);
    return ef::CheckEfirma(*trust, Cert(cert), challenge, signature, now).reasons;
  };
  using V = std::vector<std::string>;
  CHECK(reasons("fiel", "fiel_other") == V{"EFIRMA_SIGNATURE_INVALID"});  // another person's key
  std::string tampered = Sign("fiel", challenge);
  tampered[10] ^= 0x01;
  CHECK(reasons("fiel", "fiel", tampered) == V{"EFIRMA_SIGNATURE_INVALID"});
  CHECK(ef::CheckEfirma(*trust, Cert("fiel"), challenge + "x", Sign("fiel", challenge), now).reasons ==
        V{"EFIRMA_SIGNATURE_INVALID"});  // another challenge
  CHECK(reasons("fiel_expired", "fiel_expired") == V{"EFIRMA_EXPIRED"});
  CHECK(reasons("csd", "csd") == V{"EFIRMA_NOT_FIEL"});
  // Issue 68, item 3: each passed before (fail-open).
  CHECK(reasons("csd_no_ou", "csd_no_ou") == V{"EFIRMA_NOT_FIEL"});  // a CSD by its key usage
  CHECK(reasons("fiel_no_holder", "fiel_no_holder") == V{"EFIRMA_HOLDER_UNKNOWN"});
  CHECK(reasons("fiel_ec", "fiel_ec") == V{"EFIRMA_KEY_UNSUPPORTED"});
  CHECK(reasons("fiel_rsa1024", "fiel_rsa1024") == V{"EFIRMA_KEY_UNSUPPORTED"});
  CHECK(reasons("foreign", "foreign") == V{"EFIRMA_CHAIN_UNTRUSTED"});
  // At a time before the certificate: not yet valid.
  CHECK(ef::CheckEfirma(*trust, Cert("fiel"), challenge, Sign("fiel", challenge),
                        svc::core::Timestamp{Cert("fiel").not_before_micros - 86'400'000'000})
            .reasons.size() == 1);
}

TEST_CASE("efirma: OCSP requests answered by OpenSSL's responder: good, revoked, replayed, altered") {
  REQUIRE(svc::core::InitCrypto().ok());
  auto trust = SatTrust();
  const svc::core::Timestamp now = svc::core::SystemClock().Now();
  const std::string issuer = ef::ParseCertificate(File("sat_root.pem"))->der;
  auto req = ef::MakeOcspRequest(Cert("fiel"), issuer);
  REQUIRE(req.ok());
  auto good = ef::CheckOcspResponse(Answer(req->der), *req, *trust, now);
  REQUIRE_MESSAGE(good.ok(), good.status().ToString());
  CHECK(good->status == "good");
  auto rreq = ef::MakeOcspRequest(Cert("fiel_revoked"), issuer);
  REQUIRE(rreq.ok());
  auto revoked = ef::CheckOcspResponse(Answer(rreq->der), *rreq, *trust, now);
  REQUIRE_MESSAGE(revoked.ok(), revoked.status().ToString());
  CHECK(revoked->status == "revoked");
  CHECK(revoked->revoked_at_micros > 0);
  // Another request's answer (its nonce), an answer for another certificate, altered bytes, and
  // an answer judged a day later than it was current: refused.
  auto again = ef::MakeOcspRequest(Cert("fiel"), issuer);
  REQUIRE(again.ok());
  const std::string first = Answer(req->der);
  CHECK(ef::CheckOcspResponse(first, *again, *trust, now).status().message().find("nonce") != std::string::npos);
  CHECK_FALSE(ef::CheckOcspResponse(Answer(rreq->der), *req, *trust, now).ok());
  std::string altered = first;
  altered[altered.size() - 20] ^= 0x01;
  CHECK_FALSE(ef::CheckOcspResponse(altered, *req, *trust, now).ok());
  CHECK_FALSE(ef::CheckOcspResponse("not ocsp", *req, *trust, now).ok());
  CHECK_FALSE(ef::CheckOcspResponse(first, *req, *trust, svc::core::Timestamp{now.micros + 3 * 86'400'000'000}).ok());
  // Signed by nobody the SAT trusts: the foreign CA's root as the only trust.
  auto foreign = ef::Trust::FromPem(File("foreign_root.pem"));
  REQUIRE(foreign.ok());
  CHECK_FALSE(ef::CheckOcspResponse(first, *req, **foreign, now).ok());
}

TEST_CASE("efirma verifier: the proof, then revocation asked of the SAT-like responder over HTTP") {
  REQUIRE(svc::core::InitCrypto().ok());
  svc::testing::SatCaProcess ca(CaDir());  // the CA made once for the binary (its keys take seconds)
  svc::core::SystemClock clock;
  auto make = [&](const std::string& url) {
    svc::pipeline::adapters::EfirmaVerifier::Options o;
    o.roots_pem = ca.read("sat_root.pem");
    o.ocsp_url = url;
    o.clock = &clock;
    auto v = svc::pipeline::adapters::EfirmaVerifier::Create(o);
    REQUIRE_MESSAGE(v.ok(), v.status().ToString());
    return std::move(*v);
  };
  auto verifier = make(ca.ocsp_url());
  const std::string challenge = "svc e.firma\nchallenge: efc_1\n";
  auto sign = [&](const std::string& name) { return ca.Sign(name, challenge); };
  auto good = verifier->Verify(ca.read("fiel.cer"), challenge, sign("fiel"));
  REQUIRE_MESSAGE(good.ok(), good.status().ToString());
  CHECK(good->passed());
  CHECK(good->ocsp == "good");
  CHECK(good->certificate.rfc == "PEPJ800101AB6");
  auto revoked = verifier->Verify(ca.read("fiel_revoked.cer"), challenge, sign("fiel_revoked"));
  REQUIRE(revoked.ok());
  CHECK(revoked->reasons == std::vector<std::string>{"EFIRMA_REVOKED"});
  auto foreign = verifier->Verify(ca.read("foreign.cer"), challenge, sign("foreign"));
  REQUIRE(foreign.ok());
  CHECK(foreign->ocsp == "skipped");
  CHECK(foreign->reasons == std::vector<std::string>{"EFIRMA_CHAIN_UNTRUSTED"});
  CHECK(ca.Answered() == 2);
  ca.SetMode("down");
  auto down = verifier->Verify(ca.read("fiel.cer"), challenge, sign("fiel"));
  REQUIRE(down.ok());
  CHECK(down->ocsp == "unavailable");
  CHECK(down->reasons == std::vector<std::string>{"EFIRMA_OCSP_UNAVAILABLE"});  // fails closed
  ca.SetMode("ok");
  auto unchecked = make("")->Verify(ca.read("fiel_revoked.cer"), challenge, sign("fiel_revoked"));
  REQUIRE(unchecked.ok());
  CHECK(unchecked->ocsp == "not_checked");
  CHECK(unchecked->passed());
  CHECK(make(ca.ocsp_url())->Verify("not a certificate", challenge, "x").status().api_code() == "EFIRMA_CERT_NOT_READY");
}

}  // namespace pipeline_adapters_efirma_test
