#pragma once
// RFC 3161 time-stamp requests and responses (issue 35: NOM-151 evidence). The protocol only, in
// memory: what is sent to a time-stamping authority (TSA) and how its answer is checked. Talking to
// a TSA over HTTP, storing tokens as events and retrying a TSA that is down live elsewhere.
//
// A request asks for a token over a SHA-256 digest, with a fresh 64-bit nonce, the signer's
// certificate included, and, when configured, the TSA policy the operator's contract names. A
// response is accepted only when every check passes (VerifyResponse): status granted; the token's
// CMS signature valid and its signer certificate chaining to the operator's TSA roots with the
// critical timeStamping extended key usage (OpenSSL's TS_RESP_verify_response); the message
// imprint equal to the digest asked for; the nonce equal to the request's; the policy equal to the
// configured one; the token's time within `max_skew` of this node's clock. The token kept is the
// TimeStampToken itself (a CMS SignedData, DER): `openssl ts -verify -token_in` checks it offline.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace svc::pipeline::rfc3161 {

struct Request {
  std::string der;     // TimeStampReq, DER: the body of the HTTP POST (application/timestamp-query)
  std::string digest;  // the SHA-256 asked for (32 bytes)
  std::string nonce;   // the nonce, big-endian bytes (8)
  std::string policy;  // the policy OID asked for, dotted ("" = the TSA's default)
};

// A request over `sha256` (32 bytes). `policy_oid`: dotted, or "" for the TSA's default policy.
core::Result<Request> MakeRequest(std::string_view sha256, const std::string& policy_oid);

// Who is trusted to time-stamp: the TSA roots (PEM, one or more certificates) and, when set, the
// one policy its tokens must carry.
struct Trust {
  std::string roots_pem;
  std::string policy_oid;  // "" = any policy (the request's, when it named one)
  std::chrono::seconds max_skew{300};
};

// Whether `trust` can be used: at least one root certificate in the PEM, a policy that is a
// dotted OID (or ""). For a configuration checked at start.
core::Status CheckTrust(const Trust& trust);

struct Token {
  std::string der;           // TimeStampToken (CMS SignedData), DER
  core::Timestamp gen_time;  // the TSA's time for the digest
  std::string serial_hex;    // the token's serial number, lowercase hex
  std::string policy;        // the token's policy OID, dotted
  std::string tsa_subject;   // the signer certificate's subject, one line (RFC 2253)
};

// Checks a TimeStampResp (DER) against the request it answers: every check of the header comment.
// A refusal names the check that failed (InvalidArgument "TIMESTAMP_INVALID"; a TSA that said
// no: Unavailable "TIMESTAMP_REFUSED" with its status and text). Both codes are internal: a TSA's
// trouble never fails an API call (the evidence says its token is pending and it is asked again).
core::Result<Token> VerifyResponse(std::string_view response_der, const Request& request, const Trust& trust,
                                   core::Timestamp now);

// Checks a stored token (TimeStampToken, DER) over `sha256` against the roots, as an auditor
// would later: signature, chain, imprint. No nonce or clock check (the token is old by then).
core::Result<Token> VerifyToken(std::string_view token_der, std::string_view sha256, const Trust& trust);

}  // namespace svc::pipeline::rfc3161
