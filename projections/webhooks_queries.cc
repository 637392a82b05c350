#include "projections/webhooks_queries.h"

#include "projections/view_rows.h"
#include "projections/webhooks_projector.h"
#include "projections/webhooks_view.h"

namespace svc::projections {

core::Result<std::string> RetryEndpoint(const eventstore::KvStore& views, std::string_view te,
                                        std::string_view delivery_id) {
  using WV = WebhooksView;
  SVC_ASSIGN_OR_RETURN(auto delivery, ReadRow(views, WV::Abs(WV::Delivery(te, delivery_id))));
  if (!delivery.has_value()) return core::NotFound("no such delivery", "WEBHOOK_DELIVERY_NOT_FOUND");
  // A delivery to a session's callbackUrl goes again to that URL, with the session's secret.
  if (const std::string session = core::StringOr(*delivery, "callbackSessionId"); !session.empty()) {
    SVC_ASSIGN_OR_RETURN(auto callback, ReadRow(views, WV::Abs(WV::Callback(te, session))));
    if (!callback.has_value()) return core::NotFound("the session has no callback", "WEBHOOK_DELIVERY_NOT_FOUND");
    return std::string();
  }
  const std::string endpoint_id = core::StringOr(*delivery, "endpointId");
  SVC_ASSIGN_OR_RETURN(auto endpoint, ReadRow(views, WV::Abs(WV::Endpoint(te, endpoint_id))));
  if (!endpoint.has_value()) return core::NotFound("no such webhook endpoint", "WEBHOOK_NOT_FOUND");
  if (!endpoint->value("isActive", false)) {
    return core::FailedPrecondition("the delivery's endpoint is deactivated", "WEBHOOK_ENDPOINT_INACTIVE");
  }
  return endpoint_id;
}

core::Result<bool> DeliveredMessage(const eventstore::KvStore& views, std::string_view te, std::string_view endpoint_id,
                                    std::string_view message_id, std::string_view payload,
                                    const std::function<std::string(std::string)>& as_sent) {
  using WV = WebhooksView;
  const std::string whd = WebhooksProjector::DeliveryId(message_id, endpoint_id);
  SVC_ASSIGN_OR_RETURN(auto body, ReadRow(views, WV::Abs(WV::DeliveryBody(te, whd))));
  if (!body.has_value()) return false;
  std::string kept = body->value("body", "");
  return (as_sent ? as_sent(std::move(kept)) : kept) == payload;
}

}  // namespace svc::projections
