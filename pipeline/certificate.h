#pragma once
// Verification certificates. The content in RFC 8785 canonical form is what is hashed and signed:
//
//   contentHash       SHA-256 hex of the canonical content
//   signature         HMAC-SHA256 hex of the same bytes under a key for the certificate's tenant
//                     and environment (the spec's signature; checking it needs the master key)
//   signatureEd25519  Ed25519 signature (hex) of the same bytes under the tenant and
//                     environment's signing key: anyone with the public key checks it, offline,
//                     without us (GET /v1/certificate-keys, `svc certificate public-key`)
//   signingKeyId      which public key: "ed25519:" + the first 16 hex of SHA-256(public key)
//
// None of the four (nor `timestamps`) is part of the signed content, so adding the Ed25519 pair left the hash and
// HMAC of every certificate unchanged. Signing the same content twice gives the same document
// byte for byte (Ed25519 signatures are deterministic).

#include <optional>
#include <string>
#include <vector>

#include "core/crypto.h"
#include "core/json.h"
#include "core/status.h"

namespace svc::pipeline {

// The root of all certificate keys: derived from the data directory's working root (which a
// master-key rotation leaves as it is: api/http/runtime.h), never kept as the root itself.
std::string CertificateRootKey(std::string_view working_root);

// The HMAC key of one tenant and environment (derived from the root key).
std::string CertificateKey(std::string_view root_key, std::string_view tenant_id,
                           std::string_view environment);

// The Ed25519 signing key pair of one tenant and environment (its seed derives from the root
// key), and the id certificates name it by.
core::Ed25519KeyPair CertificateSigningKey(std::string_view root_key, std::string_view tenant_id,
                                           std::string_view environment);
std::string CertificateKeyId(std::string_view public_key);

// Fills contentHash, signature, signatureEd25519 and signingKeyId (any present are replaced)
// and returns the document in canonical form. `content` must carry tenantId and environment.
// `timestamps` (issue 35: the trusted timestamps of the content hash, pipeline/audit/timestamper.h)
// is added as it is, outside the signed content, like the four above: a token that arrives later
// changes the document's bytes, never its contentHash or signatures.
core::Result<std::string> SignCertificate(core::Json content, std::string_view root_key,
                                          const core::Json& timestamps = core::Json());
// The contentHash SignCertificate gives `content` (SHA-256 hex of its signed bytes): what a
// trusted timestamp covers.
core::Result<std::string> CertificateContentHash(const core::Json& content);

// What a verifier holds: the service's root key (from the master key) and/or an Ed25519 public
// key (32 raw bytes). Either alone is enough to check something.
struct CertificateKeys {
  std::optional<std::string> root_key;
  std::optional<std::string> public_key;
};

struct CertificateCheck {
  bool content_hash_valid = false;
  std::optional<bool> hmac_valid;     // nullopt: not checked (no root key)
  std::optional<bool> ed25519_valid;  // nullopt: not checked (no key to check it with)
  std::vector<std::string> not_checked;  // why, in words, for each check not made
  // Valid: the hash holds, at least one signature was checked, and every one checked holds.
  bool valid() const {
    bool any = hmac_valid.has_value() || ed25519_valid.has_value();
    return content_hash_valid && any && hmac_valid.value_or(true) && ed25519_valid.value_or(true);
  }
};
// Checks a certificate as received (any formatting; it is canonicalised first). With a root key
// the Ed25519 signature is checked against the derived public key; with a public key, against
// that key (and its id must be the one the certificate names).
core::Result<CertificateCheck> VerifyCertificate(std::string_view document,
                                                 const CertificateKeys& keys);

}  // namespace svc::pipeline
