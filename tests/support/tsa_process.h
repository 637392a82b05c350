#pragma once
// The tests' time-stamping authority (tests/tsa/server.py: OpenSSL's own `openssl ts -reply`
// behind HTTP) as a child process on loopback, with its root CA made in `dir`.

#include <memory>
#include <string>

#include "tests/support/child_process.h"

namespace svc::testing {

class TsaProcess {
 public:
  explicit TsaProcess(const std::string& dir);
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/tsa"; }
  // The root every token chains to (PEM file), and its contents.
  std::string roots_file() const { return dir_ + "/root.pem"; }
  std::string roots_pem() const;
  // "ok", "down" (503), "wrong-imprint", "wrong-nonce" (tests/tsa/server.py).
  void SetMode(const std::string& mode);
  // From now on it requires these HTTP Basic credentials ("user:password").
  void RequireAuth(const std::string& user_password);
  // How many tokens it granted.
  int Granted();
  // The flags of a `svc serve` that timestamps with this TSA.
  std::vector<std::string> ServerFlags() const { return {"--tsa-url", url(), "--tsa-roots", roots_file()}; }

 private:
  std::string dir_;
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
};

}  // namespace svc::testing
