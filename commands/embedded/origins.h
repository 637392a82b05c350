#pragma once
// Web origins an application or an embedded session allows (docs/embedded.md#origins): where the
// widget may be mounted. An allowed origin is `https://host[:port]` with a concrete host (no
// wildcard, no path, no user info), or `http://` on localhost / a loopback address for
// development. Anything else is ORIGIN_INVALID.

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace svc::commands::embedded {

// The origin in its serialised form (RFC 6454: lowercase scheme and host, no default port), or
// ORIGIN_INVALID naming what is wrong.
core::Result<std::string> NormalizeOrigin(std::string_view text);

// Every origin of `origins` normalised, duplicates removed (first kept); ORIGIN_INVALID at the
// first bad one. `field` names the list in the message.
core::Result<std::vector<std::string>> NormalizeOrigins(const std::vector<std::string>& origins,
                                                        std::string_view field);

// The CSP `frame-ancestors` source list for these origins ('none' when empty).
std::string FrameAncestors(const std::vector<std::string>& origins);

}  // namespace svc::commands::embedded
