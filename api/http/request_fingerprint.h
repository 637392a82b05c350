#pragma once
// The fingerprint of a keyed request (an Idempotency-Key's parameters), kept in the writer's
// idempotency record and in the events the request appends (envelope.h: requestFingerprint).
//
// It is a keyed MAC (HMAC-SHA256 under a subkey of the node's root key), never a plain hash: the
// events are kept for ever, and a plain hash of a one-field body (a PATCH of a phone number, a
// CURP) gives the value back to anyone who tries the candidates. It covers the request's
// parameters in canonical form, not its bytes: the method, the path, the query's parameters
// (decoded, in name order) and the body as RFC 8785 JSON when it is JSON (its raw bytes otherwise).
// So a retry that re-formats the same JSON (spaces, member order, escapes) is the same request and
// gets the first answer; only different parameters are IDEMPOTENCY_KEY_REUSED (the spec's "same
// key, different parameters").

#include <string>
#include <string_view>

#include "api/http/http.h"

namespace svc::api {

// "m1:" and 64 hex characters. Fingerprints written before it were 64 hex characters alone (an
// unkeyed SHA-256 of method, path and body); the writer treats a retry against one of those as
// the same request (commands/writer.cc), since it cannot compute the old form any more.
inline constexpr std::string_view kFingerprintPrefix = "m1:";
std::string RequestFingerprint(std::string_view key, const HttpRequest& req);

}  // namespace svc::api
