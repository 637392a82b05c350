#include "pipeline/webhooks/endpoint_secrets.h"

#include "core/crypto.h"
#include "projections/view_rows.h"
#include "projections/webhooks_view.h"

namespace svc::pipeline::webhooks {

namespace {

std::string KeyName(const std::string& tenant, const std::string& environment, const std::string& id) {
  return "webhook/" + tenant + "/" + environment + "/" + id;
}
std::string Aad(const std::string& tenant, const std::string& environment, const std::string& id) {
  return "webhook-secret|" + tenant + "|" + environment + "|" + id;
}

}  // namespace

core::Result<std::string> SealEndpointSecret(eventstore::KeyStore& keys, const std::string& tenant,
                                             const std::string& environment, const std::string& endpoint_id,
                                             const std::string& secret) {
  SVC_ASSIGN_OR_RETURN(std::string dek, keys.GetOrCreate(KeyName(tenant, environment, endpoint_id)));
  return core::Base64Encode(core::AeadSeal(dek, secret, Aad(tenant, environment, endpoint_id)));
}

core::Result<std::string> OpenEndpointSecret(eventstore::KeyStore& keys, const std::string& tenant,
                                             const std::string& environment, const std::string& endpoint_id,
                                             const std::string& sealed_base64) {
  SVC_ASSIGN_OR_RETURN(auto dek, keys.Get(KeyName(tenant, environment, endpoint_id)));
  if (!dek.has_value()) return core::DataLoss("the endpoint's key is gone");
  SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed_base64));
  return core::AeadOpen(*dek, raw, Aad(tenant, environment, endpoint_id));
}

core::Result<std::string> IssuedSecret(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                       const std::string& tenant, const std::string& environment,
                                       const std::string& endpoint_id, int64_t version) {
  using WV = projections::WebhooksView;
  SVC_ASSIGN_OR_RETURN(auto row, projections::ReadRow(views, WV::Abs(WV::IssuedSecret(projections::TenantEnv(tenant, environment),
                                                                                      endpoint_id, version))));
  if (!row.has_value()) return core::Unavailable("the rotation is not readable yet; retry");
  return OpenEndpointSecret(keys, tenant, environment, endpoint_id, core::StringOr(*row, "secretSealed"));
}

core::Result<std::string> CurrentEndpointSecret(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                                const std::string& tenant, const std::string& environment,
                                                const std::string& endpoint_id) {
  using WV = projections::WebhooksView;
  SVC_ASSIGN_OR_RETURN(auto row, projections::ReadRow(views, WV::Abs(WV::Secret(projections::TenantEnv(tenant, environment),
                                                                                endpoint_id))));
  if (!row.has_value()) return core::Unavailable("the endpoint's secret is not readable yet");
  return OpenEndpointSecret(keys, tenant, environment, endpoint_id, core::StringOr(*row, "secretSealed"));
}

namespace {
std::string CallbackKey(std::string_view seal_key) { return core::DeriveSubkey(seal_key, "svc/session-callback/v1"); }
std::string CallbackAad(const std::string& tenant, const std::string& environment, const std::string& session_id) {
  return "callback-secret|" + tenant + "|" + environment + "|" + session_id;
}
}  // namespace

std::string SealCallbackSecret(std::string_view seal_key, const std::string& tenant, const std::string& environment,
                               const std::string& session_id, const std::string& secret) {
  return core::Base64Encode(core::AeadSeal(CallbackKey(seal_key), secret, CallbackAad(tenant, environment, session_id)));
}

core::Result<std::string> OpenCallbackSecret(std::string_view seal_key, const std::string& tenant,
                                             const std::string& environment, const std::string& session_id,
                                             const std::string& sealed_base64) {
  SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed_base64));
  return core::AeadOpen(CallbackKey(seal_key), raw, CallbackAad(tenant, environment, session_id));
}

}  // namespace svc::pipeline::webhooks
