#pragma once
// The evidence timestamps read model (timestamps_view.h): which evidence waits for a trusted
// timestamp, and the tokens recorded. Evidence is queued by the event that makes it: a session's
// verdict of approved or declined (its certificate), a person's keys destroyed (the deletion
// certificate), a published audit checkpoint (its signed note, whose digest the event gives), a bulk
// export's completion (its dump's hash), an ARCO access bundle's recorded digest. A
// token recorded for the queued event settles the entry; one recorded for an older event (the
// evidence changed since) leaves it queued. The timestamper (pipeline/audit/timestamper.h) is
// woken by every batch.

#include "projections/audit/timestamps_view.h"
#include "projections/projector.h"

namespace svc::projections {

class TimestampsProjector final : public WatchedProjector<TimestampsView, 2> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
};

}  // namespace svc::projections
