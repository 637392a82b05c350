#include "pipeline/adapters/gateway_client.h"

#include "core/clock.h"
#include "core/crypto.h"
#include "pipeline/net/url_guard.h"

namespace svc::pipeline::adapters {

core::Result<std::unique_ptr<GatewayClient>> GatewayClient::Create(const std::string& flag, const std::string& base_url,
                                                                   std::string token, std::chrono::milliseconds timeout,
                                                                   std::string ca_file) {
  auto parsed = net::ParseHttpUrl(base_url);
  if (!parsed.ok()) return core::InvalidArgument(flag + " must be an http(s) URL: " + parsed.status().message());
  if (parsed->target.find('?') != std::string::npos) return core::InvalidArgument(flag + " must not have a query");
  auto c = std::unique_ptr<GatewayClient>(new GatewayClient());
  std::string prefix = parsed->target;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  std::string host = parsed->host.find(':') != std::string::npos ? "[" + parsed->host + "]" : parsed->host;
  c->base_ = parsed->scheme + "://" + host + ":" + std::to_string(parsed->port) + prefix;
  if (!token.empty()) c->authorization_ = "Bearer " + token;
  // The gateway is the operator's own configuration, often on a private link: no public-address
  // rule; certificates are verified for https (the system store, plus ca_file).
  c->send_.allow_private = true;
  c->send_.connect_timeout = timeout;
  c->send_.total_timeout = timeout;
  c->send_.ca_file = std::move(ca_file);
  c->send_.user_agent = "svc-registry/1";
  return c;
}

void GatewayClient::UseBasicAuth(const std::string& user_password) {
  authorization_ = user_password.empty() ? "" : "Basic " + core::Base64Encode(user_password);
}

net::SendResult GatewayClient::Call(const std::string& method, const std::string& path, const std::string& body,
                                    const Media& media) {
  std::unique_ptr<net::OutboundClient> client;
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      client = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!client) client = std::make_unique<net::OutboundClient>(send_);
  std::vector<std::pair<std::string, std::string>> headers = {{"accept", media.accept}};
  if (!body.empty()) headers.emplace_back("content-type", media.content_type);
  if (!authorization_.empty()) headers.emplace_back("authorization", authorization_);
  net::SendResult r = client->Send(method, base_ + path, headers, body, core::SystemClock().Now().micros / 1'000'000);
  std::lock_guard lock(mu_);
  if (idle_.size() < 8) idle_.push_back(std::move(client));
  return r;
}

bool GatewayClient::Unavailable(const net::SendResult& r) {
  return r.status == 0 || r.status >= 500 || r.status == 401 || r.status == 403 || r.status == 429;
}

std::string GatewayClient::ErrorCode(const std::string& prefix, const net::SendResult& r) {
  return r.status == 0 ? prefix + "_TRANSPORT_ERROR" : prefix + "_HTTP_" + std::to_string(r.status);
}

}  // namespace svc::pipeline::adapters
