#pragma once
// The ARCO requests' read model (arco_view.h): each event carries the request's record after it,
// so a row is that record as served, with its history (one entry per move: what, when, who).
// The open deadline of each request is queued for the timer (pipeline/persons/arco_timer.h).

#include <atomic>
#include <optional>

#include "core/json.h"
#include "projections/persons/arco_view.h"
#include "projections/projector.h"

namespace svc::projections {

// Its listeners (the ARCO manager) run after the batches that queued a fulfilment.
class ArcoProjector final : public WatchedProjector<ArcoView, 1> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
  void AfterCommit() override;

 private:
  // The operations that fulfil a request, from their own events (a rectification, a forget, an
  // opposition, an access bundle's record) when they name one.
  core::Status ApplyOperation(const eventstore::RecordedEvent& event, ViewWriter& view);
  std::atomic<bool> queued_{false};
};

// The open deadline of a served request: "response" (received), "effect" (accepted), or
// "information" (awaiting it), with its due time; none for a closed request.
struct OpenDeadline {
  std::string deadline;
  int64_t due_micros = 0;
};
std::optional<OpenDeadline> OpenDeadlineOf(const core::Json& row);

}  // namespace svc::projections
