#pragma once
// API key material: `svc_{env}_{sk|pk}_<32 base62>` (about 190 random bits). The plaintext is
// shown once, at creation; the service keeps only HMAC-SHA256(lookup key, plaintext), so a stolen
// database does not yield usable keys and lookup is one keyed hash plus an index read.

#include <string>
#include <string_view>

#include "core/status.h"

namespace svc::commands::tenancy {

struct NewKeyMaterial {
  std::string plaintext;  // shown once; never stored, never logged
  std::string last4;
};

// env: "live" | "test"; type: "secret" | "publishable".
NewKeyMaterial GenerateApiKey(std::string_view env, std::string_view type);
std::string HashApiKey(std::string_view lookup_key, std::string_view plaintext);  // hex
// A review-console user's sign-in secret: "usk_" + 40 base62 characters (hashed like a key).
NewKeyMaterial GenerateUserSecret();

struct KeyShape {
  std::string environment;  // "live" | "test"
  std::string key_type;     // "secret" | "publishable"
};
// Checks the visible shape of a presented key (prefix, env, type, body alphabet and length).
core::Result<KeyShape> ParseApiKeyShape(std::string_view presented);

}  // namespace svc::commands::tenancy
