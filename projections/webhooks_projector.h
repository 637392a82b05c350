#pragma once
// Read model of webhooks: its keys are in webhooks_view.h.
//
// Fan-out: every event that maps to a webhook type (verdicts, session expiry, and service.test
// when an endpoint is registered) becomes one delivery per active endpoint of the same tenant and
// environment subscribed to it. A tenant's events share a partition, so the endpoints an event
// sees are exactly those registered before it: a rebuild is byte-identical. The delivery id is
// derived from the event id and the endpoint id. A session created with a callbackUrl (and its
// secret) gets its own events there too (a delivery without an endpoint: `callbackSessionId`;
// docs/webhooks.md#session-callbacks). A retention sweep (compliance.rows_swept)
// removes finished deliveries created before its cutoff, in the batch that applies it.

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "projections/listeners.h"
#include "projections/projector.h"
#include "projections/webhooks_view.h"

namespace svc::projections {

// Its listeners run after each committed batch that queued work for the dispatcher (a new
// delivery or a retry scheduled), on the runner's thread.
class WebhooksProjector final : public WatchedProjector<WebhooksView, 6> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
  void AfterCommit() override;

  // The delivery id for an event sent to an endpoint.
  static std::string DeliveryId(std::string_view event_id, std::string_view endpoint_id);

 private:
  core::Status ApplySweep(const eventstore::RecordedEvent& event, ViewWriter& view);
  std::atomic<bool> due_added_{false};  // since the last AfterCommit
};

}  // namespace svc::projections
