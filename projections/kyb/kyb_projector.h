#pragma once
// Read model of companies, loaded lists, screenings and hits (docs/kyb.md, docs/screening.md).
// Its keys are in kyb_view.h.

#include "core/json.h"
#include "projections/kyb/kyb_view.h"
#include "projections/listeners.h"
#include "projections/projector.h"

namespace svc::projections {

class KybProjector final : public Projector {
 public:
  static constexpr std::string_view kName = KybView::kName;
  std::string_view Name() const override { return kName; }
  int Version() const override { return 1; }
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
  void AfterCommit() override { listeners_.Notify(); }
  // Runs after every committed batch (the company verifier and the list registry wake on it).
  Listeners::Subscription AddListener(std::function<void()> fn) { return listeners_.Subscribe(std::move(fn)); }

 private:
  core::Status ApplyCompany(const eventstore::RecordedEvent& event, ViewWriter& view);
  core::Status ApplyHit(const eventstore::RecordedEvent& event, ViewWriter& view);
  Listeners listeners_;
};

// A list index entry, newest first: the creation time inverted (8 bytes, big-endian), then the id.
std::string KybCreatedEntry(int64_t micros, std::string_view id);

}  // namespace svc::projections
