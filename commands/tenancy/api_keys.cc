#include "commands/tenancy/api_keys.h"

#include "core/crypto.h"
#include "core/ids.h"

namespace svc::commands::tenancy {

namespace {
constexpr std::string_view kAlphabet =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
constexpr size_t kBodyLength = 32;
}  // namespace

namespace {

std::string Base62(size_t n) {
  std::string body;
  body.reserve(n);
  while (body.size() < n) {
    std::string bytes = core::RandomBytes(64);
    for (unsigned char b : bytes) {
      if (b >= 248) continue;  // 248 = 4 * 62: reject to keep the distribution uniform
      body.push_back(kAlphabet[b % 62]);
      if (body.size() == n) break;
    }
  }
  return body;
}

}  // namespace

NewKeyMaterial GenerateUserSecret() {
  NewKeyMaterial m;
  std::string body = Base62(40);
  m.plaintext = "usk_" + body;
  m.last4 = body.substr(body.size() - 4);
  return m;
}

NewKeyMaterial GenerateApiKey(std::string_view env, std::string_view type) {
  std::string body = Base62(kBodyLength);
  NewKeyMaterial m;
  m.plaintext = "svc_" + std::string(env) + (type == "secret" ? "_sk_" : "_pk_") + body;
  m.last4 = body.substr(body.size() - 4);
  return m;
}

std::string HashApiKey(std::string_view lookup_key, std::string_view plaintext) {
  return core::HexEncode(core::HmacSha256(lookup_key, plaintext));
}

core::Result<KeyShape> ParseApiKeyShape(std::string_view k) {
  auto bad = [] { return core::Unauthenticated("the API key is not valid", "API_KEY_INVALID"); };
  // svc_test_sk_ + 32
  if (k.size() != 4 + 5 + 3 + kBodyLength || k.substr(0, 4) != "svc_") return bad();
  KeyShape s;
  std::string_view env = k.substr(4, 4);
  if (env != "live" && env != "test") return bad();
  if (k[8] != '_') return bad();
  std::string_view t = k.substr(9, 3);
  if (t == "sk_") s.key_type = "secret";
  else if (t == "pk_") s.key_type = "publishable";
  else return bad();
  for (char c : k.substr(12)) {
    if (kAlphabet.find(c) == std::string_view::npos) return bad();
  }
  s.environment = std::string(env);
  return s;
}

}  // namespace svc::commands::tenancy
