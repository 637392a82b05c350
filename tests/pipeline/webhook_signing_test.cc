// Standard Webhooks signatures against the reference libraries' published vectors
// (../shared/docs/reference-vectors.md), and v1a (Ed25519) checked by OpenSSL.
#include <doctest/doctest.h>
#include <openssl/evp.h>

#include "core/crypto.h"
#include "pipeline/webhooks/signing.h"

namespace pipeline_webhook_signing_test {

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

namespace {

// An independent Ed25519 check (OpenSSL's EVP, not the libsodium we sign with).
bool OpensslEd25519Verify(const std::string& public_key, const std::string& message, const std::string& signature) {
  EVP_PKEY* key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                              reinterpret_cast<const unsigned char*>(public_key.data()),
                                              public_key.size());
  if (key == nullptr) return false;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, key) == 1 &&
            EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                             reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(key);
  return ok;
}

}  // namespace

TEST_CASE("webhook signing: v1a (Ed25519) signs with the whsk_ key, verifies with the whpk_ public key") {
  const std::string key = NewSigningKey();
  CHECK(key.rfind("whsk_", 0) == 0);
  CHECK(IsSigningKey(key));
  CHECK_FALSE(IsSigningKey(kKey1));
  CHECK(SchemeOf(key) == "v1a");
  CHECK(SchemeOf(kKey1) == "v1");
  CHECK(NewSigningKey() != key);
  auto pub = PublicKeyOf(key);
  REQUIRE(pub.ok());
  CHECK(pub->rfind("whpk_", 0) == 0);
  auto raw_pub = core::Base64Decode(pub->substr(5));
  REQUIRE(raw_pub.ok());
  CHECK(raw_pub->size() == 32);
  CHECK_FALSE(PublicKeyOf(kKey1).ok());

  auto sig = Sign(key, kId1, kTs1, kBody1);
  REQUIRE(sig.ok());
  CHECK(sig->rfind("v1a,", 0) == 0);
  CHECK(*Sign(key, kId1, kTs1, kBody1) == *sig);  // Ed25519 is deterministic
  auto raw_sig = core::Base64Decode(sig->substr(4));
  REQUIRE(raw_sig.ok());
  CHECK(raw_sig->size() == 64);
  const std::string content = kId1 + "." + std::to_string(kTs1) + "." + kBody1;
  CHECK(OpensslEd25519Verify(*raw_pub, content, *raw_sig));
  CHECK_FALSE(OpensslEd25519Verify(*raw_pub, content + " ", *raw_sig));

  const std::string ts = std::to_string(kTs1);
  CHECK(Verify(key, kId1, ts, kBody1, *sig, kTs1).ok());
  CHECK(VerifyWithPublicKey(*pub, kId1, ts, kBody1, *sig, kTs1).ok());
  // With a rotation's two entries (v1a of the old and new keys), either public key verifies.
  const std::string next = NewSigningKey();
  auto both = SignatureHeader({next, key}, kId1, kTs1, kBody1);
  REQUIRE(both.ok());
  CHECK(VerifyWithPublicKey(*pub, kId1, ts, kBody1, *both, kTs1).ok());
  CHECK(VerifyWithPublicKey(*PublicKeyOf(next), kId1, ts, kBody1, *both, kTs1).ok());
  // What must fail: another key, a changed body, a v1 entry carrying the same bytes, the window.
  CHECK_FALSE(VerifyWithPublicKey(*PublicKeyOf(next), kId1, ts, kBody1, *sig, kTs1).ok());
  CHECK_FALSE(VerifyWithPublicKey(*pub, kId1, ts, kBody1 + " ", *sig, kTs1).ok());
  CHECK_FALSE(VerifyWithPublicKey(*pub, kId1, ts, kBody1, "v1," + sig->substr(4), kTs1).ok());
  CHECK_FALSE(VerifyWithPublicKey(*pub, kId1, ts, kBody1, *sig, kTs1 + 301).ok());
  CHECK_FALSE(VerifyWithPublicKey(*pub, kId1, ts, kBody1, "v1a,AAAA", kTs1).ok());
  CHECK_FALSE(VerifyWithPublicKey("whpk_short", kId1, ts, kBody1, *sig, kTs1).ok());
  CHECK_FALSE(VerifyWithPublicKey(kKey1, kId1, ts, kBody1, *sig, kTs1).ok());
  CHECK_FALSE(Verify(kKey1, kId1, ts, kBody1, *sig, kTs1).ok());  // a v1 secret ignores v1a entries
  CHECK_FALSE(Verify(key, kId1, ts, kBody1, kSig1, kTs1).ok());   // and a v1a key v1 entries
  CHECK_FALSE(Sign("whsk_", kId1, kTs1, kBody1).ok());
  CHECK_FALSE(Sign("whsk_AAAA", kId1, kTs1, kBody1).ok());
}

}  // namespace pipeline_webhook_signing_test
