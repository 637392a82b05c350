#pragma once
// RFC 3161 over HTTP (RFC 3161 section 3.4): the request DER POSTed as
// application/timestamp-query, the answer read as application/timestamp-reply and checked
// (rfc3161::VerifyResponse) before it is returned. A TSA of an accredited provider (a PSC under
// NOM-151) is reached the same way; its credentials are HTTP Basic (`--tsa-credentials-file`, one
// line `user:password`). https is verified against the system store plus `--tsa-ca-file`.

#include <chrono>
#include <memory>
#include <string>

#include "core/clock.h"
#include "pipeline/adapters/gateway_client.h"
#include "pipeline/audit/tsa.h"

namespace svc::pipeline::adapters {

class HttpTsa final : public audit::TimeStampAuthority {
 public:
  struct Options {
    std::string url;               // --tsa-url: http(s)://host[:port]/path
    std::string roots_pem;         // the contents of --tsa-roots (PEM, one or more certificates)
    std::string policy_oid;        // --tsa-policy: "" = the TSA's default (any policy accepted)
    std::string user_password;     // from --tsa-credentials-file: "" = none
    std::string ca_file;           // --tsa-ca-file: an extra trust anchor for https
    std::chrono::milliseconds timeout{10000};
    std::chrono::seconds max_skew{300};  // a token's time this far from ours is refused
    const core::Clock* clock = nullptr;
  };
  static core::Result<std::unique_ptr<HttpTsa>> Create(Options options);

  core::Result<rfc3161::Token> Stamp(std::string_view sha256) override;
  const std::string& url() const override { return options_.url; }
  const rfc3161::Trust& trust() const override { return trust_; }

 private:
  explicit HttpTsa(Options options) : options_(std::move(options)) {}
  Options options_;
  rfc3161::Trust trust_;
  std::unique_ptr<GatewayClient> client_;
};

}  // namespace svc::pipeline::adapters
