#include "core/jwt.h"

#include <cctype>

#include "core/crypto.h"

namespace svc::core {

namespace {

// The one header we issue and accept, byte for byte (base64url of {"alg":"HS256","typ":"JWT"}).
const std::string& Header() {
  static const std::string h = Base64UrlEncode(R"({"alg":"HS256","typ":"JWT"})");
  return h;
}

}  // namespace

std::string JwtSignHs256(std::string_view key, const Json& claims) {
  std::string signing_input = Header() + "." + Base64UrlEncode(DumpJson(claims));
  std::string mac = HmacSha256(key, signing_input);
  return signing_input + "." + Base64UrlEncode(mac);
}

bool LooksLikeJwt(std::string_view token) {
  if (token.rfind("eyJ", 0) != 0) return false;
  size_t dots = 0;
  for (char c : token) {
    if (c == '.') {
      ++dots;
    } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) {
      return false;
    }
  }
  return dots == 2;
}

Result<Json> JwtVerifyHs256(std::string_view key, std::string_view token, Timestamp now) {
  auto invalid = [] { return Unauthenticated("the reviewer token is not valid", "API_KEY_INVALID"); };
  if (token.size() > 4096 || !LooksLikeJwt(token)) return invalid();
  const size_t first = token.find('.');
  const size_t second = token.find('.', first + 1);
  if (token.substr(0, first) != Header()) return invalid();
  std::string_view signing_input = token.substr(0, second);
  auto mac = Base64UrlDecode(token.substr(second + 1));
  if (!mac.ok() || !ConstantTimeEquals(*mac, HmacSha256(key, signing_input))) return invalid();
  auto payload = Base64UrlDecode(token.substr(first + 1, second - first - 1));
  if (!payload.ok()) return invalid();
  Json claims = ParseJsonOrDiscarded(*payload);
  if (!claims.is_object()) return invalid();
  const int64_t seconds = now.micros / 1'000'000;
  if (auto it = claims.find("exp"); it != claims.end()) {
    if (!it->is_number_integer()) return invalid();
    if (seconds >= it->get<int64_t>()) {
      return Unauthenticated("the reviewer token expired: sign in again", "API_KEY_INVALID");
    }
  }
  if (auto it = claims.find("nbf"); it != claims.end()) {
    if (!it->is_number_integer() || seconds < it->get<int64_t>()) return invalid();
  }
  return claims;
}

}  // namespace svc::core
