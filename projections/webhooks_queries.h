#pragma once
// Reads of the webhooks read model combined for one answer.

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

}  // namespace svc::projections
