#pragma once
// A media link's token (docs/persons.md#media-links): "mlk1.<payload>.<mac>", the payload the
// base64url JSON of ids only (link, tenant, environment, session, capture, person, application,
// purpose, expiry), the MAC an HMAC-SHA256 of both under a key derived from the data directory's
// root key. An altered, truncated or expired token reads as nothing, whatever was altered.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace svc::pipeline::persons {

struct MediaLink {
  std::string id;  // mlk_…
  std::string tenant, environment, session_id, media_id;
  std::string person_id;  // "" = the session has no person
  std::string application_id, purpose;
  int64_t expires_micros = 0;
};

// `root_key`: the runtime's seal key (the link key derives from it).
std::string MediaLinkToken(std::string_view root_key, const MediaLink& link);
// The link a token names, when it is intact and not expired at `now_micros`.
std::optional<MediaLink> ReadMediaLinkToken(std::string_view root_key, std::string_view token, int64_t now_micros);

}  // namespace svc::pipeline::persons
