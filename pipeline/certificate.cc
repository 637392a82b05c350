#include "pipeline/certificate.h"

#include "core/canonical_json.h"
#include "core/ids.h"

namespace svc::pipeline {

std::string CertificateRootKey(std::string_view working_root) {
  return core::DeriveSubkey(working_root, "svc/certificate-root/v1");
}

std::string CertificateKey(std::string_view root_key, std::string_view tenant_id,
                           std::string_view environment) {
  std::string context = "svc/certificate/v1|";
  context.append(tenant_id).append("|").append(environment);
  return core::DeriveSubkey(root_key, context);
}

core::Ed25519KeyPair CertificateSigningKey(std::string_view root_key, std::string_view tenant_id,
                                           std::string_view environment) {
  std::string context = "svc/certificate-ed25519/v1|";
  context.append(tenant_id).append("|").append(environment);
  std::string seed = core::DeriveSubkey(root_key, context);
  core::Ed25519KeyPair kp = core::Ed25519FromSeed(seed);
  core::SecureZero(seed);
  return kp;
}

std::string CertificateKeyId(std::string_view public_key) {
  return "ed25519:" + core::Sha256Hex(public_key).substr(0, 16);
}

namespace {

core::Result<std::string> SignedBytes(core::Json content) {
  for (const char* k : {"contentHash", "signature", "signatureEd25519", "signingKeyId", "timestamps"}) {
    content.erase(k);
  }
  return core::CanonicalJson(content);
}

}  // namespace

core::Result<std::string> CertificateContentHash(const core::Json& content) {
  SVC_ASSIGN_OR_RETURN(std::string canonical, SignedBytes(content));
  return core::Sha256Hex(canonical);
}

core::Result<std::string> SignCertificate(core::Json content, std::string_view root_key, const core::Json& timestamps) {
  if (!content.is_object()) return core::InvalidArgument("a certificate is a JSON object");
  std::string tenant = core::StringOr(content, "tenantId");
  std::string env = core::StringOr(content, "environment");
  if (tenant.empty() || env.empty()) {
    return core::InvalidArgument("a certificate needs tenantId and environment");
  }
  SVC_ASSIGN_OR_RETURN(std::string canonical, SignedBytes(content));
  content["contentHash"] = core::Sha256Hex(canonical);
  content["signature"] =
      core::HexEncode(core::HmacSha256(CertificateKey(root_key, tenant, env), canonical));
  core::Ed25519KeyPair kp = CertificateSigningKey(root_key, tenant, env);
  content["signatureEd25519"] = core::HexEncode(core::Ed25519Sign(kp.secret_key, canonical));
  content["signingKeyId"] = CertificateKeyId(kp.public_key);
  core::SecureZero(kp.secret_key);
  if (!timestamps.is_null()) content["timestamps"] = timestamps;
  return core::CanonicalJson(content);
}

core::Result<CertificateCheck> VerifyCertificate(std::string_view document,
                                                 const CertificateKeys& keys) {
  core::Json doc = core::ParseJsonOrDiscarded(document);
  if (!doc.is_object()) return core::InvalidArgument("the certificate is not a JSON object");
  SVC_ASSIGN_OR_RETURN(std::string canonical, SignedBytes(doc));
  const std::string tenant = core::StringOr(doc, "tenantId");
  const std::string env = core::StringOr(doc, "environment");
  CertificateCheck c;
  c.content_hash_valid =
      core::ConstantTimeEquals(core::StringOr(doc, "contentHash"), core::Sha256Hex(canonical));

  std::optional<std::string> public_key = keys.public_key;
  if (keys.root_key.has_value()) {
    std::string expected =
        core::HexEncode(core::HmacSha256(CertificateKey(*keys.root_key, tenant, env), canonical));
    c.hmac_valid = core::ConstantTimeEquals(core::StringOr(doc, "signature"), expected);
    core::Ed25519KeyPair kp = CertificateSigningKey(*keys.root_key, tenant, env);
    core::SecureZero(kp.secret_key);
    if (public_key.has_value() && *public_key != kp.public_key) {
      // Both given and they disagree: the public key is not this tenant's, whatever it checks.
      c.ed25519_valid = false;
      c.not_checked.push_back("the public key given is not the service's key for " + tenant + "/" +
                              env);
      return c;
    }
    public_key = kp.public_key;
  } else {
    c.not_checked.push_back(
        "HMAC signature: needs the service's master key (--data-dir with its key, "
        "--master-key-file or SVC_MASTER_KEY)");
  }
  if (!public_key.has_value()) {
    c.not_checked.push_back("Ed25519 signature: no public key given (--public-key)");
    return c;
  }
  std::string named = core::StringOr(doc, "signingKeyId");
  auto sig = core::HexDecode(core::StringOr(doc, "signatureEd25519"));
  if (named.empty() || !sig.ok()) {
    c.ed25519_valid = false;
    c.not_checked.push_back("Ed25519 signature: the certificate carries none (issued before "
                            "Ed25519 signing) or it is malformed");
    return c;
  }
  c.ed25519_valid = named == CertificateKeyId(*public_key) &&
                    core::Ed25519Verify(*public_key, canonical, *sig);
  return c;
}

}  // namespace svc::pipeline
