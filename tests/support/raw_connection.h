#pragma once
// A TCP connection to a server on loopback from a chosen local address (127.0.0.0/8 is all
// loopback on Linux, so 127.0.0.2, 127.0.0.3, … are other sources to the server), written to
// byte by byte as an attacker would: a request's header and then nothing, half a body, and so on.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace svc::testing {

class RawConnection {
 public:
  RawConnection(uint16_t port, const std::string& from = "127.0.0.1") {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw std::runtime_error("socket");
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, from.c_str(), &local.sin_addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) throw std::runtime_error("bind " + from);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) throw std::runtime_error("connect");
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  ~RawConnection() { Close(); }

  void Send(const std::string& bytes) {
    size_t at = 0;
    while (at < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send");
      at += static_cast<size_t>(n);
    }
  }
  // Whether the server has sent something (or closed) within `wait`.
  bool Readable(std::chrono::milliseconds wait) const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(wait.count())) > 0;
  }
  // What the server sends until it closes the connection; `closed` says whether it did within
  // `wait` (else what came so far).
  std::string ReadUntilClosed(std::chrono::milliseconds wait, bool* closed) {
    std::string got;
    const auto until = std::chrono::steady_clock::now() + wait;
    *closed = false;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !Readable(left)) return got;
      char buf[4096];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        *closed = true;
        return got;
      }
      got.append(buf, static_cast<size_t>(n));
    }
  }
  // The status code of the answer the server has started to send (0: none yet within `wait`).
  int Status(std::chrono::milliseconds wait) {
    if (!Readable(wait)) return 0;
    char buf[64];
    ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_PEEK);
    std::string head(buf, n > 0 ? static_cast<size_t>(n) : 0);
    return head.rfind("HTTP/1.1 ", 0) == 0 && head.size() >= 12 ? std::stoi(head.substr(9, 3)) : -1;
  }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace svc::testing
