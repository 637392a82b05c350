#pragma once
// Read model of persons (the vault): its keys are in persons_view.h. Built from the person
// aggregate's events, which hold sealed values and blind-index keys only, so no row can hold a
// value of personal data; masked reads never need the person's key.

#include "projections/listeners.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"

namespace svc::projections {

class PersonsProjector final : public Projector {
 public:
  static constexpr std::string_view kName = PersonsView::kName;
  std::string_view Name() const override { return kName; }
  int Version() const override { return 4; }
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
  void AfterCommit() override { listeners_.Notify(); }
  // Called after every committed batch (the verified-data process manager wakes up on it).
  Listeners::Subscription AddListener(std::function<void()> fn) { return listeners_.Subscribe(std::move(fn)); }

 private:
  Listeners listeners_;
};

}  // namespace svc::projections
