#include "pipeline/events/pseudonyms.h"

#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/persons/vault_keys.h"

namespace svc::pipeline::events {

namespace {

constexpr std::string_view kPersonPrefix = "per_";
constexpr size_t kHexDigits = 32;

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Is a person id at `at` (not inside a longer word)?
bool PersonIdAt(std::string_view text, size_t at) {
  if (text.size() - at < kPersonPrefix.size() + kHexDigits) return false;
  if (text.compare(at, kPersonPrefix.size(), kPersonPrefix) != 0) return false;
  if (at > 0) {
    const char c = text[at - 1];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') return false;
  }
  for (size_t i = 0; i < kHexDigits; ++i) {
    if (!IsHex(text[at + kPersonPrefix.size() + i])) return false;
  }
  const size_t end = at + kPersonPrefix.size() + kHexDigits;
  return end == text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
}

}  // namespace

std::string PersonPseudonyms::KeyName(std::string_view tenant, std::string_view env, std::string_view person) {
  std::string n = "pseudonym/";
  n.append(tenant).append("/").append(env).append("/").append(person);
  return n;
}

core::Result<std::string> PersonPseudonyms::Of(std::string_view tenant, std::string_view env, std::string_view person) {
  const std::string name = KeyName(tenant, env, person);
  if (auto it = cache_.find(name); it != cache_.end()) return it->second;
  SVC_ASSIGN_OR_RETURN(auto key, keys_->Get(name));
  if (!key.has_value()) {
    // Drawn only while the person's data key exists: a person erased before the publisher met
    // them gets no key that nothing would ever destroy.
    SVC_ASSIGN_OR_RETURN(auto data_key, keys_->Get(persons::PersonKeyName(tenant, env, person)));
    if (!data_key.has_value()) return std::string(kErasedPseudonym);
    SVC_ASSIGN_OR_RETURN(key, keys_->GetOrCreate(name));
  }
  std::string names;
  names.append("svc/pseudonym/v1|").append(tenant).append("|").append(env).append("|").append(person);
  std::string p = "psn_" + core::HexEncode(core::HmacSha256(*key, names).substr(0, kHexDigits / 2));
  if (cache_.size() >= cache_cap_) cache_.clear();
  cache_.emplace(name, p);
  return p;
}

core::Result<std::string> PersonPseudonyms::Replace(std::string_view tenant, std::string_view env,
                                                    std::string_view text) {
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(kPersonPrefix); at != std::string_view::npos; at = text.find(kPersonPrefix, at + 1)) {
    if (!PersonIdAt(text, at)) continue;
    SVC_ASSIGN_OR_RETURN(auto p, Of(tenant, env, text.substr(at, kPersonPrefix.size() + kHexDigits)));
    out.append(text.substr(from, at - from)).append(p);
    from = at + kPersonPrefix.size() + kHexDigits;
    at = from - 1;
  }
  if (from == 0) return std::string(text);
  out.append(text.substr(from));
  return out;
}

core::Status PersonPseudonyms::Destroy(const std::vector<std::string>& key_names) {
  if (key_names.empty()) return core::Status::Ok();
  for (const auto& n : key_names) cache_.erase(n);
  return keys_->DestroyForGood(key_names);
}

}  // namespace svc::pipeline::events
