#include "pipeline/persons/vault_keys.h"

#include "core/crypto.h"
#include "core/json.h"

namespace svc::pipeline::persons {

std::string PersonKeyName(std::string_view tenant, std::string_view env, std::string_view person) {
  return "person/" + std::string(tenant) + "/" + std::string(env) + "/" + std::string(person);
}

std::string PiiAad(std::string_view tenant, std::string_view env, std::string_view person,
                   std::string_view field, int pii_version) {
  return "pii|" + std::string(tenant) + "|" + std::string(env) + "|" + std::string(person) + "|" +
         std::string(field) + "|" + std::to_string(pii_version);
}

std::string SealPii(std::string_view person_key, std::string_view tenant, std::string_view env,
                    std::string_view person, std::string_view field, int pii_version,
                    std::string_view value) {
  return core::Base64Encode(
      core::AeadSeal(person_key, value, PiiAad(tenant, env, person, field, pii_version)));
}

core::Result<std::string> OpenPii(std::string_view person_key, std::string_view tenant,
                                  std::string_view env, std::string_view person,
                                  std::string_view field, int pii_version, std::string_view sealed) {
  auto raw = core::Base64Decode(sealed);
  if (!raw.ok()) return core::DataLoss("a sealed value is not base64");
  auto opened = core::AeadOpen(person_key, *raw, PiiAad(tenant, env, person, field, pii_version));
  if (!opened.ok()) return core::DataLoss("a sealed value does not open under its names");
  return opened;
}

namespace {

std::string TextAad(std::string_view tenant, std::string_view env, std::string_view person, std::string_view what) {
  return "text|" + std::string(tenant) + "|" + std::string(env) + "|" + std::string(person) + "|" + std::string(what);
}

}  // namespace

namespace {
std::string ExportReasonAad(std::string_view tenant, std::string_view env, std::string_view job) {
  return "export-reason|" + std::string(tenant) + "|" + std::string(env) + "|" + std::string(job);
}
}  // namespace

std::string SealExportReason(std::string_view event_seal_key, std::string_view tenant, std::string_view env,
                             std::string_view job, std::string_view reason) {
  std::string key = core::DeriveSubkey(event_seal_key, "svc/export-reason/v1");
  std::string sealed = core::Base64Encode(core::AeadSeal(key, reason, ExportReasonAad(tenant, env, job)));
  core::SecureZero(key);
  return sealed;
}

core::Result<std::string> OpenExportReason(std::string_view event_seal_key, std::string_view tenant, std::string_view env,
                                           std::string_view job, std::string_view sealed) {
  SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed));
  std::string key = core::DeriveSubkey(event_seal_key, "svc/export-reason/v1");
  auto opened = core::AeadOpen(key, raw, ExportReasonAad(tenant, env, job));
  core::SecureZero(key);
  if (!opened.ok()) return core::DataLoss("an export job's sealed reason does not open");
  return std::move(*opened);
}

core::Result<std::string> SealPersonText(eventstore::KeyStore& keys, std::string_view tenant, std::string_view env,
                                         std::string_view person, std::string_view what, std::string_view text) {
  if (text.empty()) return std::string();
  SVC_ASSIGN_OR_RETURN(auto key, keys.Get(PersonKeyName(tenant, env, person)));
  if (!key.has_value()) {
    return core::FailedPrecondition("the person's data was erased", "PERSON_FORGET_PENDING");
  }
  std::string sealed = core::Base64Encode(core::AeadSeal(*key, text, TextAad(tenant, env, person, what)));
  core::SecureZero(*key);
  return sealed;
}

core::Result<std::optional<SealedAccessReason>> SealAccessReason(eventstore::KeyStore& keys, std::string_view tenant,
                                                                 std::string_view env, std::string_view person,
                                                                 std::string_view reason) {
  if (reason.empty() || person.empty()) return std::optional<SealedAccessReason>();
  SVC_ASSIGN_OR_RETURN(auto key, keys.Get(PersonKeyName(tenant, env, person)));
  if (!key.has_value()) return std::optional<SealedAccessReason>();
  std::string commit_key = core::RandomBytes(32);
  SealedAccessReason out;
  out.commitment = core::HexEncode(core::HmacSha256(commit_key, reason));
  std::string plain = commit_key + std::string(reason);
  out.sealed = core::Base64Encode(core::AeadSeal(*key, plain, TextAad(tenant, env, person, "accessReason")));
  core::SecureZero(plain);
  core::SecureZero(commit_key);
  core::SecureZero(*key);
  return std::optional<SealedAccessReason>(std::move(out));
}

core::Json OpenAccessReason(eventstore::KeyStore& keys, std::string_view tenant, std::string_view env,
                            core::Json entry) {
  if (!entry.is_object()) return entry;
  auto sealed = entry.find("reasonSealed");
  if (sealed == entry.end() || !sealed->is_string()) return entry;
  const std::string person = core::StringOr(entry, "personId");
  core::Json text = nullptr, commit_key = nullptr;
  auto key = keys.Get(PersonKeyName(tenant, env, person));
  auto raw = core::Base64Decode(sealed->get<std::string>());
  if (key.ok() && key->has_value() && raw.ok()) {
    auto opened = core::AeadOpen(**key, *raw, TextAad(tenant, env, person, "accessReason"));
    if (opened.ok() && opened->size() >= 32) {
      commit_key = core::HexEncode(opened->substr(0, 32));
      text = opened->substr(32);
      core::SecureZero(*opened);
    }
  }
  if (key.ok() && key->has_value()) core::SecureZero(**key);
  entry["reason"] = std::move(text);
  entry["reasonKey"] = std::move(commit_key);
  return entry;
}

namespace {
std::optional<std::string> OpenText(const std::optional<std::string>& key, std::string_view tenant, std::string_view env,
                                    std::string_view person, std::string_view what, std::string_view sealed) {
  if (!key.has_value()) return std::nullopt;
  auto raw = core::Base64Decode(sealed);
  if (!raw.ok()) return std::nullopt;
  auto opened = core::AeadOpen(*key, *raw, TextAad(tenant, env, person, what));
  if (!opened.ok()) return std::nullopt;
  return std::move(*opened);
}
}  // namespace

core::Result<std::optional<std::string>> OpenPersonText(eventstore::KeyStore& keys, std::string_view tenant,
                                                        std::string_view env, std::string_view person,
                                                        std::string_view what, std::string_view sealed) {
  SVC_ASSIGN_OR_RETURN(auto key, keys.Get(PersonKeyName(tenant, env, person)));
  auto text = OpenText(key, tenant, env, person, what, sealed);
  if (key.has_value()) core::SecureZero(*key);
  return text;
}

core::Result<std::string> OpenPersonTextRow(eventstore::KeyStore& keys, std::string_view tenant, std::string_view env,
                                            std::string_view person, std::string stored) {
  if (stored.find("Sealed\"") == std::string::npos) return stored;
  core::Json row = core::ParseJsonOrDiscarded(stored);
  if (!row.is_object()) return stored;
  SVC_ASSIGN_OR_RETURN(auto key, keys.Get(PersonKeyName(tenant, env, person)));
  core::Json out = core::Json::object();
  for (auto it = row.begin(); it != row.end(); ++it) {
    const std::string& name = it.key();
    constexpr std::string_view kSuffix = "Sealed";
    if (!name.ends_with(kSuffix) || !it->is_string()) {
      out[name] = *it;
      continue;
    }
    const std::string what = name.substr(0, name.size() - kSuffix.size());
    auto text = OpenText(key, tenant, env, person, what, it->get<std::string>());
    out[what] = text.has_value() ? core::Json(std::move(*text)) : core::Json(nullptr);
  }
  if (key.has_value()) core::SecureZero(*key);
  return core::DumpJson(out);
}

std::string IndexKeyName(std::string_view tenant, std::string_view env) {
  return "persons-index/" + std::string(tenant) + "/" + std::string(env);
}

core::Result<std::string> IndexKey(eventstore::KeyStore& keys, std::string_view tenant,
                                   std::string_view env) {
  // Every search and write needs it: kept unwrapped in memory (it never changes: a rotation
  // rewraps it, and no person's erasure destroys it).
  return keys.GetOrCreateCached(IndexKeyName(tenant, env));
}

}  // namespace svc::pipeline::persons
