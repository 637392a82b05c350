#pragma once
// Runs tests/receiver/receiver.mjs (node) as a child process on loopback and reads its port.
// With TLS it serves a certificate for "localhost" made by the openssl command line. It checks
// our signatures with the reference `standardwebhooks` npm package (tests/receiver, npm ci).

#include <chrono>
#include <memory>
#include <string>

#include "tests/support/child_process.h"

namespace svc::testing {

class ReceiverProcess {
 public:
  // `tls_dir`: where to write the certificate and key ("" = plain HTTP).
  explicit ReceiverProcess(const std::string& tls_dir = "");
  int port() const { return port_; }
  const std::string& ca_file() const { return cert_; }  // the self-signed certificate
  // A secret the receiver verifies messages with (indexes in order of adding).
  void AddSecret(const std::string& secret);
  // Blocks until `n` messages have arrived at `path` (true), or `timeout` passed (false).
  bool WaitFor(const std::string& path, int n, std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // Answers the requests held at /hold, and answers later ones at once.
  void Release();
  // What it received (GET /log; plain HTTP receivers only): path, id, type, body, verifiedBy,
  // error, signatures, connection (numbered in order of opening).
  std::string LogJson() const;

 private:
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
  std::string cert_, key_;
};

}  // namespace svc::testing
