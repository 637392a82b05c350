#pragma once
// The review outcome writer: the process manager that makes sure every final resolution of a
// review case reaches its session (docs/review.md#resolve). The resolve route records the case's
// resolution, then moves the session itself; should the process stop in between, the review read
// model still lists the resolution (`moves/`, until the session records a verdict decided by
// review), and this manager records it: the same verdict (ReviewVerdict), through the session's
// idempotent ResolveReview. Woken by every batch of the review read model.

#include "pipeline/manager_runtime.h"
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "commands/verification/session_events.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/metrics.h"
#include "eventstore/kv_store.h"
#include "pipeline/work_loop.h"
#include "projections/review/review_projector.h"
#include "projections/runner.h"

namespace svc::pipeline::review {

// The verdict a final resolution records on the session: the pipeline's verdict row (the
// verification read model's), with the reviewers' outcome, reasons (the engine's when none), the
// case and who decided.
commands::verification::VerdictReached ReviewVerdict(const core::Json& pipeline_verdict, const std::string& case_id,
                                                     const std::string& action,
                                                     const std::vector<std::string>& reasons,
                                                     const core::Json& approvers);

class OutcomeWriter {
 public:
  struct Options : ManagerRuntime {
    projections::ReviewProjector* projector = nullptr;
  };
  explicit OutcomeWriter(Options options);
  ~OutcomeWriter();
  void Start();
  void Stop();
  bool WaitIdle(std::chrono::milliseconds timeout);

 private:
  struct Move {
    std::string tenant, env, case_id;
    core::Json row;
  };
  core::Result<std::vector<Move>> Pending() const;
  void Pass();
  bool NothingDue();
  core::Status Process(const Move& m);

  Options options_;
  WorkLoop loop_;
  std::mutex done_mu_;
  std::set<std::string> done_;  // moves the session refused (no longer in review): not retried
  projections::Listeners::Subscription listener_;
};

}  // namespace svc::pipeline::review
