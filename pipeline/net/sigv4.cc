#include "pipeline/net/sigv4.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include "core/crypto.h"

namespace svc::pipeline::net {
namespace {

constexpr char kAlgorithm[] = "AWS4-HMAC-SHA256";

std::string Hex(std::string_view raw) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() * 2);
  for (unsigned char c : raw) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A header value as SigV4 signs it: leading and trailing white space removed, every run of
// spaces inside it collapsed to one.
std::string TrimCollapse(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// Dot segments resolved and empty segments dropped (RFC 3986 5.2.4, plus the collapse of "//"),
// keeping a trailing slash: the generic suite's path rule.
std::string NormalisePath(std::string_view path) {
  std::vector<std::string_view> segments;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view seg = path.substr(i, j - i);
    if (seg == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (!seg.empty() && seg != ".") {
      segments.push_back(seg);
    }
    i = j + 1;
  }
  std::string out;
  for (auto seg : segments) out.append("/").append(seg);
  const bool trailing = path.size() > 1 && (path.back() == '/' || path.ends_with("/.") || path.ends_with("/.."));
  if (out.empty() || trailing) out.push_back('/');
  return out;
}

}  // namespace

std::string AwsUriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    }
  }
  return out;
}

std::string AwsWirePath(std::string_view decoded_path) {
  return decoded_path.empty() ? "/" : AwsUriEncode(decoded_path, true);
}

std::string AwsCanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) encoded.emplace_back(AwsUriEncode(name, false), AwsUriEncode(value, false));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out.push_back('&');
    out.append(name).append("=").append(value);
  }
  return out;
}

std::string AmzDate(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[20];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

SigV4Signature SignV4(const SigV4Request& request, const AwsCredentials& credentials, const SigV4Scope& scope,
                      std::string_view amz_date, PathRule rule) {
  SigV4Signature s;
  // Headers by lower-case name, sorted; a name given more than once signs its values joined with
  // commas, in the order given.
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : request.headers) {
    auto [it, inserted] = headers.try_emplace(Lower(name), TrimCollapse(value));
    if (!inserted) it->second.append(",").append(TrimCollapse(value));
  }
  std::string canonical_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers.append(name).append(":").append(value).append("\n");
    if (!s.signed_headers.empty()) s.signed_headers.push_back(';');
    s.signed_headers.append(name);
  }
  const std::string path = request.path.empty() ? "/" : request.path;
  const std::string canonical_uri = rule == PathRule::kS3
                                        ? AwsWirePath(path)
                                        : AwsUriEncode(AwsUriEncode(NormalisePath(path), true), true);
  s.canonical_request = request.method + "\n" + canonical_uri + "\n" + AwsCanonicalQuery(request.query) + "\n" +
                        canonical_headers + "\n" + s.signed_headers + "\n" + request.payload_sha256;

  const std::string_view date = amz_date.substr(0, 8);
  const std::string credential_scope =
      std::string(date) + "/" + scope.region + "/" + scope.service + "/aws4_request";
  s.string_to_sign = std::string(kAlgorithm) + "\n" + std::string(amz_date) + "\n" + credential_scope + "\n" +
                     core::Sha256Hex(s.canonical_request);

  std::string key = core::HmacSha256("AWS4" + credentials.secret_access_key, date);
  key = core::HmacSha256(key, scope.region);
  key = core::HmacSha256(key, scope.service);
  key = core::HmacSha256(key, "aws4_request");
  s.signature = Hex(core::HmacSha256(key, s.string_to_sign));
  core::SecureZero(key);
  s.authorization = std::string(kAlgorithm) + " Credential=" + credentials.access_key_id + "/" + credential_scope +
                    ", SignedHeaders=" + s.signed_headers + ", Signature=" + s.signature;
  return s;
}

}  // namespace svc::pipeline::net
