// The HTTP server's own behaviour, seen by a raw client on loopback.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "api/http/http_server.h"
#include "core/ids.h"

using namespace svc;

namespace {

// A connected loopback socket whose reads give up after 5 s (a safety net: the test asserts on
// what the read returns, never on how long it took).
int Connect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

}  // namespace

TEST_CASE("http server: a stop closes the idle kept-alive connections it leaves") {
  auto router = std::make_shared<api::Router>();
  router->Add("GET", "/ping", api::Sync([](api::HttpRequest&) { return api::JsonResponse(200, {{"ok", true}}); }));
  core::SequentialIdSource ids;
  api::HttpServer::Options o;
  o.port = 0;
  api::HttpServer server(o, router, &ids);
  REQUIRE(server.Start().ok());
  int fd = Connect(server.BoundPort());
  const std::string request = "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  REQUIRE(::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  std::string answer;
  char buf[4096];
  while (answer.find("{\"ok\":true}") == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    REQUIRE(n > 0);
    answer.append(buf, static_cast<size_t>(n));
  }
  CHECK(answer.rfind("HTTP/1.1 200", 0) == 0);

  // The connection is idle and kept. After the stop, the client sees it closed (end of stream or
  // reset), not a connection that never answers while the server object lives on.
  server.Stop(std::chrono::milliseconds(5000));  // returns once every connection is closed
  errno = 0;
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  const int err = errno;
  ::close(fd);
  CHECK((n == 0 || (n < 0 && err == ECONNRESET)));
  CHECK(err != EAGAIN);
}
