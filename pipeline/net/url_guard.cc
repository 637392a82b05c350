#include "pipeline/net/url_guard.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <array>
#include <cstring>
#include <memory>

namespace svc::pipeline::net {

namespace {

core::Status NotPublic(const std::string& why) {
  return core::InvalidArgument("the webhook URL must be https with a public host: " + why,
                               "URL_NOT_PUBLIC");
}

bool PublicV4(uint32_t a) {  // host byte order
  auto in = [&](uint32_t net, int bits) {
    uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
    return (a & mask) == (net & mask);
  };
  const std::pair<uint32_t, int> kDenied[] = {
      {0x00000000, 8},   // "this" network
      {0x0A000000, 8},   // 10/8
      {0x64400000, 10},  // 100.64/10 carrier-grade NAT
      {0x7F000000, 8},   // loopback
      {0xA9FE0000, 16},  // link-local (cloud metadata 169.254.169.254)
      {0xAC100000, 12},  // 172.16/12
      {0xC0000000, 24},  // 192.0.0/24 IETF assignments
      {0xC0000200, 24},  // TEST-NET-1
      {0xC0A80000, 16},  // 192.168/16
      {0xC6120000, 15},  // 198.18/15 benchmarking
      {0xC6336400, 24},  // TEST-NET-2
      {0xCB007100, 24},  // TEST-NET-3
      {0xE0000000, 4},   // multicast
      {0xF0000000, 4},   // reserved, broadcast
      {0xC0586300, 24},  // 192.88.99/24 6to4 relay
  };
  for (const auto& [net, bits] : kDenied) {
    if (in(net, bits)) return false;
  }
  return true;
}

}  // namespace

core::Result<ParsedUrl> ParseHttpUrl(std::string_view url) {
  auto bad = [](const std::string& why) {
    return core::InvalidArgument("not a usable URL: " + why, "VALIDATION_ERROR");
  };
  if (url.size() > 2048) return bad("longer than 2048 characters");
  ParsedUrl p;
  size_t colon = url.find("://");
  if (colon == std::string_view::npos) return bad("not absolute");
  p.scheme = std::string(url.substr(0, colon));
  for (auto& c : p.scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (p.scheme != "http" && p.scheme != "https") return bad("the scheme must be https");
  std::string_view rest = url.substr(colon + 3);
  if (rest.find('#') != std::string_view::npos) return bad("fragments are not allowed");
  size_t slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  p.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (!p.target.empty() && p.target[0] == '?') p.target = "/" + p.target;
  if (authority.find('@') != std::string_view::npos) return bad("user information is not allowed");
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return bad("spaces or control characters");
  }
  std::string_view port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed IPv6 literal");
    p.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return bad("junk after the IPv6 literal");
      port = after.substr(1);
    }
  } else {
    size_t c = authority.rfind(':');
    p.host = std::string(authority.substr(0, c));
    if (c != std::string_view::npos) port = authority.substr(c + 1);
  }
  if (p.host.empty()) return bad("no host");
  for (auto& c : p.host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  p.port = p.scheme == "https" ? 443 : 80;
  if (!port.empty()) {
    int v = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return bad("the port is not a number");
      v = v * 10 + (c - '0');
      if (v > 65535) return bad("the port is out of range");
    }
    if (v == 0) return bad("port 0");
    p.port = v;
  }
  return p;
}

bool IsPublicAddress(const std::string& ip) {
  in_addr v4{};
  if (inet_pton(AF_INET, ip.c_str(), &v4) == 1) return PublicV4(ntohl(v4.s_addr));
  in6_addr v6{};
  if (inet_pton(AF_INET6, ip.c_str(), &v6) != 1) return false;
  const uint8_t* b = v6.s6_addr;
  auto prefix = [&](std::initializer_list<uint8_t> bytes) {
    size_t i = 0;
    for (uint8_t x : bytes) {
      if (b[i++] != x) return false;
    }
    return true;
  };
  auto embedded_v4 = [&](int at) {
    return PublicV4((uint32_t{b[at]} << 24) | (uint32_t{b[at + 1]} << 16) | (uint32_t{b[at + 2]} << 8) | b[at + 3]);
  };
  static const uint8_t kZero[16] = {};
  if (std::memcmp(b, kZero, 15) == 0 && (b[15] == 0 || b[15] == 1)) return false;  // :: and ::1
  // Every form that carries an IPv4 address is judged by that address (issue 68, item 4: the
  // translated and the local-use NAT64 forms passed).
  if (prefix({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF})) return embedded_v4(12);  // ::ffff:a.b.c.d (mapped)
  if (prefix({0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0})) return embedded_v4(12);  // ::ffff:0:a.b.c.d (translated)
  if (prefix({0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0})) return embedded_v4(12);  // 64:ff9b::/96
  // 64:ff9b:1::/48, NAT64 for local use (RFC 8215): its IPv4 may sit anywhere the operator's
  // prefix length puts it, and it only ever reaches a local translator: never public.
  if (prefix({0, 0x64, 0xFF, 0x9B, 0, 0x01})) return false;
  // Teredo (2001::/32) carries its server's address and, inverted, its client's: a tunnel, never
  // a webhook receiver; so are the benchmarking and ORCHID ranges of 2001::/23.
  if (prefix({0x20, 0x01, 0, 0})) return false;
  if (prefix({0x20, 0x01, 0, 0x02, 0, 0})) return false;                            // 2001:2::/48
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && ((b[3] >> 4) == 1 || (b[3] >> 4) == 2)) {
    return false;  // 2001:10::/28 and 2001:20::/28 (ORCHID)
  }
  if (std::memcmp(b, kZero, 12) == 0) return false;                                 // ::a.b.c.d (deprecated)
  if ((b[0] & 0xFE) == 0xFC) return false;                                          // fc00::/7
  if (b[0] == 0xFE && (b[1] & 0xC0) == 0x80) return false;                          // fe80::/10
  if (b[0] == 0xFE && (b[1] & 0xC0) == 0xC0) return false;                          // fec0::/10 site-local
  if (b[0] == 0xFF) return false;                                                   // multicast
  if (prefix({0x20, 0x01, 0x0D, 0xB8})) return false;                               // documentation
  if (prefix({0x01, 0x00, 0, 0, 0, 0, 0, 0})) return false;                         // discard-only
  if (prefix({0x20, 0x02})) return embedded_v4(2);                                  // 6to4
  return true;
}

core::Result<ParsedUrl> CheckWebhookUrlShape(std::string_view url, bool allow_private) {
  SVC_ASSIGN_OR_RETURN(ParsedUrl p, ParseHttpUrl(url));
  if (allow_private) return p;
  if (p.scheme != "https") return NotPublic("http is not allowed");
  if (p.host == "localhost" || (p.host.size() > 10 && p.host.substr(p.host.size() - 10) == ".localhost")) {
    return NotPublic(p.host + " is loopback");
  }
  in_addr v4{};
  in6_addr v6{};
  const bool numeric = inet_pton(AF_INET, p.host.c_str(), &v4) == 1 || inet_pton(AF_INET6, p.host.c_str(), &v6) == 1;
  if (numeric && !IsPublicAddress(p.host)) return NotPublic(p.host + " is not public");
  return p;
}

core::Result<ParsedUrl> CheckWebhookUrl(std::string_view url, bool allow_private) {
  SVC_ASSIGN_OR_RETURN(ParsedUrl p, CheckWebhookUrlShape(url, allow_private));
  if (allow_private) return p;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(p.host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) {
    return NotPublic(p.host + " does not resolve");
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, &freeaddrinfo);
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* addr = a->ai_family == AF_INET
                           ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr)
                           : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
    if (inet_ntop(a->ai_family, addr, text, sizeof text) == nullptr) continue;
    if (!IsPublicAddress(text)) return NotPublic(p.host + " resolves to " + text + ", which is not public");
  }
  return p;
}

}  // namespace svc::pipeline::net
