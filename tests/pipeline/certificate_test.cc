#include <doctest/doctest.h>

#include "core/crypto.h"
#include "pipeline/certificate.h"

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
  auto a = pipeline::SignCertificate(Content(), kMaster);
  auto b = pipeline::SignCertificate(Content(), kMaster);
  REQUIRE(a.ok());
  CHECK(*a == *b);  // byte-identical
  core::Json doc = core::ParseJsonOrDiscarded(*a);
  CHECK(doc["contentHash"].get<std::string>().size() == 64);
  CHECK(doc["signature"].get<std::string>().size() == 64);
  auto ok = pipeline::VerifyCertificate(*a, kMaster);
  REQUIRE(ok.ok());
  CHECK(ok->valid());
  // Re-formatting does not matter (verification canonicalises first).
  CHECK(pipeline::VerifyCertificate(doc.dump(2), kMaster)->valid());

  std::string tampered = *a;
  size_t at = tampered.find("approved");
  tampered[at] = 'A';  // one byte
  auto bad = pipeline::VerifyCertificate(tampered, kMaster);
  REQUIRE(bad.ok());
  CHECK_FALSE(bad->content_hash_valid);
  CHECK_FALSE(bad->signature_valid);
  // The wrong key (another deployment, tenant or environment) fails the signature only.
  auto other = pipeline::VerifyCertificate(*a, std::string(32, 'x'));
  CHECK(other->content_hash_valid);
  CHECK_FALSE(other->signature_valid);
  CHECK(pipeline::CertificateKey(kMaster, "ten_a", "test") !=
        pipeline::CertificateKey(kMaster, "ten_a", "live"));
  CHECK_FALSE(pipeline::SignCertificate({{"x", 1}}, kMaster).ok());
  CHECK_FALSE(pipeline::VerifyCertificate("not json", kMaster).ok());
}
