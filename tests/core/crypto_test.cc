#include <doctest/doctest.h>

#include "core/crypto.h"
#include "core/ids.h"

namespace core_crypto_test {

using namespace svc::core;

TEST_CASE("SHA-256 known answers") {
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("HMAC-SHA256: RFC 4231 test cases 1 and 2") {
  CHECK(HexEncode(HmacSha256(std::string(20, '\x0b'), "Hi There")) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Case 6: a key longer than the block size is hashed first.
  CHECK(HexEncode(HmacSha256(std::string(131, '\xaa'),
                             "Test Using Larger Than Block-Size Key - Hash Key First")) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("Standard Webhooks vector: HMAC over id.timestamp.payload with the decoded secret") {
  auto key = Base64Decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  REQUIRE(key.ok());
  std::string signed_content = "msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{\"test\": 2432232314}";
  CHECK(Base64Encode(HmacSha256(*key, signed_content)) ==
        "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

TEST_CASE("AEAD: round trip, and any change to ciphertext or AAD fails") {
  std::string key = RandomBytes(32);
  std::string sealed = AeadSeal(key, "CURP value", "ten_x|test|per_y|curp|1");
  CHECK(*AeadOpen(key, sealed, "ten_x|test|per_y|curp|1") == "CURP value");
  CHECK_FALSE(AeadOpen(key, sealed, "ten_x|test|per_y|rfc|1").ok());
  std::string tampered = sealed;
  tampered[tampered.size() - 1] ^= 1;
  CHECK_FALSE(AeadOpen(key, tampered, "ten_x|test|per_y|curp|1").ok());
  CHECK_FALSE(AeadOpen(RandomBytes(32), sealed, "ten_x|test|per_y|curp|1").ok());
  CHECK(AeadSeal(key, "same", "") != AeadSeal(key, "same", ""));  // fresh nonce each time
}

TEST_CASE("constant-time compare, base64 variants, subkeys") {
  CHECK(ConstantTimeEquals("abc", "abc"));
  CHECK_FALSE(ConstantTimeEquals("abc", "abd"));
  CHECK_FALSE(ConstantTimeEquals("abc", "abcd"));
  CHECK(Base64UrlEncode(std::string("\xfb\xff", 2)) == "-_8");
  CHECK(*Base64UrlDecode("-_8") == std::string("\xfb\xff", 2));
  CHECK_FALSE(Base64Decode("not base64!").ok());
  std::string master(32, 'm');
  CHECK(DeriveSubkey(master, "a") != DeriveSubkey(master, "b"));
  CHECK(DeriveSubkey(master, "a") == DeriveSubkey(master, "a"));
}

TEST_CASE("X25519 sealed boxes: only the recipient opens; a secret key gives back its public key") {
  X25519KeyPair k = X25519Generate();
  CHECK(k.public_key.size() == 32);
  auto again = X25519FromSecret(k.secret_key);
  REQUIRE(again.ok());
  CHECK(again->public_key == k.public_key);
  std::string sealed = SealToRecipient(k.public_key, "stream key");
  CHECK(sealed.size() == 10 + 48);
  CHECK(*OpenSealedBox(k, sealed) == "stream key");
  CHECK_FALSE(OpenSealedBox(X25519Generate(), sealed).ok());
  sealed[50] ^= 1;
  CHECK_FALSE(OpenSealedBox(k, sealed).ok());
  CHECK(SealToRecipient("short", "x").empty());
  CHECK_FALSE(X25519FromSecret("short").ok());
}

TEST_CASE("secret streams: chunks open in order under their AD; reordered, altered or cut ones do not") {
  const std::string key(32, 'k');
  StreamSealer sealer(key);
  const std::string a = sealer.Push("first", false, "ad");
  const std::string b = sealer.Push("second", true, "ad");
  CHECK(a.size() == 5 + kStreamChunkOverhead);
  auto open = [&](std::vector<std::string> chunks, std::string ad, std::string_view k) {
    auto o = StreamOpener::Start(k, sealer.header());
    if (!o.ok()) return std::string("!start");
    std::string out;
    bool final = false;
    for (const auto& c : chunks) {
      auto p = o->Pull(c, &final, ad);
      if (!p.ok()) return std::string("!pull");
      out += *p + (final ? "$" : "|");
    }
    return out;
  };
  CHECK(open({a, b}, "ad", key) == "first|second$");
  CHECK(open({b, a}, "ad", key) == "!pull");
  CHECK(open({a, b}, "other", key) == "!pull");
  CHECK(open({a, b}, "ad", std::string(32, 'x')) == "!pull");
  CHECK(open({a}, "ad", key) == "first|");  // no final tag: the reader knows it was cut
  std::string altered = b;
  altered[3] ^= 1;
  CHECK(open({a, altered}, "ad", key) == "!pull");
  CHECK_FALSE(StreamOpener::Start("short", sealer.header()).ok());
}

}  // namespace core_crypto_test
