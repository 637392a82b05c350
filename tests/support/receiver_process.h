#pragma once
// Runs tests/support/webhook_receiver.mjs (node) as a child process on loopback and reads its
// port. With TLS it serves a certificate for "localhost" made by the openssl command line.

#include <sys/types.h>

#include <cstdio>
#include <string>

namespace svc::testing {

class ReceiverProcess {
 public:
  // `tls_dir`: where to write the certificate and key ("" = plain HTTP).
  explicit ReceiverProcess(const std::string& tls_dir = "");
  ~ReceiverProcess();
  int port() const { return port_; }
  const std::string& ca_file() const { return cert_; }  // the self-signed certificate

 private:
  pid_t pid_ = -1;
  FILE* to_child_ = nullptr;
  FILE* from_child_ = nullptr;
  int port_ = 0;
  std::string cert_, key_;
};

}  // namespace svc::testing
