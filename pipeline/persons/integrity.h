#pragma once
// POST /v1/persons/{id}/integrity (docs/persons.md): does the vault hold the value the caller
// holds? The caller sends, per field, hex(HMAC-SHA256(signingKey, value as normalised)); each is
// compared in constant time with the same computed over the opened value, which never leaves.

#include <map>
#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"

namespace svc::pipeline::persons {

// The caller's signing key: base64 (or base64url) of 16 to 64 bytes, else
// INTEGRITY_SIGNING_KEY_INVALID.
core::Result<std::string> IntegritySigningKey(std::string_view text);

// Per field of `expected` (field -> lowercase hex MAC): "match", "mismatch", or "absent" when the
// vault holds no value (`values`: the opened fields, null for none).
core::Json CompareIntegrity(const core::Json& values, const std::map<std::string, std::string>& expected,
                            std::string_view signing_key);

}  // namespace svc::pipeline::persons
