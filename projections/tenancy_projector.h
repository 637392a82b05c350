#pragma once
// Read model of tenants, applications and API keys: its keys are in tenancy_view.h.

#include "projections/projector.h"
#include "projections/tenancy_view.h"

namespace svc::projections {

class TenancyProjector final : public ViewProjector<TenancyView, 1> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
  void AfterCommit() override;
  // Moves after every committed batch that changed an API key: authentication caches compare it.
  static uint64_t KeyGeneration();

 private:
  bool keys_changed_ = false;
};

}  // namespace svc::projections
