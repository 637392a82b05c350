#pragma once
// GET on a helper process of the tests listening on loopback (the webhook receiver's and the S3
// server's logs).

#include <stdexcept>
#include <string>

#include "api/http/http_client.h"

namespace svc::testing {

// The body of GET `path` on loopback `port`; throws when nothing answers.
inline std::string LoopbackGet(int port, const std::string& path) {
  api::ClientTarget t;
  t.port = static_cast<uint16_t>(port);
  auto r = api::HttpCall(t, "GET", path);
  if (!r.ok()) throw std::runtime_error("GET " + path + ": " + r.status().ToString());
  return r->body;
}

}  // namespace svc::testing
