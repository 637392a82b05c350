#pragma once
// The tests' SAT-like CA and OCSP responder (tests/efirma/sat_ca.py: OpenSSL's `openssl ocsp`
// behind HTTP) as a child process on loopback, with its certificates made in `dir`.

#include <memory>
#include <string>

#include "tests/support/child_process.h"

namespace svc::testing {

class SatCaProcess {
 public:
  explicit SatCaProcess(const std::string& dir);
  int port() const { return port_; }
  std::string ocsp_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/ocsp"; }
  // A file of the CA's directory (sat_root.pem, fiel.cer, fiel.key, fiel.pem.key, …), and its bytes.
  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  std::string read(const std::string& name) const;
  // "ok" or "down" (503 to every request).
  void SetMode(const std::string& mode);
  // How many OCSP requests it answered.
  int Answered();
  // `message` signed with SHA-256 by the private key of certificate `name` (its unencrypted PEM,
  // `name`.pem.key): what the applicant's browser does once the password opened the .key.
  std::string Sign(const std::string& name, const std::string& message) const;
  // The flags of a `svc serve` that checks e.firmas against this CA.
  std::vector<std::string> ServerFlags() const {
    return {"--efirma-roots", file("sat_root.pem"), "--efirma-ocsp-url", ocsp_url()};
  }

 private:
  std::string dir_;
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
};

}  // namespace svc::testing
