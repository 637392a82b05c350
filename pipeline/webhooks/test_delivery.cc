#include "pipeline/webhooks/test_delivery.h"

#include "commands/webhooks/delivery_decider.h"
#include "core/crypto.h"
#include "pipeline/webhooks/dispatcher.h"
#include "pipeline/webhooks/signing.h"

namespace svc::pipeline::webhooks {

core::Result<core::Json> SendTestDelivery(const TestDeliveryDeps& deps, const std::string& tenant,
                                          const std::string& environment, const std::string& endpoint_id,
                                          const std::string& type, const std::string& url) {
  const core::Timestamp now = deps.clock->Now();
  const std::string event_id = deps.ids->NewIdString(core::IdKind::kEvent);
  core::Json payload = {{"apiVersion", commands::webhooks::kWebhookApiVersion},
                        {"id", event_id},
                        {"type", type},
                        {"data", {{"endpointId", endpoint_id}, {"message", "test delivery"}, {"test", true}}}};
  const std::string body = core::DumpJson(payload);
  SVC_ASSIGN_OR_RETURN(auto secrets, OpenWebhookSecrets(*deps.views, *deps.keys, tenant, environment, endpoint_id,
                                                        now.micros));
  const int64_t ts = now.micros / 1'000'000;
  auto signature = SignatureHeader(secrets, event_id, ts, body);
  for (auto& s : secrets) core::SecureZero(s);
  SVC_RETURN_IF_ERROR(signature.status());
  net::SendResult r = net::PostWebhook(
      url, {{"webhook-id", event_id}, {"webhook-timestamp", std::to_string(ts)}, {"webhook-signature", *signature}},
      body, deps.send, ts);
  const bool delivered = r.status >= 200 && r.status < 300;
  const std::string error = delivered ? "" : !r.error.empty() ? r.error : "http_" + std::to_string(r.status);
  return core::Json{{"delivered", delivered},
                    {"error", error.empty() ? core::Json(nullptr) : core::Json(error)},
                    {"sentPayload", payload},
                    {"statusCode", r.status > 0 ? core::Json(r.status) : core::Json(nullptr)}};
}

}  // namespace svc::pipeline::webhooks
