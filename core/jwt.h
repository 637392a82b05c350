#pragma once
// Compact JSON Web Tokens (RFC 7519) signed with HMAC-SHA256 (JWS "HS256", RFC 7515), for the
// review console's reviewer sessions (docs/review.md#signing-in). One issuer, one verifier, one
// algorithm: the header is fixed, and a token whose header is anything else — "none", another
// algorithm, extra members — is refused before its signature is looked at (no algorithm
// confusion). Why this is our own hundred lines and not a library: docs/decisions.md.

#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/json.h"
#include "core/status.h"

namespace svc::core {

// The token of `claims` (a JSON object) under `key` (32 bytes).
std::string JwtSignHs256(std::string_view key, const Json& claims);

// The claims of a token made by JwtSignHs256 with `key`, when its signature holds and, when it
// has `exp` (seconds since the epoch), `now` is before it; `nbf`, when present, must not be
// after `now`. Anything else is Unauthenticated (the reason is never more precise than "not
// valid" or "expired" to the caller).
Result<Json> JwtVerifyHs256(std::string_view key, std::string_view token, Timestamp now);

// True when `token` has the shape of a compact JWS (three base64url parts, header first).
bool LooksLikeJwt(std::string_view token);

}  // namespace svc::core
