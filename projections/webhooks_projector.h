#pragma once
// Read model of webhooks (prefix "webhooks/"):
//
//   ep/<ten>/<env>/<whe>                           WebhookEndpointResponse, as served
//   sec/<ten>/<env>/<whe>                          the sealed secrets (never served)
//   eps/<ten>/<env>                                the endpoint ids (fan-out)
//   idx/<ten>/<env>/<inverted created 8B BE><whe>  endpoints, newest first
//   dl/<ten>/<env>/<whd>                           WebhookDeliveryResponse, as served
//   dlx/<ten>/<env>/<whd>                          the body to send and the due key (never served)
//   dli/<ten>/<env>/all/<inverted 8B><whd>         deliveries, newest first
//   dli/<ten>/<env>/ep/<whe>/<inverted 8B><whd>    one endpoint's deliveries
//   at/<ten>/<env>/<whd>/<attempt 4B BE>           attempt entries
//   due/<micros 8B BE>/<ten>/<env>/<whd> = <whe>   deliveries waiting for an attempt, by time
//   iss/<ten>/<env>/<whe>/<version 20 digits>      the sealed secret issued by the creation or
//                                                  rotation that made that version (never served;
//                                                  idempotent replays answer the same secret)
//
// Fan-out: every event that maps to a webhook type (verdicts, session expiry, and service.test
// when an endpoint is registered) becomes one delivery per active endpoint of the same tenant and
// environment subscribed to it. A tenant's events share a partition, so the endpoints an event
// sees are exactly those registered before it: a rebuild is byte-identical. The delivery id is
// derived from the event id and the endpoint id.

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "projections/listeners.h"
#include "projections/projector.h"

namespace svc::projections {

class WebhooksProjector final : public Projector {
 public:
  static constexpr std::string_view kName = "webhooks";
  std::string_view Name() const override { return kName; }
  int Version() const override { return 4; }
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
  void AfterCommit() override;
  // `fn` runs after each committed batch that queued work for the dispatcher (a new delivery or
  // a retry scheduled), on the runner's thread.
  // The listener stays until the subscription is reset or destroyed (its owner's Stop).
  Listeners::Subscription AddListener(std::function<void()> fn) { return listeners_.Subscribe(std::move(fn)); }

  // The delivery id for an event sent to an endpoint.
  static std::string DeliveryId(std::string_view event_id, std::string_view endpoint_id);
  // The key (under the "webhooks/" prefix) of the secret issued by the creation or rotation that
  // brought the endpoint to `aggregate_version`; `tenant_env` is "<ten>/<env>".
  static std::string IssuedSecretKey(std::string_view tenant_env, std::string_view endpoint_id,
                                 int64_t aggregate_version);

 private:
  Listeners listeners_;
  std::atomic<bool> due_added_{false};  // since the last AfterCommit
};

}  // namespace svc::projections
