#pragma once
// Read model of review cases (docs/review.md): the case as the queue serves it, the queue's order,
// the per-status counts and each case's log. Its keys are in review_view.h.

#include "projections/listeners.h"
#include "projections/projector.h"
#include "projections/review/review_view.h"
#include "core/json.h"

namespace svc::projections {

// Version 2: note bodies (sealed), bysession/, feed/; 3: qo/; 4: rstats/, num/. Its listeners run after
// every committed batch (the review outcome writer wakes on them).
class ReviewProjector final : public WatchedProjector<ReviewView, 4> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
};

// The queue entry of a case row: priority rank, SLA due date, id.
std::string ReviewQueueEntry(const core::Json& row);
// The SLA of a priority, in seconds (docs/review.md#priorities).
int64_t ReviewSlaSeconds(std::string_view priority);

}  // namespace svc::projections
