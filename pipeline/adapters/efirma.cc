#include "pipeline/adapters/efirma.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ocsp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "core/crypto.h"
#include "core/ids.h"
#include "core/mx_ids.h"

namespace svc::pipeline::efirma {

namespace {

template <typename T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using StorePtr = std::unique_ptr<X509_STORE, Deleter<X509_STORE, X509_STORE_free>>;
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, Deleter<X509_STORE_CTX, X509_STORE_CTX_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using OcspReqPtr = std::unique_ptr<OCSP_REQUEST, Deleter<OCSP_REQUEST, OCSP_REQUEST_free>>;
using OcspRespPtr = std::unique_ptr<OCSP_RESPONSE, Deleter<OCSP_RESPONSE, OCSP_RESPONSE_free>>;
using OcspBasicPtr = std::unique_ptr<OCSP_BASICRESP, Deleter<OCSP_BASICRESP, OCSP_BASICRESP_free>>;
using OcspIdPtr = std::unique_ptr<OCSP_CERTID, Deleter<OCSP_CERTID, OCSP_CERTID_free>>;

struct CertStackFree {
  void operator()(STACK_OF(X509)* s) const { sk_X509_pop_free(s, X509_free); }
};
using CertStackPtr = std::unique_ptr<STACK_OF(X509), CertStackFree>;

core::Status NotReady(const std::string& what) {
  return core::InvalidArgument("the e.firma certificate cannot be read: " + what, "EFIRMA_CERT_NOT_READY");
}
core::Status OcspInvalid(const std::string& what) {
  return core::InvalidArgument("OCSP answer refused: " + what, "OCSP_INVALID");
}

X509Ptr FromDer(std::string_view der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  X509Ptr x(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  // The whole input must be the certificate (nothing after it).
  if (x != nullptr && p != reinterpret_cast<const unsigned char*>(der.data()) + der.size()) x.reset();
  return x;
}

std::string Der(X509* x) {
  unsigned char* der = nullptr;
  const int n = i2d_X509(x, &der);
  if (n <= 0) return "";
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(n));
  OPENSSL_free(der);
  return out;
}

int64_t MicrosOf(const ASN1_TIME* t) {
  std::tm tm{};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
  return static_cast<int64_t>(timegm(&tm)) * 1'000'000;
}

std::string OneLine(const X509_NAME* name) {
  BioPtr mem(BIO_new(BIO_s_mem()));
  if (mem == nullptr) return "";
  X509_NAME_print_ex(mem.get(), name, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
  char* data = nullptr;
  const long n = BIO_get_mem_data(mem.get(), &data);
  return std::string(data, static_cast<size_t>(std::max<long>(0, n)));
}

// The UTF-8 text of the first entry of `nid` in `name` ("" when absent).
std::string Entry(const X509_NAME* name, int nid) {
  const int at = X509_NAME_get_index_by_NID(name, nid, -1);
  if (at < 0) return "";
  const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, at));
  unsigned char* utf8 = nullptr;
  const int n = ASN1_STRING_to_UTF8(&utf8, data);
  if (n < 0) return "";
  std::string out(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
  OPENSSL_free(utf8);
  return out;
}

// "AAA010101AAA / HEGT7610034S2" -> "AAA010101AAA"; " / HEGT761003HDFRNN09" -> "HEGT761003HDFRNN09":
// the first non-empty part, compact.
std::string FirstPart(const std::string& value) {
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find('/', start);
    if (end == std::string::npos) end = value.size();
    std::string part = core::mx::CompactIdentifier(value.substr(start, end - start));
    if (!part.empty()) return part;
    start = end + 1;
  }
  return "";
}

}  // namespace

struct Trust::Impl {
  StorePtr store;
  size_t count = 0;
};
struct Access {
  static X509_STORE* Store(const Trust& t) { return t.impl_->store.get(); }
};

Trust::Trust() : impl_(std::make_unique<Impl>()) {}
Trust::~Trust() = default;
size_t Trust::size() const { return impl_->count; }

core::Result<std::shared_ptr<const Trust>> Trust::FromPem(std::string_view pem) {
  std::shared_ptr<Trust> t(new Trust());
  t->impl_->store.reset(X509_STORE_new());
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (t->impl_->store == nullptr || bio == nullptr) return core::Internal("out of memory");
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509Ptr owned(cert);
    if (X509_STORE_add_cert(t->impl_->store.get(), cert) != 1) {
      return core::InvalidArgument("a SAT certificate could not be added to the e.firma trust");
    }
    ++t->impl_->count;
  }
  ERR_clear_error();  // the read past the last certificate
  if (t->impl_->count == 0) return core::InvalidArgument("no certificate in the configured e.firma roots (PEM)");
  return std::shared_ptr<const Trust>(std::move(t));
}

core::Result<Certificate> ParseCertificate(std::string_view input) {
  if (input.empty()) return NotReady("it is empty");
  if (input.size() > 64 * 1024) return NotReady("it is over 64 KiB");
  // The certificate's bytes as given: the DER, or the body of the PEM.
  std::string given;
  if (input.find("-----BEGIN CERTIFICATE-----") != std::string_view::npos) {
    BioPtr bio(BIO_new_mem_buf(input.data(), static_cast<int>(input.size())));
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long len = 0;
    if (bio != nullptr && PEM_read_bio(bio.get(), &name, &header, &data, &len) == 1 && name != nullptr &&
        std::string_view(name) == "CERTIFICATE" && len > 0) {
      given.assign(reinterpret_cast<const char*>(data), static_cast<size_t>(len));
    }
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
  } else {
    given.assign(input);
  }
  X509Ptr x = given.empty() ? nullptr : FromDer(given);
  ERR_clear_error();
  if (x == nullptr) return NotReady("it is not an X.509 certificate (a .cer file, DER, or PEM)");
  Certificate c;
  c.der = Der(x.get());
  // One encoding only (issue 68): a certificate read from BER (a length in more bytes than it
  // needs, trailing bytes) is not the certificate the SAT issued, byte for byte.
  if (c.der != given) return NotReady("it is not in DER (X.690's distinguished encoding)");
  c.sha256_hex = core::Sha256Hex(c.der);
  if (const ASN1_INTEGER* serial = X509_get0_serialNumber(x.get())) {
    std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>> bn(ASN1_INTEGER_to_BN(serial, nullptr));
    if (bn != nullptr) {
      std::string bytes(static_cast<size_t>(BN_num_bytes(bn.get())), '\0');
      BN_bn2bin(bn.get(), reinterpret_cast<unsigned char*>(bytes.data()));
      c.serial_hex = core::HexEncode(bytes);
    }
  }
  c.issuer = OneLine(X509_get_issuer_name(x.get()));
  const X509_NAME* subject = X509_get_subject_name(x.get());
  c.subject_name = Entry(subject, NID_commonName);
  c.rfc = FirstPart(Entry(subject, NID_x500UniqueIdentifier));
  c.curp = FirstPart(Entry(subject, NID_serialNumber));
  c.organizational_unit = Entry(subject, NID_organizationalUnitName);
  c.not_before_micros = MicrosOf(X509_get0_notBefore(x.get()));
  c.not_after_micros = MicrosOf(X509_get0_notAfter(x.get()));
  const uint32_t usage = X509_get_key_usage(x.get());  // all bits when the extension is absent
  const bool has_usage = (X509_get_extension_flags(x.get()) & EXFLAG_KUSAGE) != 0;
  c.digital_signature = has_usage && (usage & KU_DIGITAL_SIGNATURE) != 0;
  c.non_repudiation = has_usage && (usage & KU_NON_REPUDIATION) != 0;
  c.data_encipherment = has_usage && (usage & KU_DATA_ENCIPHERMENT) != 0;
  c.key_agreement = has_usage && (usage & KU_KEY_AGREEMENT) != 0;
  if (EVP_PKEY* key = X509_get0_pubkey(x.get())) {
    const int id = EVP_PKEY_get_base_id(key);
    c.key_type = id == EVP_PKEY_RSA ? "RSA" : id == EVP_PKEY_EC ? "EC" : id == EVP_PKEY_DSA ? "DSA" : "other";
    c.key_bits = EVP_PKEY_get_bits(key);
  }
  ERR_clear_error();
  return c;
}

Check CheckEfirma(const Trust& trust, const Certificate& cert, std::string_view message, std::string_view signature,
                  core::Timestamp at) {
  Check out;
  X509Ptr x = FromDer(cert.der);
  if (x == nullptr) {
    out.reasons.push_back("EFIRMA_SIGNATURE_INVALID");
    return out;
  }
  // The signature over the challenge, with the certificate's public key.
  {
    MdCtxPtr md(EVP_MD_CTX_new());
    EVP_PKEY* key = X509_get0_pubkey(x.get());
    const bool ok = md != nullptr && key != nullptr &&
                    EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key) == 1 &&
                    EVP_DigestVerify(md.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
    if (!ok) out.reasons.push_back("EFIRMA_SIGNATURE_INVALID");
  }
  // The chain to the SAT's certificates, and validity, at the time of signing.
  {
    StoreCtxPtr ctx(X509_STORE_CTX_new());
    if (ctx == nullptr || X509_STORE_CTX_init(ctx.get(), Access::Store(trust), x.get(), nullptr) != 1) {
      out.reasons.push_back("EFIRMA_CHAIN_UNTRUSTED");
    } else {
      X509_STORE_CTX_set_flags(ctx.get(), X509_V_FLAG_PARTIAL_CHAIN);
      X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx.get()), static_cast<time_t>(at.micros / 1'000'000));
      if (X509_verify_cert(ctx.get()) == 1) {
        STACK_OF(X509)* chain = X509_STORE_CTX_get0_chain(ctx.get());
        X509* issuer = sk_X509_num(chain) > 1 ? sk_X509_value(chain, 1) : nullptr;
        if (issuer != nullptr) out.issuer_der = Der(issuer);
      } else {
        const int err = X509_STORE_CTX_get_error(ctx.get());
        out.reasons.push_back(err == X509_V_ERR_CERT_HAS_EXPIRED     ? "EFIRMA_EXPIRED"
                              : err == X509_V_ERR_CERT_NOT_YET_VALID ? "EFIRMA_NOT_YET_VALID"
                                                                     : "EFIRMA_CHAIN_UNTRUSTED");
      }
    }
    ERR_clear_error();
  }
  // An e.firma, not a seal certificate: a CSD names a branch, or lacks what a FIEL's key may do
  // besides signing (a CSD without its OU passed until issue 68).
  if (!cert.organizational_unit.empty() || !cert.data_encipherment || !cert.key_agreement) {
    out.reasons.push_back("EFIRMA_NOT_FIEL");
  }
  if (!cert.digital_signature || !cert.non_repudiation) out.reasons.push_back("EFIRMA_KEY_USAGE");
  // The SAT's keys are RSA of 2,048 bits or more: EC, DSA and short RSA keys are no e.firma.
  if (cert.key_type != "RSA" || cert.key_bits < 2048) out.reasons.push_back("EFIRMA_KEY_UNSUPPORTED");
  // A holder to compare with the person: the RFC or the CURP (neither passed as not_compared).
  if (cert.rfc.empty() && cert.curp.empty()) out.reasons.push_back("EFIRMA_HOLDER_UNKNOWN");
  return out;
}

core::Result<OcspRequest> MakeOcspRequest(const Certificate& cert, const std::string& issuer_der) {
  X509Ptr subject = FromDer(cert.der), issuer = FromDer(issuer_der);
  if (subject == nullptr || issuer == nullptr) return core::InvalidArgument("OCSP: the certificate or its issuer does not read");
  OcspReqPtr req(OCSP_REQUEST_new());
  OCSP_CERTID* id = OCSP_cert_to_id(EVP_sha1(), subject.get(), issuer.get());
  if (req == nullptr || id == nullptr || OCSP_request_add0_id(req.get(), id) == nullptr) {
    if (id != nullptr) OCSP_CERTID_free(id);
    return core::Internal("OCSP: the request could not be made");
  }
  if (OCSP_request_add1_nonce(req.get(), nullptr, -1) != 1) return core::Internal("OCSP: no nonce");
  unsigned char* der = nullptr;
  const int n = i2d_OCSP_REQUEST(req.get(), &der);
  if (n <= 0) return core::Internal("OCSP: the request could not be encoded");
  OcspRequest out;
  out.der.assign(reinterpret_cast<char*>(der), static_cast<size_t>(n));
  OPENSSL_free(der);
  out.cert_der = cert.der;
  out.issuer_der = issuer_der;
  return out;
}

core::Result<OcspStatus> CheckOcspResponse(std::string_view response_der, const OcspRequest& request,
                                           const Trust& trust, core::Timestamp now) {
  const auto* p = reinterpret_cast<const unsigned char*>(response_der.data());
  OcspRespPtr resp(d2i_OCSP_RESPONSE(nullptr, &p, static_cast<long>(response_der.size())));
  if (resp == nullptr) {
    ERR_clear_error();
    return OcspInvalid("not an OCSP response");
  }
  const int status = OCSP_response_status(resp.get());
  if (status != OCSP_RESPONSE_STATUS_SUCCESSFUL) {
    return OcspInvalid(std::string("the responder answered ") + OCSP_response_status_str(status));
  }
  OcspBasicPtr basic(OCSP_response_get1_basic(resp.get()));
  if (basic == nullptr) return OcspInvalid("no basic response");
  // The nonce: the request's, when the responder returns one (RFC 8954: a responder of signed-in-
  // advance answers may not; its answer's freshness is then all there is, checked below).
  const unsigned char* q = reinterpret_cast<const unsigned char*>(request.der.data());
  OcspReqPtr req(d2i_OCSP_REQUEST(nullptr, &q, static_cast<long>(request.der.size())));
  if (req == nullptr) return core::Internal("OCSP: the request does not read back");
  const int nonce = OCSP_check_nonce(req.get(), basic.get());
  if (nonce == 0) return OcspInvalid("the nonce is not the request's");  // both have one, not the same
  // Signed by the issuer or a responder it delegated to: the issuer is given as a known
  // certificate, the SAT's certificates as the trust.
  X509Ptr issuer = FromDer(request.issuer_der), subject = FromDer(request.cert_der);
  if (issuer == nullptr || subject == nullptr) return core::Internal("OCSP: the certificates do not read back");
  CertStackPtr known(sk_X509_new_null());
  if (known == nullptr || sk_X509_push(known.get(), X509_dup(issuer.get())) <= 0) return core::Internal("out of memory");
  if (OCSP_basic_verify(basic.get(), known.get(), Access::Store(trust), 0) != 1) {
    ERR_clear_error();
    return OcspInvalid("its signature does not chain to the SAT's certificates");
  }
  OcspIdPtr id(OCSP_cert_to_id(EVP_sha1(), subject.get(), issuer.get()));
  int cert_status = 0, reason = 0;
  ASN1_GENERALIZEDTIME *revoked = nullptr, *this_update = nullptr, *next_update = nullptr;
  if (id == nullptr ||
      OCSP_resp_find_status(basic.get(), id.get(), &cert_status, &reason, &revoked, &this_update, &next_update) != 1) {
    return OcspInvalid("it says nothing of this certificate");
  }
  // Current: within five minutes of our clock, as RFC 6960 leaves to the client.
  const int64_t now_s = now.micros / 1'000'000, skew = 300;
  const int64_t this_s = MicrosOf(this_update) / 1'000'000;
  if (this_update == nullptr || this_s > now_s + skew) return OcspInvalid("its thisUpdate is in the future");
  if (next_update != nullptr && MicrosOf(next_update) / 1'000'000 < now_s - skew) {
    return OcspInvalid("it is stale (nextUpdate passed)");
  }
  OcspStatus out;
  out.this_update_micros = this_s * 1'000'000;
  if (cert_status == V_OCSP_CERTSTATUS_GOOD) {
    out.status = "good";
  } else if (cert_status == V_OCSP_CERTSTATUS_REVOKED) {
    out.status = "revoked";
    out.revoked_at_micros = MicrosOf(revoked);
    if (reason >= 0) out.revocation_reason = OCSP_crl_reason_str(reason);
  } else {
    out.status = "unknown";
  }
  return out;
}

}  // namespace svc::pipeline::efirma
