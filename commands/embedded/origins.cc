#include "commands/embedded/origins.h"

#include <algorithm>

namespace svc::commands::embedded {

namespace {

core::Status Bad(std::string_view text, const std::string& why) {
  std::string shown(text.substr(0, 120));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return core::InvalidArgument("origin \"" + shown + "\" " + why, "ORIGIN_INVALID");
}

bool Loopback(const std::string& host) {
  if (host == "localhost" || host == "[::1]") return true;
  if (host.size() > 10 && host.compare(host.size() - 10, 10, ".localhost") == 0) return true;
  return host.rfind("127.", 0) == 0 &&
         std::all_of(host.begin(), host.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

bool HostChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

}  // namespace

core::Result<std::string> NormalizeOrigin(std::string_view text) {
  if (text.empty() || text.size() > 255) return Bad(text, "must be 1 to 255 characters");
  std::string s(text);
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string scheme;
  if (lower.rfind("https://", 0) == 0) scheme = "https";
  else if (lower.rfind("http://", 0) == 0) scheme = "http";
  else return Bad(text, "must start with https:// (http:// only for localhost)");
  std::string rest = lower.substr(scheme.size() + 3);
  if (!rest.empty() && rest.back() == '/') rest.pop_back();  // "https://a.example/" is the same origin
  if (rest.find_first_of("/?#@\\") != std::string::npos) {
    return Bad(text, "must be scheme://host[:port] only (no path, query, fragment or user info)");
  }
  std::string host = rest, port;
  if (!rest.empty() && rest[0] == '[') {  // an IPv6 literal
    auto close = rest.find(']');
    if (close == std::string::npos) return Bad(text, "has an unclosed IPv6 literal");
    host = rest.substr(0, close + 1);
    std::string after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return Bad(text, "has characters after the IPv6 literal");
      port = after.substr(1);
    }
  } else if (auto colon = rest.find(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    if (port.empty()) return Bad(text, "has an empty port");
  }
  if (host.empty()) return Bad(text, "has no host");
  if (host.find('*') != std::string::npos) return Bad(text, "must name a concrete host (no wildcard)");
  if (host[0] != '[') {
    if (!std::all_of(host.begin(), host.end(), HostChar) || host.front() == '.' || host.front() == '-' ||
        host.find("..") != std::string::npos) {
      return Bad(text, "has an invalid host");
    }
    if (host.back() == '.') host.pop_back();
  }
  if (!port.empty()) {
    if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        std::stoi(port) == 0 || std::stoi(port) > 65535) {
      return Bad(text, "has an invalid port");
    }
    port = std::to_string(std::stoi(port));
    if ((scheme == "https" && port == "443") || (scheme == "http" && port == "80")) port.clear();
  }
  const bool loop = Loopback(host);
  if (scheme == "http" && !loop) return Bad(text, "must use https (http is allowed only for localhost and loopback)");
  if (scheme == "https" && !loop && host.find('.') == std::string::npos && host[0] != '[') {
    return Bad(text, "must name a concrete, fully qualified host");
  }
  return scheme + "://" + host + (port.empty() ? "" : ":" + port);
}

core::Result<std::vector<std::string>> NormalizeOrigins(const std::vector<std::string>& origins,
                                                        std::string_view field) {
  std::vector<std::string> out;
  for (const auto& o : origins) {
    auto n = NormalizeOrigin(o);
    if (!n.ok()) {
      core::Status st = n.status();
      return core::InvalidArgument(std::string(field) + ": " + st.message(), "ORIGIN_INVALID");
    }
    if (std::find(out.begin(), out.end(), *n) == out.end()) out.push_back(*n);
  }
  return out;
}

std::string FrameAncestors(const std::vector<std::string>& origins) {
  if (origins.empty()) return "'none'";
  std::string out;
  for (const auto& o : origins) {
    if (!out.empty()) out += ' ';
    out += o;
  }
  return out;
}

}  // namespace svc::commands::embedded
