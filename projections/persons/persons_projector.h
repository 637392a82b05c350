#pragma once
// Read model of persons (the vault): its keys are in persons_view.h. Built from the person
// aggregate's events, which hold sealed values and blind-index keys only, so no row can hold a
// value of personal data; masked reads never need the person's key.

#include "projections/listeners.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"

namespace svc::projections {

// Its listeners run after every committed batch (the verified-data writer, the consolidator and
// the exporter wake on them).
class PersonsProjector final : public WatchedProjector<PersonsView, 4> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
};

}  // namespace svc::projections
