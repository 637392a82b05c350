#include "pipeline/persons/media_links.h"

#include "core/crypto.h"
#include "core/json.h"

namespace svc::pipeline::persons {

namespace {

constexpr std::string_view kVersion = "mlk1.";

std::string Mac(std::string_view root_key, std::string_view signed_part) {
  return core::Base64UrlEncode(core::HmacSha256(core::DeriveSubkey(root_key, "svc/media-link/v1"), signed_part));
}

}  // namespace

std::string MediaLinkToken(std::string_view root_key, const MediaLink& l) {
  core::Json payload = {{"id", l.id},         {"t", l.tenant},         {"e", l.environment},
                        {"s", l.session_id},  {"m", l.media_id},       {"p", l.person_id},
                        {"a", l.application_id}, {"u", l.purpose},     {"x", l.expires_micros}};
  const std::string signed_part = std::string(kVersion) + core::Base64UrlEncode(core::DumpJson(payload));
  return signed_part + "." + Mac(root_key, signed_part);
}

std::optional<MediaLink> ReadMediaLinkToken(std::string_view root_key, std::string_view token, int64_t now_micros) {
  const size_t dot = token.rfind('.');
  if (token.rfind(kVersion, 0) != 0 || dot == std::string_view::npos || dot <= kVersion.size()) return std::nullopt;
  const std::string_view signed_part = token.substr(0, dot);
  if (!core::ConstantTimeEquals(token.substr(dot + 1), Mac(root_key, signed_part))) return std::nullopt;
  auto text = core::Base64UrlDecode(signed_part.substr(kVersion.size()));
  if (!text.ok()) return std::nullopt;
  const core::Json p = core::ParseJsonOrDiscarded(*text);
  if (!p.is_object() || !p.value("x", core::Json()).is_number_integer() || p["x"].get<int64_t>() <= now_micros) {
    return std::nullopt;
  }
  return MediaLink{core::StringOr(p, "id"), core::StringOr(p, "t"), core::StringOr(p, "e"), core::StringOr(p, "s"),
                   core::StringOr(p, "m"),  core::StringOr(p, "p"), core::StringOr(p, "a"), core::StringOr(p, "u"),
                   p["x"].get<int64_t>()};
}

}  // namespace svc::pipeline::persons
