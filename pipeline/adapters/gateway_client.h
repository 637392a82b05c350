#pragma once
// What the registry adapters share (gov_registry_http, company_registry_http): a gateway's base
// URL checked once, a bearer token, one timeout for connect and exchange, https with the system
// store plus an optional private CA, and kept connections reused across lookups (one per
// concurrent caller, up to eight idle). (Extracted when the second gateway came.)

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "pipeline/net/outbound_client.h"

namespace svc::pipeline::adapters {

class GatewayClient {
 public:
  // `flag` names the setting in errors (--gov-registry-url).
  static core::Result<std::unique_ptr<GatewayClient>> Create(const std::string& flag, const std::string& base_url,
                                                             std::string token, std::chrono::milliseconds timeout,
                                                             std::string ca_file);
  // `path` is appended to the base URL. JSON both ways unless said otherwise (a TSA speaks
  // application/timestamp-query and -reply).
  struct Media {
    std::string content_type = "application/json";
    std::string accept = "application/json";
  };
  net::SendResult Call(const std::string& method, const std::string& path, const std::string& body,
                       const Media& media);
  net::SendResult Call(const std::string& method, const std::string& path, const std::string& body) {
    return Call(method, path, body, Media{});
  }
  // HTTP Basic credentials ("user:password", RFC 7617) instead of the bearer token.
  void UseBasicAuth(const std::string& user_password);
  // Whether an answer means the gateway is unavailable (transport error, 5xx, 401, 403, 429), and
  // the error code to record ("<prefix>_TRANSPORT_ERROR", "<prefix>_HTTP_<status>").
  static bool Unavailable(const net::SendResult& r);
  static std::string ErrorCode(const std::string& prefix, const net::SendResult& r);

 private:
  GatewayClient() = default;
  std::string base_;  // scheme://host:port/prefix
  std::string authorization_;  // the Authorization header's value, or ""
  net::SendOptions send_;
  std::mutex mu_;
  std::vector<std::unique_ptr<net::OutboundClient>> idle_;
};

}  // namespace svc::pipeline::adapters
