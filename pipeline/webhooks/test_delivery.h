#pragma once
// POST /v1/developer/webhooks/{id}/test as a use case, HTTP-free: one signed delivery of a test
// event now, outside the queue (no delivery record), signed with the endpoint's secrets in force
// like any delivery, and what the receiver said.

#include <string>

#include "core/clock.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/status.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/net/outbound_client.h"

namespace svc::pipeline::webhooks {

struct TestDeliveryDeps {
  const eventstore::KvStore* views = nullptr;
  eventstore::KeyStore* keys = nullptr;
  core::Clock* clock = nullptr;
  core::IdSource* ids = nullptr;
  net::SendOptions send;  // the dispatcher's client settings
};

// Sends a test event of `type` to `url`; the answer (WebhookTestResult): delivered, error,
// sentPayload, statusCode. Blocking: run it off the I/O threads.
core::Result<core::Json> SendTestDelivery(const TestDeliveryDeps& deps, const std::string& tenant,
                                          const std::string& environment, const std::string& endpoint_id,
                                          const std::string& type, const std::string& url);

}  // namespace svc::pipeline::webhooks
