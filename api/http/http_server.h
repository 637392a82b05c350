#pragma once
// The HTTP/1.1 server (Boost.Beast on Asio, C++20 coroutines), hidden behind a pimpl so that no
// other file includes Boost. Keep-alive; header and body size limits (413 PAYLOAD_TOO_LARGE);
// an idle/read timeout so a slow client cannot hold a connection; graceful Stop that lets
// in-flight requests finish. Listens on TCP and/or a unix-domain socket.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/http/http.h"
#include "core/ids.h"
#include "core/status.h"

namespace svc::api {

class HttpServer {
 public:
  struct Options {
    std::string host = "127.0.0.1";
    uint16_t port = 0;            // 0 = any free port (see BoundPort)
    bool tcp = true;
    std::string unix_socket;      // empty = none
    size_t threads = 2;
    size_t header_limit = 16 * 1024;
    size_t body_limit = 1024 * 1024;
    // Larger limits for paths ending with a suffix (e.g. "/media" uploads).
    std::vector<std::pair<std::string, size_t>> body_limit_by_suffix;
    // POSTs to paths ending with one of these get their body as HttpRequest::body_stream, read
    // from the socket as the route consumes it, at most `stream_window` bytes ahead.
    std::vector<std::string> streamed_body_suffixes;
    size_t stream_window = 256 * 1024;
    std::chrono::milliseconds read_timeout{30000};  // per request, and idle keep-alive
    // A request's header, once its first byte has come, must be whole within this (a client that
    // starts a request and stalls holds its connection this long, not read_timeout).
    std::chrono::milliseconds header_timeout{10000};
    // A streamed body must keep coming: after `stream_grace` of waiting on the socket, at least
    // `stream_min_bytes_per_second` for every further second waited (time the route is slow to
    // read is not counted); else the body ends as the client's stall (0: read_timeout only).
    std::chrono::milliseconds stream_grace{5000};
    size_t stream_min_bytes_per_second = 16 * 1024;
    std::string server_name = "svc";
    // A TCP socket already bound by Reserve (its port is `port`): Start listens on it.
    int reserved_fd = -1;
  };

  // Binds host:port (0: a free port) now, before the server exists, so that what depends on the
  // port (the public base URL) is known first; the socket goes to Options::reserved_fd, and the
  // bound port into `port`.
  static core::Result<int> Reserve(const std::string& host, uint16_t& port);

  HttpServer(Options options, std::shared_ptr<Router> router, core::IdSource* ids);
  ~HttpServer();

  core::Status Start();
  uint16_t BoundPort() const;
  // Stops accepting, lets in-flight requests finish (up to `grace`), then closes the rest.
  void Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(10000));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace svc::api
