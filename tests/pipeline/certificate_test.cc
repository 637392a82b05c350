#include <doctest/doctest.h>

#include "core/canonical_json.h"
#include "core/crypto.h"
#include "pipeline/certificate.h"

namespace pipeline_certificate_test {

using namespace svc;

namespace {
core::Json Content() {
  return {{"sessionId", "vrf_0123456789abcdef0123456789abcdef"},
          {"tenantId", "ten_0123456789abcdef0123456789abcdef"},
          {"environment", "test"},
          {"verificationStatus", "approved"},
          {"outcome", "approved"},
          {"trustScore", 0.92},
          {"reasonCodes", core::Json::array()},
          {"biometric", core::Json::array({{{"checkType", "face_match"}, {"score", 0.97},
                                            {"threshold", 0.8}, {"passed", true},
                                            {"modelName", "dlib_resnet_v1"}}})},
          {"decidedAt", "2026-11-22T15:00:00.000Z"}};
}
const std::string kMaster(32, 'k');
}  // namespace

TEST_CASE("certificate: deterministic, verifiable, and any change fails") {
  const std::string root = pipeline::CertificateRootKey(kMaster);
  const pipeline::CertificateKeys with_root{root, std::nullopt};
  auto a = pipeline::SignCertificate(Content(), root);
  auto b = pipeline::SignCertificate(Content(), root);
  REQUIRE(a.ok());
  CHECK(*a == *b);  // byte-identical (Ed25519 signatures are deterministic)
  core::Json doc = core::ParseJsonOrDiscarded(*a);
  CHECK(doc["contentHash"].get<std::string>().size() == 64);
  CHECK(doc["signature"].get<std::string>().size() == 64);
  CHECK(doc["signatureEd25519"].get<std::string>().size() == 128);
  CHECK(doc["signingKeyId"].get<std::string>().rfind("ed25519:", 0) == 0);
  auto ok = pipeline::VerifyCertificate(*a, with_root);
  REQUIRE(ok.ok());
  CHECK(ok->valid());
  CHECK(ok->hmac_valid == true);
  CHECK(ok->ed25519_valid == true);
  CHECK(ok->not_checked.empty());
  // Re-formatting does not matter (verification canonicalises first).
  CHECK(pipeline::VerifyCertificate(doc.dump(2), with_root)->valid());

  std::string tampered = *a;
  size_t at = tampered.find("approved");
  tampered[at] = 'A';  // one byte
  auto bad = pipeline::VerifyCertificate(tampered, with_root);
  REQUIRE(bad.ok());
  CHECK_FALSE(bad->content_hash_valid);
  CHECK(bad->hmac_valid == false);
  CHECK(bad->ed25519_valid == false);
  CHECK_FALSE(bad->valid());
  // The wrong key (another deployment, tenant or environment) fails the signatures only.
  auto other = pipeline::VerifyCertificate(*a, {pipeline::CertificateRootKey(std::string(32, 'x')), std::nullopt});
  CHECK(other->content_hash_valid);
  CHECK(other->hmac_valid == false);
  CHECK(other->ed25519_valid == false);
  CHECK(pipeline::CertificateKey(root, "ten_a", "test") != pipeline::CertificateKey(root, "ten_a", "live"));
  CHECK(pipeline::CertificateSigningKey(root, "ten_a", "test").public_key !=
        pipeline::CertificateSigningKey(root, "ten_a", "live").public_key);
  CHECK_FALSE(pipeline::SignCertificate({{"x", 1}}, root).ok());
  CHECK_FALSE(pipeline::VerifyCertificate("not json", with_root).ok());
}

TEST_CASE("certificate: the Ed25519 signature checks with the public key alone") {
  const std::string root = pipeline::CertificateRootKey(kMaster);
  auto a = pipeline::SignCertificate(Content(), root);
  REQUIRE(a.ok());
  core::Json content = Content();
  std::string pk = pipeline::CertificateSigningKey(root, content["tenantId"].get<std::string>(), "test").public_key;
  auto ok = pipeline::VerifyCertificate(*a, {std::nullopt, pk});
  REQUIRE(ok.ok());
  CHECK(ok->valid());
  CHECK(ok->ed25519_valid == true);
  CHECK_FALSE(ok->hmac_valid.has_value());  // not checked, and said so
  REQUIRE(ok->not_checked.size() == 1);
  CHECK(ok->not_checked[0].find("HMAC") != std::string::npos);
  // The live key of the same tenant is not the test key.
  std::string live = pipeline::CertificateSigningKey(root, content["tenantId"].get<std::string>(), "live").public_key;
  CHECK_FALSE(pipeline::VerifyCertificate(*a, {std::nullopt, live})->valid());
  // Nothing to check with: not valid, and it says what could not be checked.
  auto none = pipeline::VerifyCertificate(*a, {});
  CHECK(none->content_hash_valid);
  CHECK_FALSE(none->valid());
  CHECK(none->not_checked.size() == 2);
  // A changed verdict fails, however it is formatted.
  core::Json doc = core::ParseJsonOrDiscarded(*a);
  doc["outcome"] = "declined";
  doc["contentHash"] = core::Sha256Hex(*core::CanonicalJson([&] {
    core::Json c = doc;
    for (const char* k : {"contentHash", "signature", "signatureEd25519", "signingKeyId"}) c.erase(k);
    return c;
  }()));  // even with the hash recomputed
  auto forged = pipeline::VerifyCertificate(doc.dump(), {std::nullopt, pk});
  CHECK(forged->content_hash_valid);
  CHECK(forged->ed25519_valid == false);
  CHECK_FALSE(forged->valid());
}

}  // namespace pipeline_certificate_test
