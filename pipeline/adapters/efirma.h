#pragma once
// The SAT's e.firma (FIEL) as a possession proof (issue 35, item 2; docs/verification-sessions.md#efirma):
// the protocol only, in memory — what a certificate says, whether it and a signature made with
// its private key hold, and OCSP (RFC 6960) requests and answers about it. Talking to an OCSP
// responder over HTTP, challenges and recording the result live elsewhere.
//
// A certificate is read only in DER (X.690's one encoding; PEM's body likewise): another
// encoding of the same certificate is EFIRMA_CERT_NOT_READY. It is accepted when every check
// passes (CheckEfirma):
//   - the key: RSA of at least 2,048 bits, as the SAT's are (EFIRMA_KEY_UNSUPPORTED);
//   - the signature: the challenge's bytes signed with SHA-256 by the certificate's key
//     (RSA PKCS #1 v1.5);
//   - the chain: to one of the operator's SAT certificates (`--efirma-roots`: the SAT's roots and
//     intermediates, any of which may anchor), at the time of signing;
//   - validity at the time of signing (an expired or not yet valid certificate fails);
//   - an e.firma, not a CSD: a CSD (certificado de sello digital, the seal of invoices) names a
//     branch in its organizational unit and its key usage is digitalSignature and nonRepudiation
//     only; a FIEL names none and carries dataEncipherment and keyAgreement too (EFIRMA_NOT_FIEL
//     when either tells a CSD; EFIRMA_KEY_USAGE without digitalSignature and nonRepudiation);
//   - a holder: the RFC or the CURP of the subject (EFIRMA_HOLDER_UNKNOWN when it names neither:
//     nothing could be compared with the person).
// Each failure is a reason code (efirma_*), never an exception: bad input is an answer.
//
// What the certificate says of its holder: the RFC in x500UniqueIdentifier (2.5.4.45) and the
// CURP in serialNumber (2.5.4.5); for a company, "RFC / RFC of its representative" and
// " / CURP of the representative": the first RFC is the holder's.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace svc::pipeline::efirma {

struct Certificate {
  std::string der;
  std::string sha256_hex;    // of the DER: the certificate's fingerprint
  std::string serial_hex;    // lowercase
  std::string issuer;        // one line (RFC 2253)
  std::string subject_name;  // the holder's name (CN)
  std::string rfc;           // compact, upper case ("" when the certificate names none)
  std::string curp;
  std::string organizational_unit;  // non-empty: a CSD's branch
  int64_t not_before_micros = 0;
  int64_t not_after_micros = 0;
  bool digital_signature = false;  // key usage bits
  bool non_repudiation = false;
  bool data_encipherment = false;
  bool key_agreement = false;
  std::string key_type;  // "RSA", "EC", … (the public key's algorithm)
  int key_bits = 0;
};

// The certificate of a .cer file (DER) or PEM text; EFIRMA_CERT_NOT_READY (400) when it is
// neither an X.509 certificate.
core::Result<Certificate> ParseCertificate(std::string_view der_or_pem);

// The operator's SAT certificates (PEM, one or more): kept parsed for the checks.
class Trust {
 public:
  static core::Result<std::shared_ptr<const Trust>> FromPem(std::string_view pem);
  ~Trust();
  Trust(const Trust&) = delete;
  Trust& operator=(const Trust&) = delete;
  size_t size() const;

 private:
  Trust();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend struct Access;
};

struct Check {
  std::vector<std::string> reasons;  // empty: passed. EFIRMA_SIGNATURE_INVALID, EFIRMA_CHAIN_UNTRUSTED,
                                     // EFIRMA_EXPIRED, EFIRMA_NOT_YET_VALID, EFIRMA_NOT_FIEL (a CSD),
                                     // EFIRMA_KEY_USAGE, EFIRMA_KEY_UNSUPPORTED, EFIRMA_HOLDER_UNKNOWN
  std::string issuer_der;            // the certificate that issued it, when the chain holds (for OCSP)
  bool passed() const { return reasons.empty(); }
};

// The checks of the header comment, at `at` (the time of signing).
Check CheckEfirma(const Trust& trust, const Certificate& cert, std::string_view message, std::string_view signature,
                  core::Timestamp at);

// OCSP (RFC 6960): a request about `cert` issued by `issuer_der`, with a fresh nonce.
struct OcspRequest {
  std::string der;  // the body of the HTTP POST (application/ocsp-request)
  std::string cert_der, issuer_der;
};
core::Result<OcspRequest> MakeOcspRequest(const Certificate& cert, const std::string& issuer_der);

// The answer: good, revoked or unknown, once the response is checked: successful, signed by the
// issuer or a responder it delegated to (OCSPSigning), for this certificate, with the request's
// nonce when it returns one (a different nonce is a replay), and current (thisUpdate not after now + 5 minutes, nextUpdate not
// before now - 5 minutes). InvalidArgument (OCSP_INVALID, internal) otherwise.
struct OcspStatus {
  std::string status;  // good | revoked | unknown
  std::string revocation_reason;  // revoked: RFC 5280's name ("keyCompromise", …) or ""
  int64_t revoked_at_micros = 0;
  int64_t this_update_micros = 0;
};
core::Result<OcspStatus> CheckOcspResponse(std::string_view response_der, const OcspRequest& request,
                                           const Trust& trust, core::Timestamp now);

}  // namespace svc::pipeline::efirma
