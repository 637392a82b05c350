#pragma once
// The access log's signed checkpoints (docs/audit.md): a C2SP tlog-checkpoint of a tenant and
// environment's Merkle tree, signed with Ed25519 by a key of that tenant and environment derived
// from the data directory's working root (so it survives a master-key rotation and never needs
// storing). The note's key name is the log's origin line.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/crypto.h"
#include "core/status.h"

namespace svc::pipeline::audit {

// The root every checkpoint key derives from.
std::string CheckpointRootKey(std::string_view working_root);
// "svc/audit/<tenant>/<environment>": the origin line and the signing key's name.
std::string Origin(std::string_view tenant, std::string_view environment);
core::Ed25519KeyPair CheckpointSigningKey(std::string_view root_key, std::string_view tenant,
                                          std::string_view environment);
// The verifier key (C2SP vkey text) auditors are given.
std::string VerifierKeyOf(std::string_view root_key, std::string_view tenant, std::string_view environment);
// The signed checkpoint of the tree of `size` entries with root `root_hash` (32 bytes). The same
// tree always gives the same bytes (Ed25519 signatures are deterministic).
core::Result<std::string> SignedCheckpoint(std::string_view root_key, std::string_view tenant,
                                           std::string_view environment, uint64_t size, std::string_view root_hash);

}  // namespace svc::pipeline::audit
