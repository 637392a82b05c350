#include "api/http/http_client.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <vector>

namespace svc::api {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// Async operations driven by a private io_context with a deadline: a hung peer cannot hang the
// caller (synchronous Beast calls ignore stream timeouts).
template <typename Stream>
core::Result<HttpResponse> Exchange(asio::io_context& ioc, Stream& stream,
                                    const std::string& host, const std::string& method,
                                    const std::string& target,
                                    const std::map<std::string, std::string>& headers,
                                    const std::string& body, std::chrono::milliseconds timeout) {
  http::request<http::string_body> req;
  req.method_string(method);
  req.target(target);
  req.version(11);
  req.set(http::field::host, host);
  for (const auto& [k, v] : headers) req.set(k, v);
  if (!body.empty() && headers.find("Content-Type") == headers.end() &&
      headers.find("content-type") == headers.end()) {
    req.set(http::field::content_type, "application/json");
  }
  req.body() = body;
  req.keep_alive(false);
  req.prepare_payload();
  beast::flat_buffer buf;
  http::response_parser<http::string_body> parser;
  parser.body_limit(256 * 1024 * 1024);
  parser.header_limit(1024 * 1024);
  beast::error_code result = asio::error::timed_out;
  bool finished = false;
  http::async_write(stream, req, [&](beast::error_code ec, size_t) {
    if (ec) {
      result = ec;
      finished = true;
      return;
    }
    http::async_read(stream, buf, parser, [&](beast::error_code ec2, size_t) {
      result = ec2;
      finished = true;
    });
  });
  ioc.run_for(timeout);
  if (!finished) return core::DeadlineExceeded("HTTP call timed out");
  if (result) return core::Unavailable("HTTP exchange failed: " + result.message());
  auto msg = parser.release();
  HttpResponse out;
  out.status = static_cast<int>(msg.result_int());
  out.content_type = std::string(msg[http::field::content_type]);
  for (const auto& f : msg) {
    out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
  }
  out.body = std::move(msg.body());
  return out;
}

}  // namespace

core::Result<HttpResponse> HttpCall(const ClientTarget& target, const std::string& method,
                                    const std::string& path_and_query,
                                    const std::map<std::string, std::string>& headers,
                                    const std::string& body, std::chrono::milliseconds timeout) {
  asio::io_context ioc;
  beast::error_code ec;
  if (!target.unix_socket.empty()) {
    asio::local::stream_protocol::socket sock(ioc);
    sock.connect(asio::local::stream_protocol::endpoint(target.unix_socket), ec);
    if (ec) {
      return core::Unavailable("cannot connect to " + target.unix_socket + ": " + ec.message());
    }
    return Exchange(ioc, sock, "localhost", method, path_and_query, headers, body, timeout);
  }
  std::vector<asio::ip::tcp::endpoint> endpoints;
  auto addr = asio::ip::make_address(target.host, ec);
  if (!ec) {
    endpoints.emplace_back(addr, target.port);
  } else {
    // A host name (e.g. a registry gateway): resolve it.
    asio::ip::tcp::resolver resolver(ioc);
    auto results = resolver.resolve(target.host, std::to_string(target.port), ec);
    if (ec) return core::Unavailable("cannot resolve " + target.host + ": " + ec.message());
    for (const auto& r : results) endpoints.push_back(r.endpoint());
  }
  asio::ip::tcp::socket sock(ioc);
  for (const auto& ep : endpoints) {
    sock.close(ec);
    sock.connect(ep, ec);
    if (!ec) break;
  }
  if (ec) return core::Unavailable("cannot connect: " + ec.message());
  return Exchange(ioc, sock, target.host, method, path_and_query, headers, body, timeout);
}

}  // namespace svc::api
