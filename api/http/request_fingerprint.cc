#include "api/http/request_fingerprint.h"

#include <simdjson.h>

#include "api/http/pagination.h"
#include "core/canonical_json_dom.h"
#include "core/crypto.h"
#include "core/ids.h"

namespace svc::api {

namespace {

// A length before each part, so no two different lists of parts give the same bytes.
void AppendPart(std::string& out, std::string_view part) {
  out.append(std::to_string(part.size())).push_back(':');
  out.append(part);
}

}  // namespace

std::string RequestFingerprint(std::string_view key, const HttpRequest& req) {
  std::string canonical;
  canonical.reserve(req.body.size() + req.path.size() + 64);
  AppendPart(canonical, req.method);
  AppendPart(canonical, req.path);
  const auto query = ParseQuery(req.query);
  canonical.append(std::to_string(query.size())).push_back('#');
  for (const auto& [name, value] : query) {
    AppendPart(canonical, name);
    AppendPart(canonical, value);
  }
  // The body: canonical JSON when it parses as JSON, else its bytes (an empty body is empty).
  std::string body;
  bool json = false;
  if (!req.body.empty()) {
    thread_local simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(req.body).get(root) == simdjson::SUCCESS && core::AppendCanonical(root, body).ok()) {
      json = true;
    } else {
      body.clear();
    }
  }
  canonical.append(json ? "json" : "raw");
  AppendPart(canonical, json ? std::string_view(body) : std::string_view(req.body));
  return std::string(kFingerprintPrefix) + core::HexEncode(core::HmacSha256(key, canonical));
}

}  // namespace svc::api
