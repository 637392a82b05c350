#pragma once
// The review outcome writer: the one writer of the step "a final resolution of a review case moves
// its session" (docs/review.md#resolve). The resolve route records the case's resolution only; the
// review read model then lists it (`moves/`, until the session records a verdict decided by
// review), and this manager records the verdict on the session (ReviewVerdict, through the
// session's idempotent ResolveReview). Woken by every batch of the review read model; the route
// asks it to settle its case at once (Settle) so that its answer shows the session moved. After a
// crash between the two, the restarted manager finds the move still listed and makes it.

#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "commands/verification/session_events.h"
#include "core/json.h"
#include "core/metrics.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/queue_manager.h"
#include "projections/review/review_projector.h"

namespace svc::pipeline::review {

// The verdict a final resolution records on the session: the pipeline's verdict row (the
// verification read model's), with the reviewers' outcome, reasons (the engine's when none), the
// case and who decided.
commands::verification::VerdictReached ReviewVerdict(const core::Json& pipeline_verdict, const std::string& case_id,
                                                     const std::string& action,
                                                     const std::vector<std::string>& reasons,
                                                     const core::Json& approvers);

class OutcomeWriter final : public QueueManager {
 public:
  struct Options : ManagerRuntime {
    projections::ReviewProjector* projector = nullptr;
    // Tests only (--debug-review-outcomes-paused): nothing is moved, so that a crash between the
    // case's resolution and its session's move can be arranged.
    bool paused = false;
  };
  explicit OutcomeWriter(Options options);
  ~OutcomeWriter();
  // Makes the move of one case now, if it is listed and not made (the resolve route calls it once
  // the review read model shows the resolution): the session's verdict recorded and applied by the
  // read models before it returns. Blocks: call it off the I/O threads. Safe beside the loop (the
  // session's ResolveReview is idempotent).
  core::Status Settle(const std::string& tenant, const std::string& environment, const std::string& case_id);

 private:
  struct Move {
    std::string tenant, env, case_id;
    core::Json row;
  };
  core::Result<std::vector<Move>> Pending() const;
  void Pass() override;
  bool NothingDue() override;
  core::Status Process(const Move& m);

  Options options_;
  // One move at a time, the loop's or Settle's: a Settle that comes while the loop makes the same
  // move waits for it (and its read models) instead of answering from a session not yet moved.
  std::mutex process_mu_;
  std::mutex done_mu_;
  std::set<std::string> done_;  // moves the session refused (no longer in review): not retried
};

}  // namespace svc::pipeline::review
