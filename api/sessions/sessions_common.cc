// Shared helpers of the verification-session handlers.
#include "api/sessions/sessions_common.h"

#include "api/http/public_api.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/webhooks/endpoint_secrets.h"
#include "projections/projector.h"
#include "projections/sessions_projector.h"

namespace svc::api::sessions_internal {

std::string Seal(Runtime& rt, std::string_view plaintext, std::string_view aad) {
  return core::Base64Encode(core::AeadSeal(rt.seal_key(), plaintext, aad));
}

// A short human-facing reference derived from the id ("VS-" + 10 base32 characters).
std::string PublicId(const std::string& id) {
  static constexpr char kAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  std::string h = core::Sha256(id);
  std::string out = "VS-";
  for (int i = 0; i < 10; ++i) out += kAlphabet[static_cast<unsigned char>(h[i]) % 32];
  return out;
}

// The 201 body of a create, from the creation-time row (identical for the first answer and
// every idempotent retry). The row is the body as served, except that a link session's token and
// a callback's secret are stored sealed: only then is it parsed.
core::Result<std::string> RenderCreated(Runtime& rt, std::string created_row,
                                        const std::string& session_id, const std::string& environment,
                                        const ApiContext& options) {
  const bool link = created_row.find("\"linkTokenSealed\"") != std::string::npos;
  const bool callback = created_row.find("\"callbackSecretSealed\"") != std::string::npos;
  if (!link && !callback) return created_row;
  core::Json body = core::ParseJsonOrDiscarded(created_row);
  if (link) {
    std::string sealed = core::StringOr(body, "linkTokenSealed");
    body.erase("linkTokenSealed");
    SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed));
    SVC_ASSIGN_OR_RETURN(std::string token, core::AeadOpen(rt.seal_key(), raw, session_id));
    body["linkToken"] = token;
    body["hostedUrl"] = options.public_base_url + "/v/" + token;
  }
  if (callback) {
    std::string sealed = core::StringOr(body, "callbackSecretSealed");
    body.erase("callbackSecretSealed");
    SVC_ASSIGN_OR_RETURN(std::string secret,
                         pipeline::webhooks::OpenCallbackSecret(rt.seal_key(), core::StringOr(body, "tenantId"),
                                                                environment, session_id, sealed));
    body["callbackSecret"] = secret;
    core::SecureZero(secret);
  }
  return core::DumpJson(body);
}




}  // namespace svc::api::sessions_internal
