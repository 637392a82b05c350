#pragma once
// The e.firma challenges' read model (efirma_view.h): a challenge as issued, then answered with
// its check; the session's latest check, as its evidence shows it (no RFC or CURP: those stay
// sealed in the event).

#include "projections/efirma_view.h"
#include "projections/projector.h"

namespace svc::projections {

class EfirmaProjector final : public ViewProjector<EfirmaView, 1> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
};

}  // namespace svc::projections
