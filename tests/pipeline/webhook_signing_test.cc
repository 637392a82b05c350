// Standard Webhooks signatures against the reference libraries' published vectors
// (../shared/docs/reference-vectors.md).
#include <doctest/doctest.h>

#include "core/crypto.h"
#include "pipeline/webhooks/signing.h"

using namespace svc;
using namespace svc::pipeline::webhooks;

namespace {
const std::string kKey1 = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const std::string kId1 = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const int64_t kTs1 = 1614265330;
const std::string kBody1 = R"({"test": 2432232314})";
const std::string kSig1 = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
}  // namespace

TEST_CASE("webhook signing: the published vectors") {
  auto s1 = Sign(kKey1, kId1, kTs1, kBody1);
  REQUIRE(s1.ok());
  CHECK(*s1 == kSig1);
  auto s2 = Sign("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk", 1649367553,
                 R"({"email":"test@example.com","username":"test_user"})");
  REQUIRE(s2.ok());
  CHECK(*s2 == "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=");
  CHECK(Verify(kKey1, kId1, std::to_string(kTs1), kBody1, kSig1, kTs1).ok());
}

TEST_CASE("webhook signing: what must fail") {
  auto bad = [&](const std::string& sig) { return Verify(kKey1, kId1, std::to_string(kTs1), kBody1, sig, kTs1); };
  CHECK_FALSE(bad("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=").ok());
  CHECK_FALSE(bad("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=").ok());  // last character changed
  CHECK_FALSE(bad("v1,").ok());
  CHECK_FALSE(bad(kSig1.substr(0, 8)).ok());
  CHECK_FALSE(bad("").ok());
  CHECK_FALSE(bad("v2," + kSig1.substr(3)).ok());  // another scheme's entry is not ours
  CHECK_FALSE(Verify(kKey1, "", std::to_string(kTs1), kBody1, kSig1, kTs1).ok());
  CHECK_FALSE(Verify(kKey1, kId1, "", kBody1, kSig1, kTs1).ok());
  CHECK_FALSE(Verify(kKey1, kId1, "hello", kBody1, kSig1, kTs1).ok());
  CHECK_FALSE(Verify(kKey1, kId1, std::to_string(kTs1), kBody1 + " ", kSig1, kTs1).ok());  // body changed
  // The timestamp window: 300 s either way.
  CHECK(Verify(kKey1, kId1, std::to_string(kTs1), kBody1, kSig1, kTs1 + 300).ok());
  CHECK_FALSE(Verify(kKey1, kId1, std::to_string(kTs1), kBody1, kSig1, kTs1 + 301).ok());
  CHECK(Verify(kKey1, kId1, std::to_string(kTs1), kBody1, kSig1, kTs1 - 300).ok());
  CHECK_FALSE(Verify(kKey1, kId1, std::to_string(kTs1), kBody1, kSig1, kTs1 - 301).ok());
  // Secrets that are not whsec_ + base64.
  CHECK_FALSE(Sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", kId1, kTs1, kBody1).ok());
  CHECK_FALSE(Sign("whsec_!!!", kId1, kTs1, kBody1).ok());
  CHECK_FALSE(Sign("whsec_", kId1, kTs1, kBody1).ok());
}

TEST_CASE("webhook signing: several signatures after a rotation, new secrets") {
  std::string fresh = NewSecret();
  CHECK(fresh.rfind("whsec_", 0) == 0);
  auto key = SecretKey(fresh);
  REQUIRE(key.ok());
  CHECK(key->size() == 32);
  CHECK(NewSecret() != fresh);
  // Base64 and base64url read every secret alike (the interface spec says base64url, Standard
  // Webhooks libraries decode base64).
  for (int i = 0; i < 200; ++i) {
    std::string s = NewSecret();
    CHECK(s.size() == 6 + 44);
    CHECK(s.find_first_of("+/-_", 6) == std::string::npos);
  }
  auto header = SignatureHeader({fresh, kKey1}, kId1, kTs1, kBody1);
  REQUIRE(header.ok());
  CHECK(header->find(' ') != std::string::npos);
  // A receiver holding either secret accepts the message.
  CHECK(Verify(fresh, kId1, std::to_string(kTs1), kBody1, *header, kTs1).ok());
  CHECK(Verify(kKey1, kId1, std::to_string(kTs1), kBody1, *header, kTs1).ok());
  CHECK_FALSE(Verify(NewSecret(), kId1, std::to_string(kTs1), kBody1, *header, kTs1).ok());
}
