#include "pipeline/webhooks/signing.h"

#include <charconv>

#include "core/crypto.h"

namespace svc::pipeline::webhooks {

std::string NewSecret() {
  // Drawn again until the base64 has neither '+' nor '/': then a base64 decoder (Standard
  // Webhooks libraries) and a base64url decoder (the interface spec's wording) give the same 32
  // bytes. About 4 draws; under 2 of the 256 bits are given up.
  for (;;) {
    std::string text = core::Base64Encode(core::RandomBytes(32));
    if (text.find_first_of("+/") == std::string::npos) return std::string(kSecretPrefix) + text;
  }
}

core::Result<std::string> SecretKey(std::string_view secret) {
  if (secret.substr(0, kSecretPrefix.size()) != kSecretPrefix) {
    return core::InvalidArgument("a webhook secret starts with whsec_");
  }
  auto key = core::Base64Decode(secret.substr(kSecretPrefix.size()));
  if (!key.ok() || key->empty()) return core::InvalidArgument("a webhook secret is whsec_ + base64");
  return key;
}

core::Result<std::string> Sign(std::string_view secret, std::string_view msg_id, int64_t timestamp,
                               std::string_view payload) {
  SVC_ASSIGN_OR_RETURN(std::string key, SecretKey(secret));
  std::string content;
  content.reserve(msg_id.size() + payload.size() + 24);
  content.append(msg_id).append(".").append(std::to_string(timestamp)).append(".").append(payload);
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
  SVC_ASSIGN_OR_RETURN(std::string expected, Sign(secret, msg_id, ts, payload));
  // Compare the base64 part of each "v1,…" entry; other versions are skipped.
  std::string_view want = std::string_view(expected).substr(3);
  size_t pos = 0;
  while (pos < signature_header.size()) {
    size_t sp = signature_header.find(' ', pos);
    std::string_view entry = signature_header.substr(pos, sp == std::string_view::npos ? std::string_view::npos : sp - pos);
    pos = sp == std::string_view::npos ? signature_header.size() : sp + 1;
    size_t comma = entry.find(',');
    if (comma == std::string_view::npos || entry.substr(0, comma) != "v1") continue;
    if (core::ConstantTimeEquals(entry.substr(comma + 1), want)) return core::Status::Ok();
  }
  return core::Unauthenticated("no matching signature");
}

}  // namespace svc::pipeline::webhooks
