#include "pipeline/kyb/kyb_seal.h"

#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/persons/vault_keys.h"

namespace svc::pipeline::kyb {

KybKeys KybKeys::From(std::string_view runtime_seal_key, const eventstore::KeyStore* subject_keys) {
  return {core::DeriveSubkey(runtime_seal_key, "svc/kyb/seal/v1"), core::DeriveSubkey(runtime_seal_key, "svc/kyb/index/v1"),
          subject_keys};
}

std::string KybAad(std::string_view tenant, std::string_view environment, std::string_view record,
                   std::string_view field) {
  std::string aad;
  aad.append(tenant).append("|").append(environment).append("|").append(record).append("|").append(field);
  return aad;
}

std::string SealValue(const KybKeys& keys, std::string_view aad, std::string_view plaintext) {
  return core::Base64Encode(core::AeadSeal(keys.seal, plaintext, aad));
}

core::Result<std::string> OpenValue(const KybKeys& keys, std::string_view aad, std::string_view sealed_base64) {
  SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed_base64));
  auto opened = core::AeadOpen(keys.seal, raw, aad);
  if (!opened.ok()) return core::DataLoss("a sealed KYB value does not open");
  return opened;
}

std::string SubjectKeyName(std::string_view tenant, std::string_view environment, std::string_view company,
                           std::string_view record) {
  std::string name = "kyb/";
  name.append(tenant).append("/").append(environment).append("/").append(company).append("/").append(record);
  return name;
}

core::Result<std::string> SealSubjectName(eventstore::KeyStore& keys, std::string_view tenant,
                                          std::string_view environment, std::string_view company,
                                          std::string_view record, std::string_view name) {
  SVC_ASSIGN_OR_RETURN(std::string key, keys.GetOrCreate(SubjectKeyName(tenant, environment, company, record)));
  std::string sealed = core::Base64Encode(core::AeadSeal(key, name, KybAad(tenant, environment, record, "name")));
  core::SecureZero(key);
  return sealed;
}

core::Result<std::optional<std::string>> OpenSubjectName(const KybKeys& kyb, std::string_view tenant,
                                                         std::string_view environment, std::string_view company,
                                                         std::string_view record, const core::Json& row) {
  const core::Json sealed = row.value("nameSealed", core::Json(nullptr));
  if (!sealed.is_string()) return std::optional<std::string>();  // forgotten: the row holds no name
  const std::string aad = KybAad(tenant, environment, record, "name");
  if (core::StringOr(row, "sealedWith") != "record") {
    SVC_ASSIGN_OR_RETURN(std::string v, OpenValue(kyb, aad, sealed.get<std::string>()));
    return std::optional<std::string>(std::move(v));
  }
  if (kyb.subject_keys == nullptr) return core::Internal("the KYB keys were given no key store");
  SVC_ASSIGN_OR_RETURN(auto key, kyb.subject_keys->Get(SubjectKeyName(tenant, environment, company, record)));
  if (!key.has_value()) return std::optional<std::string>();  // destroyed
  SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed.get<std::string>()));
  auto opened = core::AeadOpen(*key, raw, aad);
  core::SecureZero(*key);
  if (!opened.ok()) return core::DataLoss("a sealed KYB name does not open");
  return std::optional<std::string>(std::move(*opened));
}

std::string RfcBlind(const KybKeys& keys, std::string_view tenant, std::string_view environment,
                     std::string_view rfc) {
  return core::HexEncode(core::HmacSha256(keys.index, "rfc|" + std::string(tenant) + "|" + std::string(environment) +
                                                          "|" + std::string(rfc)));
}

std::string QueryBlind(const KybKeys& keys, std::string_view tenant, std::string_view environment,
                       std::string_view canonical_query) {
  return core::HexEncode(core::HmacSha256(keys.index, "query|" + std::string(tenant) + "|" +
                                                          std::string(environment) + "|" +
                                                          std::string(canonical_query)))
      .substr(0, 32);
}

namespace {

// The key store's name of the key a hit's names are sealed under ("" for the KYB key).
std::string HitNamesKeyName(std::string_view sealed_with, std::string_view tenant, std::string_view environment,
                            std::string_view subject_id, std::string_view company_id) {
  if (sealed_with == "person") return persons::PersonKeyName(tenant, environment, subject_id);
  if (sealed_with == "record") return SubjectKeyName(tenant, environment, company_id, subject_id);
  return "";
}

}  // namespace

core::Result<SealedHitNames> SealHitNames(const KybKeys& keys, std::string_view tenant, std::string_view environment,
                                          std::string_view subject_type, std::string_view subject_id,
                                          std::string_view company_id, std::string_view hit_id,
                                          std::string_view entry_name, std::string_view matched_name) {
  SealedHitNames out;
  out.sealed_with = "kyb";
  std::optional<std::string> key;
  if ((subject_type == "person" || subject_type == "company_member" || subject_type == "ubo_node") &&
      keys.subject_keys == nullptr) {
    return core::Internal("the KYB keys were given no key store");
  }
  if (subject_type == "person") {
    SVC_ASSIGN_OR_RETURN(key, keys.subject_keys->Get(persons::PersonKeyName(tenant, environment, subject_id)));
    if (!key.has_value()) return core::FailedPrecondition("the person's data was erased", "PERSON_FORGET_PENDING");
    out.sealed_with = "person";
  } else if (subject_type == "company_member" || subject_type == "ubo_node") {
    // Its own key when its name is under one (a member or node made since issue 62's erasure).
    SVC_ASSIGN_OR_RETURN(key, keys.subject_keys->Get(SubjectKeyName(tenant, environment, company_id, subject_id)));
    if (key.has_value()) out.sealed_with = "record";
  }
  const std::string& k = key.has_value() ? *key : keys.seal;
  out.entry_name = core::Base64Encode(core::AeadSeal(k, entry_name, KybAad(tenant, environment, hit_id, "entryName")));
  out.matched_name =
      core::Base64Encode(core::AeadSeal(k, matched_name, KybAad(tenant, environment, hit_id, "matchedName")));
  if (key.has_value()) core::SecureZero(*key);
  return out;
}

core::Json OpenHitNames(const KybKeys& keys, core::Json row) {
  if (!row.is_object()) return row;
  const std::string with = core::StringOr(row, "namesSealedWith");
  if (with.empty()) return row;
  const std::string tenant = core::StringOr(row, "tenantId"), env = core::StringOr(row, "environment");
  const std::string hit = core::StringOr(row, "id");
  std::optional<std::string> key;
  const std::string name = HitNamesKeyName(with, tenant, env, core::StringOr(row, "subjectId"),
                                           core::StringOr(row, "companyId"));
  bool usable = name.empty();
  if (!name.empty() && keys.subject_keys != nullptr) {
    auto got = keys.subject_keys->Get(name);
    if (got.ok() && got->has_value()) {
      key = std::move(**got);
      usable = true;
    }
  }
  auto open = [&](const char* member, const char* field) -> core::Json {
    const core::Json sealed = row.value(member, core::Json(nullptr));
    if (!usable || !sealed.is_string()) return nullptr;
    auto raw = core::Base64Decode(sealed.get<std::string>());
    if (!raw.ok()) return nullptr;
    auto opened = core::AeadOpen(key.has_value() ? *key : keys.seal, *raw, KybAad(tenant, env, hit, field));
    return opened.ok() ? core::Json(std::move(*opened)) : core::Json(nullptr);
  };
  if (!row["entry"].is_object()) row["entry"] = core::Json::object();
  row["entry"]["name"] = open("entryNameSealed", "entryName");
  row["matchedName"] = open("matchedNameSealed", "matchedName");
  if (key.has_value()) core::SecureZero(*key);
  row.erase("entryNameSealed");
  row.erase("matchedNameSealed");
  row.erase("namesSealedWith");
  return row;
}

}  // namespace svc::pipeline::kyb
