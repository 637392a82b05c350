#include "pipeline/persons/vault_keys.h"

#include "core/crypto.h"

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
