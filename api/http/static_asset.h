#pragma once
// A file compiled into the binary, served as a careful static server does: a strong ETag over its
// bytes (If-None-Match answers 304 with no body), gzip for a client that accepts it (compressed
// once, on first use; `Vary: Accept-Encoding`). The caller sets Cache-Control and its security
// headers (nosniff among them). Used by the review console and the embedded widget.

#include <string>
#include <string_view>

#include "api/http/http.h"

namespace svc::api {

HttpResponse StaticAsset(const HttpRequest& req, std::string_view body, std::string content_type);

// `body` gzipped (RFC 1952), at the best compression.
std::string Gzip(std::string_view body);

}  // namespace svc::api
