#pragma once
// Reads of the webhooks read model combined for one answer.

#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// What a retry of a delivery needs (POST /v1/developer/webhooks/deliveries/{id}/retry): the id of
// the delivery's endpoint, which must still exist and be active. WEBHOOK_DELIVERY_NOT_FOUND,
// WEBHOOK_NOT_FOUND (the endpoint was deleted), WEBHOOK_ENDPOINT_INACTIVE (409). A delivery to a
// session's callbackUrl has no endpoint: "".
core::Result<std::string> RetryEndpoint(const eventstore::KvStore& views, std::string_view te,
                                        std::string_view delivery_id);

// Whether `payload` is, byte for byte, the body this service delivered (or is delivering) to
// endpoint `endpoint_id` as message `message_id` (its event's id, the webhook-id). verify-signature
// shows the expected signature of such a message only: of any other payload it would be a signing
// oracle, a valid signature for a body the caller chose (issue 68, item 9). `as_sent` makes a kept
// body the bytes sent (pipeline/verification/requested_input.h, WebhookBodyAsSent); empty: as kept.
core::Result<bool> DeliveredMessage(const eventstore::KvStore& views, std::string_view te, std::string_view endpoint_id,
                                    std::string_view message_id, std::string_view payload,
                                    const std::function<std::string(std::string)>& as_sent = {});

}  // namespace svc::projections
