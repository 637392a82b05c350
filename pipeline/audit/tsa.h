#pragma once
// A time-stamping authority as the timestamper sees it (issue 35, NOM-151 evidence): a token over
// a SHA-256, every check of rfc3161::VerifyResponse passed before it is returned. The one
// implementation is RFC 3161 over HTTP (pipeline/adapters/tsa_http.h); the tests run it against
// OpenSSL's own TSA (tests/tsa/server.py).

#include <string>
#include <string_view>

#include "core/status.h"
#include "pipeline/adapters/rfc3161.h"

namespace svc::pipeline::audit {

class TimeStampAuthority {
 public:
  virtual ~TimeStampAuthority() = default;
  // A checked token over `sha256` (32 bytes). Unavailable when the TSA cannot be reached or says
  // no (TIMESTAMP_UNAVAILABLE, TIMESTAMP_REFUSED); InvalidArgument TIMESTAMP_INVALID when its
  // answer fails a check. Both are retried by the caller, never shown to an API caller.
  virtual core::Result<rfc3161::Token> Stamp(std::string_view sha256) = 0;
  // The TSA's URL (for the evidence and the logs: it carries no credentials).
  virtual const std::string& url() const = 0;
  // The roots and policy its tokens are checked against (to check a stored token again).
  virtual const rfc3161::Trust& trust() const = 0;
};

}  // namespace svc::pipeline::audit
