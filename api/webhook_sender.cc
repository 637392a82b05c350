#include "api/webhook_sender.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <ctime>

#include "api/url_guard.h"

namespace svc::api {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::optional<int64_t> ParseRetryAfter(const std::string& value, int64_t now_seconds) {
  if (value.empty()) return std::nullopt;
  bool digits = true;
  for (char c : value) digits &= c >= '0' && c <= '9';
  if (digits && value.size() <= 9) return std::stoll(value);
  std::tm tm{};
  const char* end = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  int64_t at = timegm(&tm);
  return std::max<int64_t>(0, at - now_seconds);
}

namespace {

// Runs one asynchronous operation to completion (beast::tcp_stream's timeouts apply only to
// asynchronous operations).
template <typename Start>
beast::error_code Await(asio::io_context& io, Start start) {
  beast::error_code result;
  start([&result](beast::error_code ec, auto&&...) { result = ec; });
  io.restart();
  io.run();
  return result;
}

template <typename Stream>
void Exchange(Stream& stream, beast::tcp_stream& lowest, const http::request<http::string_body>& req,
              const SendOptions& o, std::chrono::steady_clock::time_point deadline, SendResult& r,
              int64_t now_seconds) {
  auto left = [&] {
    return std::max(std::chrono::milliseconds(1),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
  };
  asio::io_context& io = static_cast<asio::io_context&>(lowest.get_executor().context());
  lowest.expires_after(left());
  beast::error_code ec = Await(io, [&](auto done) { http::async_write(stream, req, done); });
  if (ec) {
    r.error = ec == beast::error::timeout ? "timeout" : "connection_closed";
    r.detail = ec.message();
    return;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(o.max_response_bytes);
  parser.header_limit(16 * 1024);
  lowest.expires_after(left());
  ec = Await(io, [&](auto done) { http::async_read(stream, buffer, parser, done); });
  if (parser.is_header_done()) {
    r.status = static_cast<int>(parser.get().result_int());
    auto ra = parser.get().find(http::field::retry_after);
    if (ra != parser.get().end()) r.retry_after_seconds = ParseRetryAfter(std::string(ra->value()), now_seconds);
  }
  if (ec == http::error::body_limit) {
    r.error = "response_too_large";
    r.detail = "the response was cut at " + std::to_string(o.max_response_bytes) + " bytes";
    return;
  }
  if (ec) {
    r.error = ec == beast::error::timeout ? "timeout"
              : (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset)
                  ? "connection_closed"
                  : "protocol_error";
    r.detail = ec.message();
    return;
  }
  r.body = parser.get().body();
}

}  // namespace

SendResult PostWebhook(const std::string& url, const std::vector<std::pair<std::string, std::string>>& headers,
                       const std::string& body, const SendOptions& o, int64_t now_seconds) {
  SendResult r;
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + o.total_timeout;
  auto finish = [&]() -> SendResult {
    r.latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    return r;
  };
  auto parsed = ParseHttpUrl(url);
  if (!parsed.ok() || (parsed->scheme == "http" && !o.allow_private)) {
    r.error = "invalid_url";
    r.detail = parsed.ok() ? "http is allowed in development only" : parsed.status().message();
    return finish();
  }
  asio::io_context io;
  tcp::resolver resolver(io);
  beast::error_code ec;
  auto found = resolver.resolve(parsed->host, std::to_string(parsed->port), ec);
  if (ec) {
    r.error = "resolve_failed";
    r.detail = ec.message();
    return finish();
  }
  // Connect-time SSRF check: only addresses that are public (DNS rebinding).
  std::vector<tcp::endpoint> allowed;
  for (const auto& e : found) {
    if (o.allow_private || IsPublicAddress(e.endpoint().address().to_string())) allowed.push_back(e.endpoint());
  }
  if (allowed.empty()) {
    r.error = "address_not_public";
    r.detail = parsed->host + " resolves to no public address";
    return finish();
  }
  http::request<http::string_body> req{http::verb::post, parsed->target, 11};
  req.set(http::field::host, parsed->host + (parsed->port == (parsed->scheme == "https" ? 443 : 80)
                                                 ? ""
                                                 : ":" + std::to_string(parsed->port)));
  req.set(http::field::user_agent, "svc-webhooks/1");
  req.set(http::field::content_type, "application/json");
  req.set(http::field::connection, "close");
  for (const auto& [k, v] : headers) req.set(k, v);
  req.body() = body;
  req.prepare_payload();

  beast::tcp_stream tcp_stream(io);
  tcp_stream.expires_after(std::min(o.connect_timeout, o.total_timeout));
  ec = Await(io, [&](auto done) { tcp_stream.async_connect(allowed, done); });
  if (ec) {
    r.error = ec == beast::error::timeout ? "timeout" : "connect_failed";
    r.detail = ec.message();
    return finish();
  }
  if (parsed->scheme == "http") {
    Exchange(tcp_stream, tcp_stream, req, o, deadline, r, now_seconds);
    tcp_stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    return finish();
  }
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  ctx.set_verify_mode(asio::ssl::verify_peer);
  ctx.set_default_verify_paths(ec);
  if (!o.ca_file.empty()) ctx.load_verify_file(o.ca_file, ec);
  if (ec) {
    r.error = "tls_failed";
    r.detail = "trust store: " + ec.message();
    return finish();
  }
  beast::ssl_stream<beast::tcp_stream&> tls(tcp_stream, ctx);
  if (!SSL_set_tlsext_host_name(tls.native_handle(), parsed->host.c_str())) {
    r.error = "tls_failed";
    r.detail = "SNI";
    return finish();
  }
  tls.set_verify_callback(asio::ssl::host_name_verification(parsed->host));
  tcp_stream.expires_after(std::max(std::chrono::milliseconds(1),
                                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())));
  ec = Await(io, [&](auto done) { tls.async_handshake(asio::ssl::stream_base::client, done); });
  if (ec) {
    r.error = ec == beast::error::timeout ? "timeout" : "tls_failed";
    r.detail = ec.message();
    return finish();
  }
  Exchange(tls, tcp_stream, req, o, deadline, r, now_seconds);
  tcp_stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  return finish();
}

}  // namespace svc::api
