#pragma once
// Read model of companies, loaded lists, screenings and hits (docs/kyb.md, docs/screening.md).
// Its keys are in kyb_view.h.

#include "core/json.h"
#include "projections/kyb/kyb_view.h"
#include "projections/listeners.h"
#include "projections/projector.h"

namespace svc::projections {

// Its listeners run after every committed batch (the company verifier and the list registry wake
// on them).
class KybProjector final : public WatchedProjector<KybView, 1> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;

 private:
  core::Status ApplyCompany(const eventstore::RecordedEvent& event, ViewWriter& view);
  core::Status ApplyHit(const eventstore::RecordedEvent& event, ViewWriter& view);
};

// A list index entry, newest first: the creation time inverted (8 bytes, big-endian), then the id.
std::string KybCreatedEntry(int64_t micros, std::string_view id);

}  // namespace svc::projections
