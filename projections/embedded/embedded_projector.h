#pragma once
// Read model of the embedded channel (docs/embedded.md): flows and their published versions, and
// the embedded sessions with their applicant tokens. Its keys are in embedded_view.h.

#include "projections/embedded/embedded_view.h"
#include "projections/projector.h"

namespace svc::projections {

class EmbeddedProjector final : public ViewProjector<EmbeddedView, 1> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
};

}  // namespace svc::projections
