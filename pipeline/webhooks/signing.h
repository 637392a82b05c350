#pragma once
// Standard Webhooks signatures (https://www.standardwebhooks.com/), both of its schemes:
//
//   signed content = "{webhook-id}.{webhook-timestamp}.{raw body}"
//   v1  (symmetric, an endpoint's secret "whsec_" + base64 of 32 bytes, shared with the receiver):
//       signature = "v1," + base64(HMAC-SHA256(key, signed content))
//   v1a (asymmetric, Ed25519: we keep the signing key "whsk_" + base64 of its 32-byte seed; the
//       receiver holds only the public key "whpk_" + base64 of its 32 bytes):
//       signature = "v1a," + base64(Ed25519 signature of the signed content)
//
// The `webhook-signature` header may carry several signatures separated by spaces (after a
// rotation we send the new and the previous one); a receiver accepts the message when any
// signature of its scheme matches. Comparisons are constant-time; Ed25519 signing is
// deterministic (RFC 8032), so the signature we would send is also what a check compares with.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace svc::pipeline::webhooks {

inline constexpr std::string_view kSecretPrefix = "whsec_";
inline constexpr std::string_view kSigningKeyPrefix = "whsk_";
inline constexpr std::string_view kPublicKeyPrefix = "whpk_";
inline constexpr int64_t kDefaultToleranceSeconds = 300;  // the reference verifier's

// A new signing secret: "whsec_" + base64 of 32 random bytes, using no '+' or '/' (so that it
// decodes the same as base64 and as base64url).
std::string NewSecret();
// The HMAC key a secret stands for; kInvalidArgument when it is not "whsec_" + base64.
core::Result<std::string> SecretKey(std::string_view secret);
// A new Ed25519 signing key (v1a): "whsk_" + base64 of a random 32-byte seed.
std::string NewSigningKey();
// True for a v1a signing key ("whsk_…"), false for a v1 secret.
bool IsSigningKey(std::string_view secret);
// The public key ("whpk_" + base64 of 32 bytes) of a v1a signing key; kInvalidArgument otherwise.
core::Result<std::string> PublicKeyOf(std::string_view signing_key);
// "v1" or "v1a": the scheme a secret or signing key signs with.
std::string_view SchemeOf(std::string_view secret);

// "v1,<base64>" (a whsec_ secret) or "v1a,<base64>" (a whsk_ signing key) for one message.
core::Result<std::string> Sign(std::string_view secret, std::string_view msg_id, int64_t timestamp,
                               std::string_view payload);
// The header value for several secrets (newest first), space-separated.
core::Result<std::string> SignatureHeader(const std::vector<std::string>& secrets,
                                          std::string_view msg_id, int64_t timestamp,
                                          std::string_view payload);

// Verifies a received message the way the reference libraries do: the timestamp must be an
// integer within `tolerance_seconds` of `now_seconds` (past or future), and one of the header's
// signatures of the secret's scheme (v1 for whsec_, v1a for whsk_) must match. Errors say which
// check failed (kInvalidArgument / kUnauthenticated).
core::Status Verify(std::string_view secret, std::string_view msg_id, std::string_view timestamp,
                    std::string_view payload, std::string_view signature_header, int64_t now_seconds,
                    int64_t tolerance_seconds = kDefaultToleranceSeconds);
// The same checks with only a public key ("whpk_…", what a v1a receiver holds): one of the
// header's v1a signatures must verify.
core::Status VerifyWithPublicKey(std::string_view public_key, std::string_view msg_id, std::string_view timestamp,
                                 std::string_view payload, std::string_view signature_header, int64_t now_seconds,
                                 int64_t tolerance_seconds = kDefaultToleranceSeconds);

}  // namespace svc::pipeline::webhooks
