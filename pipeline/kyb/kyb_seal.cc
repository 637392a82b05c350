#include "pipeline/kyb/kyb_seal.h"

#include "core/crypto.h"
#include "core/ids.h"

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

}  // namespace svc::pipeline::kyb
