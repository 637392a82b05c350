#include "pipeline/adapters/rfc3161.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/ts.h>
#include <openssl/x509.h>

#include <algorithm>
#include <ctime>
#include <memory>

#include "core/crypto.h"
#include "core/ids.h"

namespace svc::pipeline::rfc3161 {

namespace {

template <typename T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using ReqPtr = std::unique_ptr<TS_REQ, Deleter<TS_REQ, TS_REQ_free>>;
using RespPtr = std::unique_ptr<TS_RESP, Deleter<TS_RESP, TS_RESP_free>>;
using ImprintPtr = std::unique_ptr<TS_MSG_IMPRINT, Deleter<TS_MSG_IMPRINT, TS_MSG_IMPRINT_free>>;
using AlgorPtr = std::unique_ptr<X509_ALGOR, Deleter<X509_ALGOR, X509_ALGOR_free>>;
using ObjPtr = std::unique_ptr<ASN1_OBJECT, Deleter<ASN1_OBJECT, ASN1_OBJECT_free>>;
using IntPtr = std::unique_ptr<ASN1_INTEGER, Deleter<ASN1_INTEGER, ASN1_INTEGER_free>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using CtxPtr = std::unique_ptr<TS_VERIFY_CTX, Deleter<TS_VERIFY_CTX, TS_VERIFY_CTX_free>>;
using StorePtr = std::unique_ptr<X509_STORE, Deleter<X509_STORE, X509_STORE_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Pkcs7Ptr = std::unique_ptr<PKCS7, Deleter<PKCS7, PKCS7_free>>;
using TstPtr = std::unique_ptr<TS_TST_INFO, Deleter<TS_TST_INFO, TS_TST_INFO_free>>;

core::Status Invalid(const std::string& what) {
  return core::InvalidArgument("time-stamp token refused: " + what, "TIMESTAMP_INVALID");
}

// OpenSSL's queued errors, one line (and the queue emptied).
std::string OpenSslErrors() {
  std::string out;
  char buf[256];
  while (unsigned long e = ERR_get_error()) {
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "no detail" : out;
}

std::string Dotted(const ASN1_OBJECT* o) {
  if (o == nullptr) return "";
  char buf[128];
  const int n = OBJ_obj2txt(buf, sizeof buf, o, /*no_name=*/1);
  return n > 0 ? std::string(buf, std::min<int>(n, sizeof buf - 1)) : "";
}

core::Result<StorePtr> RootStore(const std::string& pem) {
  StorePtr store(X509_STORE_new());
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (store == nullptr || bio == nullptr) return core::Internal("out of memory");
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509Ptr owned(cert);
    if (X509_STORE_add_cert(store.get(), cert) != 1) return core::InvalidArgument("a TSA root could not be added");
    ++added;
  }
  ERR_clear_error();  // the read past the last certificate
  if (added == 0) return core::InvalidArgument("no TSA root certificate in the configured PEM");
  return store;
}

core::Result<core::Timestamp> GenTime(const TS_TST_INFO* tst) {
  const ASN1_GENERALIZEDTIME* t = TS_TST_INFO_get_time(tst);
  std::tm tm{};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return Invalid("no readable genTime");
  return core::Timestamp::FromSeconds(static_cast<int64_t>(timegm(&tm)));
}

core::Result<Token> Describe(const TS_TST_INFO* tst, PKCS7* token) {
  Token out;
  SVC_ASSIGN_OR_RETURN(out.gen_time, GenTime(tst));
  out.policy = Dotted(TS_TST_INFO_get_policy_id(const_cast<TS_TST_INFO*>(tst)));
  if (const ASN1_INTEGER* serial = TS_TST_INFO_get_serial(tst)) {
    BnPtr bn(ASN1_INTEGER_to_BN(serial, nullptr));
    if (bn != nullptr) {
      std::string bytes(static_cast<size_t>(BN_num_bytes(bn.get())), '\0');
      BN_bn2bin(bn.get(), reinterpret_cast<unsigned char*>(bytes.data()));
      out.serial_hex = core::HexEncode(bytes);
    }
  }
  // The signer: the one SignerInfo's certificate, among those the token carries.
  STACK_OF(PKCS7_SIGNER_INFO)* signers = PKCS7_get_signer_info(token);
  STACK_OF(X509)* certs = token->d.sign != nullptr ? token->d.sign->cert : nullptr;
  if (signers != nullptr && sk_PKCS7_SIGNER_INFO_num(signers) == 1 && certs != nullptr) {
    PKCS7_SIGNER_INFO* si = sk_PKCS7_SIGNER_INFO_value(signers, 0);
    X509* signer = X509_find_by_issuer_and_serial(certs, si->issuer_and_serial->issuer,
                                                  si->issuer_and_serial->serial);
    if (signer != nullptr) {
      BioPtr mem(BIO_new(BIO_s_mem()));
      X509_NAME_print_ex(mem.get(), X509_get_subject_name(signer), 0, XN_FLAG_RFC2253);
      char* data = nullptr;
      const long n = BIO_get_mem_data(mem.get(), &data);
      out.tsa_subject.assign(data, static_cast<size_t>(n));
    }
  }
  unsigned char* der = nullptr;
  const int n = i2d_PKCS7(token, &der);
  if (n <= 0) return core::Internal("the token could not be encoded");
  out.der.assign(reinterpret_cast<char*>(der), static_cast<size_t>(n));
  OPENSSL_free(der);
  return out;
}

// A verification context: version, signature (chained to `trust`'s roots, the signer with the
// critical timeStamping key usage) and message imprint equal to `sha256`. The nonce and the
// policy are compared by the callers (OpenSSL 3.0 sets them only from a whole TS_REQ).
core::Result<CtxPtr> VerifyContext(std::string_view sha256, const Trust& trust) {
  CtxPtr ctx(TS_VERIFY_CTX_new());
  if (ctx == nullptr) return core::Internal("out of memory");
  SVC_ASSIGN_OR_RETURN(StorePtr store, RootStore(trust.roots_pem));
  TS_VERIFY_CTX_set_store(ctx.get(), store.release());  // the context owns it
  auto* imprint = static_cast<unsigned char*>(OPENSSL_malloc(sha256.size()));
  if (imprint == nullptr) return core::Internal("out of memory");
  std::copy(sha256.begin(), sha256.end(), imprint);
  TS_VERIFY_CTX_set_imprint(ctx.get(), imprint, static_cast<long>(sha256.size()));  // owns it
  TS_VERIFY_CTX_add_flags(ctx.get(), TS_VFY_VERSION | TS_VFY_SIGNATURE | TS_VFY_IMPRINT);
  return ctx;
}

}  // namespace

core::Status CheckTrust(const Trust& trust) {
  SVC_ASSIGN_OR_RETURN(StorePtr store, RootStore(trust.roots_pem));
  if (!trust.policy_oid.empty()) {
    ObjPtr oid(OBJ_txt2obj(trust.policy_oid.c_str(), /*no_name=*/1));
    ERR_clear_error();
    if (oid == nullptr) return core::InvalidArgument("the TSA policy is not a dotted OID: " + trust.policy_oid);
  }
  return core::Status::Ok();
}

core::Result<Request> MakeRequest(std::string_view sha256, const std::string& policy_oid) {
  if (sha256.size() != 32) return core::InvalidArgument("a time-stamp request takes a SHA-256 digest (32 bytes)");
  ReqPtr req(TS_REQ_new());
  ImprintPtr imprint(TS_MSG_IMPRINT_new());
  AlgorPtr algo(X509_ALGOR_new());
  if (req == nullptr || imprint == nullptr || algo == nullptr) return core::Internal("out of memory");
  X509_ALGOR_set0(algo.get(), OBJ_nid2obj(NID_sha256), V_ASN1_NULL, nullptr);
  if (TS_REQ_set_version(req.get(), 1) != 1 || TS_MSG_IMPRINT_set_algo(imprint.get(), algo.get()) != 1 ||
      TS_MSG_IMPRINT_set_msg(imprint.get(), reinterpret_cast<unsigned char*>(const_cast<char*>(sha256.data())),
                             static_cast<int>(sha256.size())) != 1 ||
      TS_REQ_set_msg_imprint(req.get(), imprint.get()) != 1) {
    return core::Internal("time-stamp request: " + OpenSslErrors());
  }
  Request out;
  out.digest = std::string(sha256);
  out.policy = policy_oid;
  if (!policy_oid.empty()) {
    ObjPtr oid(OBJ_txt2obj(policy_oid.c_str(), /*no_name=*/1));
    if (oid == nullptr) {
      ERR_clear_error();
      return core::InvalidArgument("the TSA policy must be a dotted OID: " + policy_oid);
    }
    if (TS_REQ_set_policy_id(req.get(), oid.get()) != 1) return core::Internal("time-stamp request: " + OpenSslErrors());
  }
  // A 64-bit nonce with its top bit clear (a positive INTEGER of 8 bytes, as TSAs echo it).
  out.nonce = core::RandomBytes(8);
  out.nonce[0] = static_cast<char>(static_cast<unsigned char>(out.nonce[0]) & 0x7f);
  if (out.nonce[0] == 0) out.nonce[0] = 1;  // keep it 8 bytes long
  BnPtr bn(BN_bin2bn(reinterpret_cast<const unsigned char*>(out.nonce.data()), 8, nullptr));
  IntPtr nonce(bn != nullptr ? BN_to_ASN1_INTEGER(bn.get(), nullptr) : nullptr);
  if (nonce == nullptr || TS_REQ_set_nonce(req.get(), nonce.get()) != 1 || TS_REQ_set_cert_req(req.get(), 1) != 1) {
    return core::Internal("time-stamp request: " + OpenSslErrors());
  }
  unsigned char* der = nullptr;
  const int n = i2d_TS_REQ(req.get(), &der);
  if (n <= 0) return core::Internal("time-stamp request: " + OpenSslErrors());
  out.der.assign(reinterpret_cast<char*>(der), static_cast<size_t>(n));
  OPENSSL_free(der);
  return out;
}

core::Result<Token> VerifyResponse(std::string_view response_der, const Request& request, const Trust& trust,
                                   core::Timestamp now) {
  const auto* p = reinterpret_cast<const unsigned char*>(response_der.data());
  RespPtr resp(d2i_TS_RESP(nullptr, &p, static_cast<long>(response_der.size())));
  if (resp == nullptr || p != reinterpret_cast<const unsigned char*>(response_der.data()) + response_der.size()) {
    ERR_clear_error();
    return Invalid("the answer is not one TimeStampResp");
  }
  TS_STATUS_INFO* status = TS_RESP_get_status_info(resp.get());
  const long granted = status != nullptr ? ASN1_INTEGER_get(TS_STATUS_INFO_get0_status(status)) : -1;
  if (granted != 0 && granted != 1) {
    std::string text;
    if (const STACK_OF(ASN1_UTF8STRING)* t = status != nullptr ? TS_STATUS_INFO_get0_text(status) : nullptr) {
      for (int i = 0; i < sk_ASN1_UTF8STRING_num(t); ++i) {
        const ASN1_UTF8STRING* s = sk_ASN1_UTF8STRING_value(t, i);
        text.append(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), static_cast<size_t>(ASN1_STRING_length(s)));
      }
    }
    return core::Unavailable("the TSA refused the request (status " + std::to_string(granted) + (text.empty() ? "" : ": " + text) + ")",
                             "TIMESTAMP_REFUSED");
  }
  PKCS7* token = TS_RESP_get_token(resp.get());
  TS_TST_INFO* tst = TS_RESP_get_tst_info(resp.get());
  if (token == nullptr || tst == nullptr) return Invalid("a granted answer without a token");
  SVC_ASSIGN_OR_RETURN(CtxPtr ctx, VerifyContext(request.digest, trust));
  if (TS_RESP_verify_response(ctx.get(), resp.get()) != 1) return Invalid(OpenSslErrors());
  // The nonce echoes the request's: the answer is to this request, not a replay of another.
  const ASN1_INTEGER* nonce = TS_TST_INFO_get_nonce(tst);
  BnPtr got(nonce != nullptr ? ASN1_INTEGER_to_BN(nonce, nullptr) : nullptr);
  BnPtr want(BN_bin2bn(reinterpret_cast<const unsigned char*>(request.nonce.data()),
                       static_cast<int>(request.nonce.size()), nullptr));
  if (got == nullptr || want == nullptr || BN_cmp(got.get(), want.get()) != 0) return Invalid("the nonce is not the request's");
  SVC_ASSIGN_OR_RETURN(Token out, Describe(tst, token));
  const std::string& wanted_policy = !trust.policy_oid.empty() ? trust.policy_oid : request.policy;
  if (!wanted_policy.empty() && out.policy != wanted_policy) {
    return Invalid("policy " + out.policy + ", not " + wanted_policy);
  }
  const int64_t skew = std::chrono::duration_cast<std::chrono::microseconds>(trust.max_skew).count();
  if (out.gen_time.micros < now.micros - skew || out.gen_time.micros > now.micros + skew) {
    return Invalid("its time is " + core::FormatRfc3339(out.gen_time) + ", too far from this node's clock");
  }
  return out;
}

core::Result<Token> VerifyToken(std::string_view token_der, std::string_view sha256, const Trust& trust) {
  const auto* p = reinterpret_cast<const unsigned char*>(token_der.data());
  Pkcs7Ptr token(d2i_PKCS7(nullptr, &p, static_cast<long>(token_der.size())));
  if (token == nullptr || p != reinterpret_cast<const unsigned char*>(token_der.data()) + token_der.size()) {
    ERR_clear_error();
    return Invalid("not one TimeStampToken");
  }
  TstPtr tst(PKCS7_to_TS_TST_INFO(token.get()));
  if (tst == nullptr) {
    ERR_clear_error();
    return Invalid("the token holds no TSTInfo");
  }
  SVC_ASSIGN_OR_RETURN(CtxPtr ctx, VerifyContext(sha256, trust));
  if (TS_RESP_verify_token(ctx.get(), token.get()) != 1) return Invalid(OpenSslErrors());
  SVC_ASSIGN_OR_RETURN(Token out, Describe(tst.get(), token.get()));
  if (!trust.policy_oid.empty() && out.policy != trust.policy_oid) {
    return Invalid("policy " + out.policy + ", not " + trust.policy_oid);
  }
  return out;
}

}  // namespace svc::pipeline::rfc3161
