#include "api/http/static_asset.h"

#include <zlib.h>

#include <map>
#include <mutex>
#include <stdexcept>

#include "core/crypto.h"

namespace svc::api {

std::string Gzip(std::string_view body) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&z, body.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  z.avail_in = static_cast<uInt>(body.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  return out;
}

namespace {

struct Prepared {
  std::string etag;
  std::string gzipped;
};

// Per compiled-in file (its bytes never move): the ETag and the gzipped bytes, made once.
const Prepared& PreparedOf(std::string_view body) {
  static std::mutex mu;
  static std::map<const char*, Prepared> cache;
  std::lock_guard lock(mu);
  auto it = cache.find(body.data());
  if (it != cache.end()) return it->second;
  Prepared p;
  p.etag = "\"" + core::Sha256Hex(body).substr(0, 32) + "\"";
  p.gzipped = Gzip(body);
  return cache.emplace(body.data(), std::move(p)).first->second;
}

// True when the comma-separated header lists `token` (an ETag, or a coding with q > 0).
bool Lists(std::string_view header, std::string_view token) {
  while (!header.empty()) {
    const size_t comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    const size_t semi = item.find(';');
    std::string_view name = item.substr(0, semi);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name != token) continue;
    if (semi == std::string_view::npos) return true;
    std::string_view param = item.substr(semi + 1);
    while (!param.empty() && param.front() == ' ') param.remove_prefix(1);
    if (param.rfind("q=", 0) != 0) return true;
    param.remove_prefix(2);
    return param.find_first_not_of("0.") != std::string_view::npos;  // q=0, q=0.0, q=0.000: refused
  }
  return false;
}

}  // namespace

HttpResponse StaticAsset(const HttpRequest& req, std::string_view body, std::string content_type) {
  const Prepared& p = PreparedOf(body);
  HttpResponse r;
  r.content_type = std::move(content_type);
  r.headers.emplace_back("ETag", p.etag);
  r.headers.emplace_back("Vary", "Accept-Encoding");
  const std::string match = req.Header("if-none-match");
  if (!match.empty() && (match == "*" || Lists(match, p.etag) || Lists(match, "W/" + p.etag))) {
    r.status = 304;
    return r;
  }
  if (Lists(req.Header("accept-encoding"), "gzip") && p.gzipped.size() < body.size()) {
    r.body = p.gzipped;
    r.headers.emplace_back("Content-Encoding", "gzip");
  } else {
    r.body = std::string(body);
  }
  return r;
}

}  // namespace svc::api
