#pragma once
// Standard Webhooks signatures (https://www.standardwebhooks.com/, scheme v1):
//
//   signed content = "{webhook-id}.{webhook-timestamp}.{raw body}"
//   key            = base64-decode of the secret after "whsec_"
//   signature      = "v1," + base64(HMAC-SHA256(key, signed content))
//
// The `webhook-signature` header may carry several signatures separated by spaces (after a
// secret rotation we send the new and the previous one); a receiver accepts the message when any
// `v1` signature matches. Comparisons are constant-time.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace svc::pipeline::webhooks {

inline constexpr std::string_view kSecretPrefix = "whsec_";
inline constexpr int64_t kDefaultToleranceSeconds = 300;  // the reference verifier's

// A new signing secret: "whsec_" + base64 of 32 random bytes, using no '+' or '/' (so that it
// decodes the same as base64 and as base64url).
std::string NewSecret();
// The HMAC key a secret stands for; kInvalidArgument when it is not "whsec_" + base64.
core::Result<std::string> SecretKey(std::string_view secret);

// "v1,<base64>" for one message under one secret.
core::Result<std::string> Sign(std::string_view secret, std::string_view msg_id, int64_t timestamp,
                               std::string_view payload);
// The header value for several secrets (newest first), space-separated.
core::Result<std::string> SignatureHeader(const std::vector<std::string>& secrets,
                                          std::string_view msg_id, int64_t timestamp,
                                          std::string_view payload);

// Verifies a received message the way the reference libraries do: the timestamp must be an
// integer within `tolerance_seconds` of `now_seconds` (past or future), and one of the header's
// v1 signatures must match. Errors say which check failed (kInvalidArgument / kUnauthenticated).
core::Status Verify(std::string_view secret, std::string_view msg_id, std::string_view timestamp,
                    std::string_view payload, std::string_view signature_header, int64_t now_seconds,
                    int64_t tolerance_seconds = kDefaultToleranceSeconds);

}  // namespace svc::pipeline::webhooks
