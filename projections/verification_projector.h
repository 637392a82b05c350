#pragma once
// Read model of what happened inside verification sessions (prefix "verification/"): the rows
// the evidence bundle, the report, the certificate, the pipeline and the progress stream read.
//
//   settings/<ten>/<env>/<vrf>                    checks and policy given at create
//   media/<ten>/<env>/<vrf>/<capture seq 4B BE>   one capture (MediaCaptured, + capturedAt)
//   sub/<ten>/<env>/<vrf>                         the latest submission
//   stage/<ten>/<env>/<vrf>/<trk>/<stage>         one stage result of a submission
//   verdict/<ten>/<env>/<vrf>                     the latest verdict (report included)
//   pending/<ten>/<env>/<vrf>                     submissions the pipeline has not decided yet
//   sse/<ten>/<env>/<vrf>/<offset 8B BE>          progress-stream entries, in log order
//
// None of these rows holds plaintext personal data: extracted fields stay sealed.

#include <functional>
#include <mutex>

#include "projections/listeners.h"
#include "projections/projector.h"

namespace svc::projections {

class VerificationProjector final : public Projector {
 public:
  static constexpr std::string_view kName = "verification";
  std::string_view Name() const override { return kName; }
  int Version() const override { return 2; }
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
