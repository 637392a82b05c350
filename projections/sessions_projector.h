#pragma once
// Read model of verification sessions: its keys and their layout are in sessions_view.h.

#include "projections/projector.h"
#include "projections/sessions_view.h"

namespace svc::projections {

class SessionsProjector final : public Projector {
 public:
  static constexpr std::string_view kName = SessionsView::kName;
  std::string_view Name() const override { return kName; }
  int Version() const override { return 4; }  // 4: the retention index and daily volumes
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
};

}  // namespace svc::projections
