#include "pipeline/events/pseudonyms.h"

#include <condition_variable>
#include <mutex>
#include <set>

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

void PersonPseudonyms::ForEachPersonId(std::string_view text, const std::function<void(std::string_view, size_t)>& fn) {
  for (size_t at = text.find(kPersonPrefix); at != std::string_view::npos; at = text.find(kPersonPrefix, at + 1)) {
    if (!PersonIdAt(text, at)) continue;
    fn(text.substr(at, kPersonPrefix.size() + kHexDigits), at);
    at += kPersonPrefix.size() + kHexDigits - 1;
  }
}

std::string PersonPseudonyms::Compute(std::string_view key, std::string_view tenant, std::string_view env,
                                      std::string_view person) {
  std::string names;
  names.append("svc/pseudonym/v1|").append(tenant).append("|").append(env).append("|").append(person);
  return "psn_" + core::HexEncode(core::HmacSha256(key, names).substr(0, kHexDigits / 2));
}

void PersonPseudonyms::Remember(std::string name, std::string pseudonym) {
  if (cache_.size() >= cache_cap_) cache_.clear();
  cache_.insert_or_assign(std::move(name), std::move(pseudonym));
}

core::Status PersonPseudonyms::Prefetch(const std::vector<Text>& texts) {
  struct Missing {
    std::string tenant, env, person, name;
  };
  std::vector<Missing> missing;
  std::set<std::string> asked;
  for (const auto& t : texts) {
    core::Status st = core::Status::Ok();
    ForEachPersonId(t.text, [&](std::string_view person, size_t) {
      if (!st.ok()) return;
      std::string name = KeyName(t.tenant, t.env, person);
      if (cache_.contains(name) || !asked.insert(name).second) return;
      auto key = keys_->Get(name);
      if (!key.ok()) {
        st = key.status();
      } else if (key->has_value()) {
        Remember(name, Compute(**key, t.tenant, t.env, person));
      } else {
        auto data_key = keys_->Get(persons::PersonKeyName(t.tenant, t.env, person));
        if (!data_key.ok()) {
          st = data_key.status();
        } else if (data_key->has_value()) {
          missing.push_back({std::string(t.tenant), std::string(t.env), std::string(person), std::move(name)});
        }
      }
    });
    SVC_RETURN_IF_ERROR(st);
  }
  if (missing.empty()) return core::Status::Ok();
  // Every missing key asked at once: the key store writes them in one group commit.
  std::mutex mu;
  std::condition_variable cv;
  size_t left = missing.size();
  std::vector<core::Result<std::string>> got(missing.size(), core::Internal("not drawn"));
  // Known missing (read just now, and only the publisher draws these keys): not read again. On a
  // cluster, should a second publisher have drawn one meanwhile, the keys topic keeps the first and
  // answers it; the embedded log has one process, so one publisher.
  for (size_t i = 0; i < missing.size(); ++i) {
    keys_->GetOrCreateAsync(
        missing[i].name,
        [&, i](core::Result<std::string> k) {
          std::lock_guard lock(mu);
          got[i] = std::move(k);
          if (--left == 0) cv.notify_all();
        },
        /*fresh=*/true);
  }
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return left == 0; });
  }
  for (size_t i = 0; i < missing.size(); ++i) {
    SVC_RETURN_IF_ERROR(got[i].status());
    Remember(missing[i].name, Compute(*got[i], missing[i].tenant, missing[i].env, missing[i].person));
  }
  return core::Status::Ok();
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
  std::string p = Compute(*key, tenant, env, person);
  Remember(name, p);
  return p;
}

core::Result<std::string> PersonPseudonyms::Replace(std::string_view tenant, std::string_view env,
                                                    std::string_view text) {
  std::string out;
  size_t from = 0;
  core::Status st = core::Status::Ok();
  ForEachPersonId(text, [&](std::string_view person, size_t at) {
    if (!st.ok()) return;
    auto p = Of(tenant, env, person);
    if (!p.ok()) {
      st = p.status();
      return;
    }
    out.append(text.substr(from, at - from)).append(*p);
    from = at + person.size();
  });
  SVC_RETURN_IF_ERROR(st);
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
