// The HTTP server's own behaviour, seen by a raw client on loopback: stops, and bodies streamed
// to their route (by length or chunks, answered early, over the limit).
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "api/http/http_server.h"
#include "core/crypto.h"
#include "core/executor.h"
#include "core/ids.h"

namespace api_http_server_test {

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

namespace {

// Sends all of `bytes` (blocking).
void SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    REQUIRE(n > 0);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

// Reads one answer with a Content-Length body (its head and body), or what came before the end.
std::string ReadAnswer(int fd) {
  std::string in;
  char buf[4096];
  for (;;) {
    const size_t head_end = in.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      const size_t cl = in.find("Content-Length: ");
      const size_t length = cl == std::string::npos ? 0 : std::stoul(in.substr(cl + 16));
      if (in.size() >= head_end + 4 + length) return in.substr(0, head_end + 4 + length);
    }
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return in;
    in.append(buf, static_cast<size_t>(n));
  }
}

// A server whose POST /up/media route reads its streamed body on a pool thread and answers its
// size and SHA-256; POST /early/media answers 403 without reading a byte.
struct StreamingServer {
  StreamingServer() {
    router->Add("POST", "/up/media", [this](api::HttpRequest& req, api::Respond respond) {
      pool.Post([&req, respond] {
        if (req.body_stream == nullptr || !req.body.empty()) return respond(api::JsonResponse(500, {{"streamed", false}}));
        core::Sha256Stream hash;
        size_t size = 0, largest = 0;
        for (;;) {
          auto piece = req.body_stream->Read(1u << 20);
          if (!piece.ok()) return respond(api::JsonResponse(413, {{"error", piece.status().api_code()}}));
          if (piece->empty()) break;
          size += piece->size();
          largest = std::max(largest, piece->size());
          hash.Update(*piece);
        }
        respond(api::JsonResponse(200, {{"size", size}, {"sha256", hash.FinalHex()}, {"largestPiece", largest}}));
      });
    });
    router->Add("POST", "/early/media", [](api::HttpRequest&, api::Respond respond) {
      respond(api::JsonResponse(403, {{"refused", true}}));
    });
    router->Add("GET", "/ping", api::Sync([](api::HttpRequest&) { return api::JsonResponse(200, {{"ok", true}}); }));
    api::HttpServer::Options o;
    o.body_limit_by_suffix = {{"/media", 8u << 20}};
    o.streamed_body_suffixes = {"/media"};
    o.stream_window = 128 * 1024;
    server = std::make_unique<api::HttpServer>(o, router, &ids);
    REQUIRE(server->Start().ok());
  }
  std::shared_ptr<api::Router> router = std::make_shared<api::Router>();
  core::SequentialIdSource ids;
  core::ThreadPool pool{2};
  std::unique_ptr<api::HttpServer> server;
};

}  // namespace

TEST_CASE("http server: a streamed body reaches its route in pieces, framed by length or chunks, then keep-alive") {
  StreamingServer s;
  int fd = Connect(s.server->BoundPort());
  const std::string body = core::RandomBytes(5u << 20);
  SendAll(fd, "POST /up/media HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n");
  SendAll(fd, body);
  std::string answer = ReadAnswer(fd);
  CHECK(answer.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(answer.find("\"size\":" + std::to_string(body.size())) != std::string::npos);
  CHECK(answer.find(core::Sha256Hex(body)) != std::string::npos);
  CHECK(answer.find("\"largestPiece\":1048576") == std::string::npos);  // never the whole window at once

  // The same connection, a chunked body.
  SendAll(fd, "POST /up/media HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  std::string sent;
  for (int i = 0; i < 20; ++i) {
    const std::string piece = core::RandomBytes(50000 + static_cast<size_t>(i));
    char head[32];
    std::snprintf(head, sizeof head, "%zx\r\n", piece.size());
    SendAll(fd, std::string(head) + piece + "\r\n");
    sent += piece;
  }
  SendAll(fd, "0\r\n\r\n");
  answer = ReadAnswer(fd);
  CHECK(answer.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(answer.find(core::Sha256Hex(sent)) != std::string::npos);
  // And a plain request after them.
  SendAll(fd, "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(ReadAnswer(fd).find("{\"ok\":true}") != std::string::npos);
  ::close(fd);
}

TEST_CASE("http server: a streamed route that answers before reading gets its answer out, then the connection closes") {
  StreamingServer s;
  int fd = Connect(s.server->BoundPort());
  const std::string body = core::RandomBytes(3u << 20);
  SendAll(fd, "POST /early/media HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n");
  SendAll(fd, body);  // the server reads and drops it after answering (bounded), so this completes
  std::string answer = ReadAnswer(fd);
  CHECK(answer.rfind("HTTP/1.1 403", 0) == 0);
  CHECK(answer.find("Connection: close") != std::string::npos);
  char buf[64];
  CHECK(::recv(fd, buf, sizeof buf, 0) <= 0);
  ::close(fd);

  // Over the route's limit, chunked (no length to refuse up front): the route reads
  // PAYLOAD_TOO_LARGE from the stream.
  fd = Connect(s.server->BoundPort());
  SendAll(fd, "POST /up/media HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string piece = core::RandomBytes(1u << 20);
  for (int i = 0; i < 9; ++i) {
    char head[32];
    std::snprintf(head, sizeof head, "%zx\r\n", piece.size());
    if (::send(fd, head, std::strlen(head), MSG_NOSIGNAL) <= 0) break;
    std::string_view rest = piece;
    bool closed = false;
    while (!rest.empty()) {
      ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n <= 0) {
        closed = true;
        break;
      }
      rest.remove_prefix(static_cast<size_t>(n));
    }
    if (closed || ::send(fd, "\r\n", 2, MSG_NOSIGNAL) <= 0) break;
  }
  answer = ReadAnswer(fd);
  CHECK(answer.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(answer.find("PAYLOAD_TOO_LARGE") != std::string::npos);
  ::close(fd);
}

}  // namespace api_http_server_test
