#pragma once
// Verification certificates: the content in RFC 8785 canonical form, `contentHash` = SHA-256 hex of
// that form, `signature` = HMAC-SHA256 hex of the same bytes under a key for the certificate's
// tenant and environment (derived from the master key). Signing the same content twice gives the
// same document byte for byte. `svc certificate verify FILE` checks both for auditors.

#include <string>

#include "core/json.h"
#include "core/status.h"

namespace svc::pipeline {

// The root of all certificate keys: derived from the master key, so a running service never
// keeps the master key itself.
std::string CertificateRootKey(std::string_view master_key);

// The signing key of one tenant and environment (derived from the root key).
std::string CertificateKey(std::string_view root_key, std::string_view tenant_id,
                           std::string_view environment);

// Fills `contentHash` and `signature` (any present are replaced) and returns the document in
// canonical form. `content` must carry `tenantId` and `environment`.
core::Result<std::string> SignCertificate(core::Json content, std::string_view root_key);

struct CertificateCheck {
  bool content_hash_valid = false;
  bool signature_valid = false;
  bool valid() const { return content_hash_valid && signature_valid; }
};
// Checks a certificate as received (any formatting; it is canonicalised first).
core::Result<CertificateCheck> VerifyCertificate(std::string_view document,
                                                 std::string_view root_key);

}  // namespace svc::pipeline
