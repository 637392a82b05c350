#pragma once
// Read model of what happened inside verification sessions: its keys are in
// verification_view.h.

#include <functional>
#include <mutex>

#include "projections/listeners.h"
#include "projections/projector.h"
#include "projections/verification_view.h"

namespace svc::projections {

class VerificationProjector final : public Projector {
 public:
  static constexpr std::string_view kName = VerificationView::kName;
  std::string_view Name() const override { return kName; }
  int Version() const override { return 3; }  // 3: mediaof/
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
  void AfterCommit() override;

  // Called after every committed batch (the pipeline wakes up, progress streams look for new
  // entries). Register before the projections start.
  // The listener stays until the subscription is reset or destroyed (its owner's Stop).
  Listeners::Subscription AddListener(std::function<void()> fn) { return listeners_.Subscribe(std::move(fn)); }

  // "<partition>-<offset>": the id of a progress-stream entry (SSE `id:`).
  static std::string StreamId(const eventstore::LogPosition& p);
  static bool ParseStreamId(std::string_view id, eventstore::LogPosition* out);

 private:
  Listeners listeners_;
};

}  // namespace svc::projections
