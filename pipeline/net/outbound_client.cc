#include "pipeline/net/outbound_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <ctime>
#include <memory>

#include "pipeline/net/url_guard.h"

namespace svc::pipeline::net {

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

// One request and its response; true when the connection may carry another request.
template <typename Stream, typename Request>
bool ExchangeOn(Stream& stream, beast::tcp_stream& lowest, Request& req,
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
    return false;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(o.max_response_bytes);
  if (req.method() == http::verb::head) parser.skip(true);  // a HEAD answer has no body to wait for
  parser.header_limit(16 * 1024);
  lowest.expires_after(left());
  ec = Await(io, [&](auto done) { http::async_read(stream, buffer, parser, done); });
  if (parser.is_header_done()) {
    r.status = static_cast<int>(parser.get().result_int());
    auto ra = parser.get().find(http::field::retry_after);
    if (ra != parser.get().end()) r.retry_after_seconds = ParseRetryAfter(std::string(ra->value()), now_seconds);
    for (const auto& field : parser.get()) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers.emplace_back(std::move(name), std::string(field.value()));
    }
  }
  if (ec == http::error::body_limit) {
    r.error = "response_too_large";
    r.detail = "the response was cut at " + std::to_string(o.max_response_bytes) + " bytes";
    return false;
  }
  if (ec) {
    r.error = ec == beast::error::timeout ? "timeout"
              : (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset)
                  ? "connection_closed"
                  : "protocol_error";
    r.detail = ec.message();
    return false;
  }
  r.body = parser.get().body();
  return parser.get().keep_alive();
}

}  // namespace

struct OutboundClient::Impl {
  explicit Impl(const SendOptions& o, bool keep) : options(o), keep_alive(keep) {}
  SendOptions options;
  bool keep_alive;
  asio::io_context io;
  std::unique_ptr<asio::ssl::context> ctx;  // built once: loading the trust store is not free
  beast::error_code ctx_error;
  std::unique_ptr<beast::tcp_stream> tcp;
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream&>> tls;
  std::string origin;  // of the open connection; "" when none

  void Close() {
    beast::error_code ec;
    if (tcp) tcp->socket().shutdown(tcp::socket::shutdown_both, ec);
    tls.reset();
    tcp.reset();
    origin.clear();
  }

  // Opens a connection for `u` (resolve, connect-time address check, TLS). "" or an error code.
  std::string Open(const ParsedUrl& u, std::chrono::steady_clock::time_point deadline, SendResult& r) {
    Close();
    tcp::resolver resolver(io);
    beast::error_code ec;
    auto found = resolver.resolve(u.host, std::to_string(u.port), ec);
    if (ec) {
      r.detail = ec.message();
      return "resolve_failed";
    }
    // Connect-time SSRF check: only addresses that are public (DNS rebinding).
    std::vector<tcp::endpoint> allowed;
    for (const auto& e : found) {
      if (options.allow_private || IsPublicAddress(e.endpoint().address().to_string())) allowed.push_back(e.endpoint());
    }
    if (allowed.empty()) {
      r.detail = u.host + " resolves to no public address";
      return "address_not_public";
    }
    tcp = std::make_unique<beast::tcp_stream>(io);
    tcp->expires_after(std::min(options.connect_timeout, options.total_timeout));
    ec = Await(io, [&](auto done) { tcp->async_connect(allowed, done); });
    if (ec) {
      r.detail = ec.message();
      Close();
      return ec == beast::error::timeout ? "timeout" : "connect_failed";
    }
    // A request and its answer are small and awaited: no Nagle delay on either side's writes.
    beast::error_code nodelay;
    tcp->socket().set_option(asio::ip::tcp::no_delay(true), nodelay);
    if (u.scheme == "https") {
      if (!ctx) {
        ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
        ctx->set_verify_mode(asio::ssl::verify_peer);
        ctx->set_default_verify_paths(ctx_error);
        if (!ctx_error && !options.ca_file.empty()) ctx->load_verify_file(options.ca_file, ctx_error);
      }
      if (ctx_error) {
        r.detail = "trust store: " + ctx_error.message();
        Close();
        return "tls_failed";
      }
      tls = std::make_unique<beast::ssl_stream<beast::tcp_stream&>>(*tcp, *ctx);
      if (!SSL_set_tlsext_host_name(tls->native_handle(), u.host.c_str())) {
        r.detail = "SNI";
        Close();
        return "tls_failed";
      }
      tls->set_verify_callback(asio::ssl::host_name_verification(u.host));
      tcp->expires_after(std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                      deadline - std::chrono::steady_clock::now())));
      ec = Await(io, [&](auto done) { tls->async_handshake(asio::ssl::stream_base::client, done); });
      if (ec) {
        r.detail = ec.message();
        Close();
        return ec == beast::error::timeout ? "timeout" : "tls_failed";
      }
    }
    origin = u.scheme + "://" + u.host + ":" + std::to_string(u.port);
    return "";
  }

  // One exchange on the open connection; true when the connection may carry the next request.
  template <typename Request>
  bool Exchange(Request& req, std::chrono::steady_clock::time_point deadline, SendResult& r, int64_t now_seconds) {
    bool again = false;
    if (tls) {
      again = ExchangeOn(*tls, *tcp, req, options, deadline, r, now_seconds);
    } else {
      again = ExchangeOn(*tcp, *tcp, req, options, deadline, r, now_seconds);
    }
    return again && keep_alive;
  }

  template <typename Body, typename Fill>
  SendResult SendWith(const std::string& method, const std::string& url,
                      const std::vector<std::pair<std::string, std::string>>& headers, int64_t now_seconds, Fill fill);
};

OutboundClient::OutboundClient(const SendOptions& options, bool keep_alive)
    : impl_(std::make_unique<Impl>(options, keep_alive)) {}
OutboundClient::~OutboundClient() { impl_->Close(); }

SendResult OutboundClient::Post(const std::string& url, const std::vector<std::pair<std::string, std::string>>& headers,
                                const std::string& body, int64_t now_seconds) {
  std::vector<std::pair<std::string, std::string>> all = {{"content-type", "application/json"}};
  all.insert(all.end(), headers.begin(), headers.end());
  return Send("POST", url, all, body, now_seconds);
}

template <typename Body, typename Fill>
SendResult OutboundClient::Impl::SendWith(const std::string& method, const std::string& url,
                                          const std::vector<std::pair<std::string, std::string>>& headers,
                                          int64_t now_seconds, Fill fill) {
  Impl& c = *this;
  const SendOptions& o = c.options;
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
    c.Close();
    return finish();
  }
  http::verb verb = http::string_to_verb(method);
  if (verb == http::verb::unknown) {
    r.error = "invalid_url";
    r.detail = "unknown method";
    return finish();
  }
  // A request per attempt: a file body is read from its start each time.
  auto make = [&](http::request<Body>& req) {
    req = http::request<Body>{verb, parsed->target, 11};
    req.set(http::field::host, parsed->host + (parsed->port == (parsed->scheme == "https" ? 443 : 80)
                                                   ? ""
                                                   : ":" + std::to_string(parsed->port)));
    req.set(http::field::user_agent, o.user_agent);
    if (!c.keep_alive) req.set(http::field::connection, "close");
    for (const auto& [k, v] : headers) req.set(k, v);
    if (!fill(req)) return false;
    req.prepare_payload();
    return true;
  };
  http::request<Body> req;
  if (!make(req)) {
    r.error = "invalid_body";
    r.detail = "the body's file cannot be read";
    return finish();
  }

  const std::string target_origin = parsed->scheme + "://" + parsed->host + ":" + std::to_string(parsed->port);
  if (c.tcp && c.origin == target_origin) {
    // A kept connection: the receiver may have closed it while it was idle. When nothing at
    // all came back, the request is sent once more on a new connection (receivers de-duplicate
    // on webhook-id).
    if (c.Exchange(req, deadline, r, now_seconds)) return finish();
    if (r.status != 0 || r.error == "timeout") {
      c.Close();
      return finish();
    }
    r = SendResult{};
    if (!make(req)) {
      r.error = "invalid_body";
      return finish();
    }
  }
  if (std::string err = c.Open(*parsed, deadline, r); !err.empty()) {
    r.error = err;
    return finish();
  }
  if (!c.Exchange(req, deadline, r, now_seconds)) c.Close();
  return finish();
}

SendResult OutboundClient::Send(const std::string& method, const std::string& url,
                                const std::vector<std::pair<std::string, std::string>>& headers,
                                const std::string& body, int64_t now_seconds) {
  return impl_->SendWith<http::string_body>(method, url, headers, now_seconds, [&](auto& req) {
    req.body() = body;
    return true;
  });
}

SendResult OutboundClient::SendFile(const std::string& method, const std::string& url,
                                    const std::vector<std::pair<std::string, std::string>>& headers,
                                    const std::string& path, int64_t now_seconds) {
  return impl_->SendWith<http::file_body>(method, url, headers, now_seconds, [&](auto& req) {
    beast::error_code ec;
    req.body().open(path.c_str(), beast::file_mode::scan, ec);
    return !ec;
  });
}

SendResult PostWebhook(const std::string& url, const std::vector<std::pair<std::string, std::string>>& headers,
                       const std::string& body, const SendOptions& o, int64_t now_seconds) {
  OutboundClient client(o, /*keep_alive=*/false);
  return client.Post(url, headers, body, now_seconds);
}

}  // namespace svc::pipeline::net
