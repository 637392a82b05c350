#pragma once
// The outbound HTTP/1.1 client (Beast + OpenSSL): webhook deliveries and the registry gateway.
//
//  - https with certificate verification on (the system store, plus `ca_file` when given) and
//    SNI; http only with `allow_private` (development);
//  - the host is resolved and every address it connects to is checked again here (DNS
//    rebinding: a name that resolved to a public address at registration and to 127.0.0.1 now is
//    refused, `address_not_public`), unless `allow_private`;
//  - a connect timeout and a total timeout; a response larger than `max_response_bytes` is cut
//    and reported (`response_too_large`) with its status;
//  - `Retry-After` (seconds or an HTTP date) is returned for the retry schedule.
//
// It blocks the calling thread (a delivery worker's).

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace svc::pipeline::net {

struct SendOptions {
  bool allow_private = false;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds total_timeout{15000};
  size_t max_response_bytes = 64 * 1024;
  std::string ca_file;  // an extra trust anchor (tests, private CAs)
  std::string user_agent = "svc-webhooks/1";
};

struct SendResult {
  int status = 0;     // the receiver's HTTP status; 0 when there was no answer
  std::string error;  // "" or: invalid_url, resolve_failed, address_not_public, connect_failed,
                      // tls_failed, timeout, connection_closed, protocol_error, response_too_large
  std::string detail;
  std::optional<int64_t> retry_after_seconds;
  int64_t latency_ms = 0;
  std::string body;  // the response body, at most max_response_bytes
  std::vector<std::pair<std::string, std::string>> headers = {};  // the response's, names in lower case
};

// A client that keeps its connection open between posts to the same origin (scheme, host,
// port) while the receiver allows it (HTTP/1.1 keep-alive): a delivery worker uses one for a run
// of deliveries to one endpoint, which spares a TCP (and TLS) handshake per delivery. The
// trust store is loaded once per client. Not thread-safe: one per worker.
class OutboundClient {
 public:
  explicit OutboundClient(const SendOptions& options, bool keep_alive = true);
  ~OutboundClient();
  OutboundClient(const OutboundClient&) = delete;
  OutboundClient& operator=(const OutboundClient&) = delete;
  // A POST of a JSON body (webhooks).
  SendResult Post(const std::string& url, const std::vector<std::pair<std::string, std::string>>& headers,
                  const std::string& body, int64_t now_seconds);
  // Any method; `headers` are sent as given (with Host, User-Agent and Content-Length added).
  SendResult Send(const std::string& method, const std::string& url,
                  const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body,
                  int64_t now_seconds);
  // The same with the body read from the file at `path` as it is sent (a large upload that is
  // never whole in memory); error "invalid_body" when the file cannot be opened.
  SendResult SendFile(const std::string& method, const std::string& url,
                      const std::vector<std::pair<std::string, std::string>>& headers, const std::string& path,
                      int64_t now_seconds);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One POST on a new connection (closed after the answer).
SendResult PostWebhook(const std::string& url, const std::vector<std::pair<std::string, std::string>>& headers,
                       const std::string& body, const SendOptions& options, int64_t now_seconds);

// "120" or an IMF-fixdate ("Wed, 21 Oct 2026 07:28:00 GMT") as seconds from `now_seconds`.
std::optional<int64_t> ParseRetryAfter(const std::string& value, int64_t now_seconds);

}  // namespace svc::pipeline::net
