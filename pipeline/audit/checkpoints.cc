#include "pipeline/audit/checkpoints.h"

#include "core/signed_note.h"

namespace svc::pipeline::audit {

std::string CheckpointRootKey(std::string_view working_root) {
  return core::DeriveSubkey(working_root, "svc/audit-checkpoint-root/v1");
}

std::string Origin(std::string_view tenant, std::string_view environment) {
  return "svc/audit/" + std::string(tenant) + "/" + std::string(environment);
}

core::Ed25519KeyPair CheckpointSigningKey(std::string_view root_key, std::string_view tenant,
                                          std::string_view environment) {
  std::string seed = core::DeriveSubkey(root_key, "checkpoint|" + std::string(tenant) + "|" + std::string(environment));
  core::Ed25519KeyPair kp = core::Ed25519FromSeed(seed);
  core::SecureZero(seed);
  return kp;
}

std::string VerifierKeyOf(std::string_view root_key, std::string_view tenant, std::string_view environment) {
  core::Ed25519KeyPair kp = CheckpointSigningKey(root_key, tenant, environment);
  core::SecureZero(kp.secret_key);
  return core::note::VerifierKey(Origin(tenant, environment), kp.public_key);
}

core::Result<std::string> SignedCheckpoint(std::string_view root_key, std::string_view tenant,
                                           std::string_view environment, uint64_t size, std::string_view root_hash) {
  core::Ed25519KeyPair kp = CheckpointSigningKey(root_key, tenant, environment);
  const std::string origin = Origin(tenant, environment);
  auto out = core::note::Sign(core::note::CheckpointText(origin, size, root_hash), origin, kp.secret_key);
  core::SecureZero(kp.secret_key);
  return out;
}

}  // namespace svc::pipeline::audit
