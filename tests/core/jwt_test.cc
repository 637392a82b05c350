#include "core/jwt.h"

#include <doctest/doctest.h>

#include "core/crypto.h"

namespace svc::core {
namespace core_jwt_test {

const std::string kKey(32, 'k');

TEST_CASE("jwt: a signed token verifies and carries its claims") {
  REQUIRE(InitCrypto().ok());
  Json claims = {{"sub", "usr_0123"}, {"exp", 2000}, {"nbf", 1000}};
  std::string t = JwtSignHs256(kKey, claims);
  CHECK(LooksLikeJwt(t));
  auto got = JwtVerifyHs256(kKey, t, Timestamp{1500 * 1'000'000LL});
  REQUIRE(got.ok());
  CHECK((*got)["sub"] == "usr_0123");
  // The header is RFC 7519's example header, byte for byte.
  CHECK(*Base64UrlDecode(t.substr(0, t.find('.'))) == R"({"alg":"HS256","typ":"JWT"})");
}

TEST_CASE("jwt: expiry, not-before, another key, tampering and other algorithms are refused") {
  REQUIRE(InitCrypto().ok());
  std::string t = JwtSignHs256(kKey, {{"sub", "usr_1"}, {"exp", 2000}, {"nbf", 1000}});
  CHECK(JwtVerifyHs256(kKey, t, Timestamp{2000 * 1'000'000LL}).status().api_code() == "API_KEY_INVALID");
  CHECK(!JwtVerifyHs256(kKey, t, Timestamp{999 * 1'000'000LL}).ok());
  CHECK(!JwtVerifyHs256(std::string(32, 'x'), t, Timestamp{1500 * 1'000'000LL}).ok());
  // A changed payload (same header and signature).
  const size_t a = t.find('.'), b = t.rfind('.');
  std::string forged = t.substr(0, a + 1) + Base64UrlEncode(R"({"sub":"usr_2","exp":2000})") + t.substr(b);
  CHECK(!JwtVerifyHs256(kKey, forged, Timestamp{1500 * 1'000'000LL}).ok());
  // alg "none", with and without a signature.
  std::string none = Base64UrlEncode(R"({"alg":"none","typ":"JWT"})") + t.substr(a, b - a);
  CHECK(!JwtVerifyHs256(kKey, none + ".", Timestamp{1500 * 1'000'000LL}).ok());
  CHECK(!JwtVerifyHs256(kKey, none + t.substr(b), Timestamp{1500 * 1'000'000LL}).ok());
  // Another algorithm named, with an HS256 MAC over it.
  std::string other = Base64UrlEncode(R"({"alg":"HS512","typ":"JWT"})") + t.substr(a, b - a);
  other += "." + Base64UrlEncode(HmacSha256(kKey, other));
  CHECK(!JwtVerifyHs256(kKey, other, Timestamp{1500 * 1'000'000LL}).ok());
  // Shapes that are not a token.
  for (std::string bad : {"", "eyJ", "eyJa.b", "eyJa.b.c.d", "key_live_x", "eyJa.b.c$"}) {
    CHECK(!JwtVerifyHs256(kKey, bad, Timestamp{1500 * 1'000'000LL}).ok());
  }
  // A non-integer exp.
  std::string s = JwtSignHs256(kKey, {{"sub", "usr_1"}, {"exp", "later"}});
  CHECK(!JwtVerifyHs256(kKey, s, Timestamp{1}).ok());
}

}  // namespace core_jwt_test
}  // namespace svc::core
