#include "pipeline/certificate.h"

#include "core/canonical_json.h"
#include "core/crypto.h"
#include "core/ids.h"

namespace svc::pipeline {

std::string CertificateRootKey(std::string_view master_key) {
  return core::DeriveSubkey(master_key, "svc/certificate-root/v1");
}

std::string CertificateKey(std::string_view root_key, std::string_view tenant_id,
                           std::string_view environment) {
  std::string context = "svc/certificate/v1|";
  context.append(tenant_id).append("|").append(environment);
  return core::DeriveSubkey(root_key, context);
}

namespace {
core::Result<std::string> SignedBytes(core::Json content) {
  content.erase("contentHash");
  content.erase("signature");
  return core::CanonicalJson(content);
}
}  // namespace

core::Result<std::string> SignCertificate(core::Json content, std::string_view root_key) {
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
  return core::CanonicalJson(content);
}

core::Result<CertificateCheck> VerifyCertificate(std::string_view document,
                                                 std::string_view root_key) {
  core::Json doc = core::ParseJsonOrDiscarded(document);
  if (!doc.is_object()) return core::InvalidArgument("the certificate is not a JSON object");
  SVC_ASSIGN_OR_RETURN(std::string canonical, SignedBytes(doc));
  CertificateCheck c;
  c.content_hash_valid =
      core::ConstantTimeEquals(core::StringOr(doc, "contentHash"), core::Sha256Hex(canonical));
  std::string expected = core::HexEncode(core::HmacSha256(
      CertificateKey(root_key, core::StringOr(doc, "tenantId"), core::StringOr(doc, "environment")),
      canonical));
  c.signature_valid = core::ConstantTimeEquals(core::StringOr(doc, "signature"), expected);
  return c;
}

}  // namespace svc::pipeline
