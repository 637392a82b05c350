#include "pipeline/kyb/kyb_seal.h"

#include "core/crypto.h"
#include "core/ids.h"

namespace svc::pipeline::kyb {

KybKeys KybKeys::From(std::string_view runtime_seal_key) {
  return {core::DeriveSubkey(runtime_seal_key, "svc/kyb/seal/v1"), core::DeriveSubkey(runtime_seal_key, "svc/kyb/index/v1")};
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
