#pragma once
// Where the service may send requests on an integrator's behalf (webhooks): SSRF protection.
//
// A webhook URL must be https with a public host. Refused (422 URL_NOT_PUBLIC): loopback,
// private (RFC 1918, fc00::/7), link-local (169.254/16 — the cloud metadata address
// 169.254.169.254 among them — and fe80::/10), carrier-grade NAT, unspecified, multicast,
// reserved and documentation ranges, and IPv4-mapped / NAT64 forms of those. A host name is
// resolved and every address must be public; the delivery client checks the address it actually
// connects to again (DNS rebinding).
//
// `allow_private` (the server's --webhooks-allow-private-urls, for development and tests only)
// allows http and any address.

#include <string>
#include <vector>

#include "core/status.h"

namespace svc::pipeline::net {

struct ParsedUrl {
  std::string scheme;  // http | https
  std::string host;    // without brackets
  int port = 0;
  std::string target;  // path and query, at least "/"
};

// Syntax: absolute http(s) URL, no user info, no fragment, at most 2048 characters.
core::Result<ParsedUrl> ParseHttpUrl(std::string_view url);

// Whether a numeric address (IPv4 dotted or IPv6) is public; false for anything unparsable.
bool IsPublicAddress(const std::string& ip);

// The full check of a webhook URL (resolving the host); returns the parsed URL.
core::Result<ParsedUrl> CheckWebhookUrl(std::string_view url, bool allow_private);

// The same check without resolving the host (a session's callbackUrl, on the create path): https,
// no loopback name, and a numeric host must be public. A name that resolves to a private address
// is refused when a delivery connects (the delivery client checks every address it connects to).
core::Result<ParsedUrl> CheckWebhookUrlShape(std::string_view url, bool allow_private);

}  // namespace svc::pipeline::net
