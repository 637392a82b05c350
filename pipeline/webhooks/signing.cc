#include "pipeline/webhooks/signing.h"

#include <charconv>

#include "core/crypto.h"

namespace svc::pipeline::webhooks {

namespace {

// `prefix` + base64 of 32 random bytes, drawn again until the base64 has neither '+' nor '/': then
// a base64 decoder (Standard Webhooks libraries) and a base64url decoder (the interface spec's
// wording) give the same 32 bytes. About 4 draws; under 2 of the 256 bits are given up.
std::string RandomKeyText(std::string_view prefix) {
  for (;;) {
    std::string text = core::Base64Encode(core::RandomBytes(32));
    if (text.find_first_of("+/") == std::string::npos) return std::string(prefix) + text;
  }
}

}  // namespace

std::string NewSecret() { return RandomKeyText(kSecretPrefix); }

core::Result<std::string> SecretKey(std::string_view secret) {
  if (secret.substr(0, kSecretPrefix.size()) != kSecretPrefix) {
    return core::InvalidArgument("a webhook secret starts with whsec_");
  }
  auto key = core::Base64Decode(secret.substr(kSecretPrefix.size()));
  if (!key.ok() || key->empty()) return core::InvalidArgument("a webhook secret is whsec_ + base64");
  return key;
}

std::string NewSigningKey() { return RandomKeyText(kSigningKeyPrefix); }

bool IsSigningKey(std::string_view secret) { return secret.substr(0, kSigningKeyPrefix.size()) == kSigningKeyPrefix; }

std::string_view SchemeOf(std::string_view secret) { return IsSigningKey(secret) ? "v1a" : "v1"; }

namespace {

// The Ed25519 key pair of a "whsk_" signing key.
core::Result<core::Ed25519KeyPair> KeyPairOf(std::string_view signing_key) {
  if (!IsSigningKey(signing_key)) return core::InvalidArgument("a webhook signing key starts with whsk_");
  auto seed = core::Base64Decode(signing_key.substr(kSigningKeyPrefix.size()));
  if (!seed.ok() || seed->size() != 32) return core::InvalidArgument("a webhook signing key is whsk_ + base64 of 32 bytes");
  core::Ed25519KeyPair pair = core::Ed25519FromSeed(*seed);
  core::SecureZero(*seed);
  return pair;
}

std::string SignedContent(std::string_view msg_id, int64_t timestamp, std::string_view payload) {
  std::string content;
  content.reserve(msg_id.size() + payload.size() + 24);
  content.append(msg_id).append(".").append(std::to_string(timestamp)).append(".").append(payload);
  return content;
}

// The timestamp checks every verification shares; the timestamp as a number.
core::Result<int64_t> CheckedTimestamp(std::string_view msg_id, std::string_view timestamp,
                                       std::string_view signature_header, int64_t now_seconds,
                                       int64_t tolerance_seconds) {
  if (msg_id.empty()) return core::InvalidArgument("missing webhook-id");
  if (timestamp.empty()) return core::InvalidArgument("missing webhook-timestamp");
  if (signature_header.empty()) return core::InvalidArgument("missing webhook-signature");
  int64_t ts = 0;
  auto [end, ec] = std::from_chars(timestamp.data(), timestamp.data() + timestamp.size(), ts);
  if (ec != std::errc() || end != timestamp.data() + timestamp.size()) {
    return core::InvalidArgument("webhook-timestamp is not an integer");
  }
  if (ts < now_seconds - tolerance_seconds) return core::Unauthenticated("message timestamp too old");
  if (ts > now_seconds + tolerance_seconds) return core::Unauthenticated("message timestamp too new");
  return ts;
}

// Calls `match` with the base64 part of each "<version>,…" entry of the header until it says yes.
template <typename F>
bool AnyEntry(std::string_view signature_header, std::string_view version, F&& match) {
  size_t pos = 0;
  while (pos < signature_header.size()) {
    size_t sp = signature_header.find(' ', pos);
    std::string_view entry = signature_header.substr(pos, sp == std::string_view::npos ? std::string_view::npos : sp - pos);
    pos = sp == std::string_view::npos ? signature_header.size() : sp + 1;
    size_t comma = entry.find(',');
    if (comma == std::string_view::npos || entry.substr(0, comma) != version) continue;  // another scheme
    if (match(entry.substr(comma + 1))) return true;
  }
  return false;
}

}  // namespace

core::Result<std::string> PublicKeyOf(std::string_view signing_key) {
  SVC_ASSIGN_OR_RETURN(core::Ed25519KeyPair pair, KeyPairOf(signing_key));
  core::SecureZero(pair.secret_key);
  return std::string(kPublicKeyPrefix) + core::Base64Encode(pair.public_key);
}

core::Result<std::string> Sign(std::string_view secret, std::string_view msg_id, int64_t timestamp,
                               std::string_view payload) {
  const std::string content = SignedContent(msg_id, timestamp, payload);
  if (IsSigningKey(secret)) {
    SVC_ASSIGN_OR_RETURN(core::Ed25519KeyPair pair, KeyPairOf(secret));
    std::string signature = core::Ed25519Sign(pair.secret_key, content);
    core::SecureZero(pair.secret_key);
    return "v1a," + core::Base64Encode(signature);
  }
  SVC_ASSIGN_OR_RETURN(std::string key, SecretKey(secret));
  std::string mac = core::HmacSha256(key, content);
  core::SecureZero(key);
  return "v1," + core::Base64Encode(mac);
}

core::Result<std::string> SignatureHeader(const std::vector<std::string>& secrets,
                                          std::string_view msg_id, int64_t timestamp,
                                          std::string_view payload) {
  std::string header;
  for (const auto& s : secrets) {
    SVC_ASSIGN_OR_RETURN(std::string sig, Sign(s, msg_id, timestamp, payload));
    if (!header.empty()) header += ' ';
    header += sig;
  }
  return header;
}

core::Status Verify(std::string_view secret, std::string_view msg_id, std::string_view timestamp,
                    std::string_view payload, std::string_view signature_header, int64_t now_seconds,
                    int64_t tolerance_seconds) {
  SVC_ASSIGN_OR_RETURN(int64_t ts, CheckedTimestamp(msg_id, timestamp, signature_header, now_seconds, tolerance_seconds));
  SVC_ASSIGN_OR_RETURN(std::string expected, Sign(secret, msg_id, ts, payload));
  const std::string_view scheme = SchemeOf(secret);
  const std::string_view want = std::string_view(expected).substr(scheme.size() + 1);
  if (AnyEntry(signature_header, scheme, [&](std::string_view got) { return core::ConstantTimeEquals(got, want); })) {
    return core::Status::Ok();
  }
  return core::Unauthenticated("no matching signature");
}

core::Status VerifyWithPublicKey(std::string_view public_key, std::string_view msg_id, std::string_view timestamp,
                                 std::string_view payload, std::string_view signature_header, int64_t now_seconds,
                                 int64_t tolerance_seconds) {
  if (public_key.substr(0, kPublicKeyPrefix.size()) != kPublicKeyPrefix) {
    return core::InvalidArgument("a webhook public key starts with whpk_");
  }
  auto key = core::Base64Decode(public_key.substr(kPublicKeyPrefix.size()));
  if (!key.ok() || key->size() != 32) return core::InvalidArgument("a webhook public key is whpk_ + base64 of 32 bytes");
  SVC_ASSIGN_OR_RETURN(int64_t ts, CheckedTimestamp(msg_id, timestamp, signature_header, now_seconds, tolerance_seconds));
  const std::string content = SignedContent(msg_id, ts, payload);
  if (AnyEntry(signature_header, "v1a", [&](std::string_view got) {
        auto signature = core::Base64Decode(got);
        return signature.ok() && core::Ed25519Verify(*key, content, *signature);
      })) {
    return core::Status::Ok();
  }
  return core::Unauthenticated("no matching signature");
}

}  // namespace svc::pipeline::webhooks
