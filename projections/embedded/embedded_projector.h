#pragma once
// Read model of the embedded channel (docs/embedded.md): flows and their published versions, and
// the embedded sessions with their applicant tokens. Its keys are in embedded_view.h.

#include "projections/embedded/embedded_view.h"
#include "projections/projector.h"

namespace svc::projections {

class EmbeddedProjector final : public Projector {
 public:
  static constexpr std::string_view kName = EmbeddedView::kName;
  std::string_view Name() const override { return kName; }
  int Version() const override { return 1; }
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
};

}  // namespace svc::projections
