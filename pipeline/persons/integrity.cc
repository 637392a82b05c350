#include "pipeline/persons/integrity.h"

#include "core/crypto.h"
#include "core/ids.h"

namespace svc::pipeline::persons {

core::Result<std::string> IntegritySigningKey(std::string_view text) {
  auto key = core::Base64Decode(text);
  if (!key.ok()) key = core::Base64UrlDecode(text);
  if (!key.ok() || key->size() < 16 || key->size() > 64) {
    return core::InvalidArgument("signingKey must be base64 of 16 to 64 random bytes", "INTEGRITY_SIGNING_KEY_INVALID");
  }
  return std::move(*key);
}

core::Json CompareIntegrity(const core::Json& values, const std::map<std::string, std::string>& expected,
                            std::string_view signing_key) {
  core::Json results = core::Json::object();
  for (const auto& [field, want] : expected) {
    const core::Json& plain = values.is_object() && values.contains(field) ? values[field] : core::Json();
    if (!plain.is_string()) {
      results[field] = "absent";
      continue;
    }
    const std::string mac = core::HexEncode(core::HmacSha256(signing_key, plain.get<std::string>()));
    results[field] = core::ConstantTimeEquals(mac, want) ? "match" : "mismatch";
  }
  return results;
}

}  // namespace svc::pipeline::persons
