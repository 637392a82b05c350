#pragma once
// Runs tests/support/webhook_receiver.mjs (node) as a child process on loopback and reads its
// port. With TLS it serves a certificate for "localhost" made by the openssl command line.

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

 private:
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
  std::string cert_, key_;
};

}  // namespace svc::testing
