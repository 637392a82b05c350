#pragma once
// Read model of verification sessions: its keys and their layout are in sessions_view.h.

#include "projections/projector.h"
#include "projections/sessions_view.h"

namespace svc::projections {

// Version 6: the unfiltered list's index holds the records (a covering index). 5: sessions by
// clientReference (the review search). 4: the retention index and daily volumes.
class SessionsProjector final : public ViewProjector<SessionsView, 6> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
};

}  // namespace svc::projections
