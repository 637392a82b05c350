#pragma once
// Read model of what happened inside verification sessions: its keys are in
// verification_view.h.

#include <functional>
#include <mutex>

#include "projections/listeners.h"
#include "projections/projector.h"
#include "projections/verification_view.h"

namespace svc::projections {

// Version 3: mediaof/. Its listeners run after every committed batch (the pipeline wakes up,
// progress streams look for new entries).
class VerificationProjector final : public WatchedProjector<VerificationView, 3> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
  void AfterCommit() override;


  // "<partition>-<offset>": the id of a progress-stream entry (SSE `id:`).
  static std::string StreamId(const eventstore::LogPosition& p);
  static bool ParseStreamId(std::string_view id, eventstore::LogPosition* out);

 private:
};

}  // namespace svc::projections
