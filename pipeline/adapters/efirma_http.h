#pragma once
// An e.firma possession proof checked in full (docs/verification-sessions.md#efirma): the checks
// of efirma.h, then revocation asked of the operator's OCSP responder over HTTP (RFC 6960 A.1:
// the request DER POSTed as application/ocsp-request). `--efirma-ocsp-url` is the SAT's responder,
// or the operator's registry gateway's OCSP path (the gateway forwards it), https verified
// against the system store plus `--efirma-ocsp-ca-file`. Without a responder configured the
// revocation is not checked and the result says so (`ocsp: not_checked`); a responder that is down
// or answers off the protocol fails the proof (EFIRMA_OCSP_UNAVAILABLE): the applicant can try
// again with a new challenge, and a revoked certificate never passes unchecked.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "pipeline/adapters/efirma.h"
#include "pipeline/adapters/gateway_client.h"

namespace svc::pipeline::adapters {

class EfirmaVerifier {
 public:
  struct Options {
    std::string roots_pem;    // the contents of --efirma-roots
    std::string ocsp_url;     // --efirma-ocsp-url ("" = revocation not checked)
    std::string ocsp_ca_file;
    std::chrono::milliseconds timeout{5000};
    const core::Clock* clock = nullptr;
  };
  static core::Result<std::unique_ptr<EfirmaVerifier>> Create(Options options);

  struct Result {
    efirma::Certificate certificate;
    std::vector<std::string> reasons;  // empty: passed; efirma.h's, and EFIRMA_REVOKED,
                                       // EFIRMA_OCSP_UNKNOWN, EFIRMA_OCSP_UNAVAILABLE
    std::string ocsp;                  // good | revoked | unknown | unavailable | not_checked | skipped
    int64_t latency_ms = 0;
    bool passed() const { return reasons.empty(); }
  };
  // `certificate`: the .cer (DER or PEM), EFIRMA_CERT_NOT_READY when it is none; `signature`:
  // raw bytes; at the clock's now.
  core::Result<Result> Verify(std::string_view certificate, std::string_view message, std::string_view signature);

  bool checks_revocation() const { return client_ != nullptr; }

 private:
  explicit EfirmaVerifier(Options options) : options_(std::move(options)) {}
  Options options_;
  std::shared_ptr<const efirma::Trust> trust_;
  std::unique_ptr<GatewayClient> client_;
};

}  // namespace svc::pipeline::adapters
