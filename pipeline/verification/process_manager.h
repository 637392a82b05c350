#pragma once
// The verification pipeline's process manager. It consumes submissions through the
// verification read model's `pending/` rows (written when `session_submitted` is projected,
// removed when the verdict is), and for each runs the stages in order — document, liveness,
// face match, CURP registry, INE list — then the decision policy. Every stage result and the
// verdict are commands on the session aggregate, so:
//
//  - a stage result is recorded once per submission (the aggregate ignores a repeat), and a
//    stage whose result is already in the read model is not run again after a restart;
//  - a crash mid-pipeline loses nothing: the pending row survives, and the manager resumes at
//    the first stage without a result when it starts again;
//  - a review verdict first opens the review case (its id derives from the tracking id, so a
//    resumed pipeline opens the same case once), then records the verdict with the case id.
//
// In a cluster (docs/operations.md#verification-work-on-workers) the work is spread over workers
// through a job queue (eventstore/job_queue.h, topic `<prefix>.jobs`): the node that writes a
// session's partition publishes each pending submission as a job (`publish`), and whichever node
// of the workers' group is given the job's partition runs it (`take`), after its own read models
// hold the submission. A job given back (a rebalance) stops before its next recorded stage; a job
// whose worker died runs again on the next one, from the first stage without a result.
//
// Engines: the sandbox engine when the session is in the test environment and carries
// policy.testOutcome; the default engine otherwise. Registries: the sandbox in the test
// environment, the configured (or unconfigured) registry in live.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/executor.h"
#include "core/metrics.h"
#include "eventstore/blob_store.h"
#include "eventstore/envelope.h"
#include "eventstore/job_queue.h"
#include "eventstore/key_store.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/verification/engines.h"
#include "pipeline/work_loop.h"
#include "projections/verification_projector.h"

namespace svc::pipeline::verification {

class VerificationPipeline {
 public:
  struct Options : ManagerRuntime {
    projections::VerificationProjector* projector = nullptr;
    eventstore::KeyStore* keys = nullptr;
    eventstore::BlobStore* blobs = nullptr;
    VerificationEngine* engine = nullptr;          // default engine
    VerificationEngine* sandbox_engine = nullptr;  // test environment with testOutcome
    GovRegistry* live_registry = nullptr;
    GovRegistry* sandbox_registry = nullptr;
    size_t workers = 2;
    // Tests only: after recording this stage a run stops and waits for Stop (a crash test kills
    // the process there).
    std::string halt_after_stage;
    // A cluster's jobs topic (null: this process runs every pending submission it sees itself).
    // `publish`: this node hands the pending submissions of the partitions it writes to the
    // topic; `take`: it runs the jobs the workers' group gives it.
    eventstore::JobQueue* jobs = nullptr;
    bool publish = false;
    bool take = false;
  };
  explicit VerificationPipeline(const Options& options);
  ~VerificationPipeline();

  // Registers with the projector (before projections start) and starts the dispatcher; with
  // `take`, joins the workers' group.
  core::Status Start();
  void Stop();
  // Blocks until no submission is pending or running (tests, tools). False on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout);


 private:
  struct Job {
    std::string tenant, env, session, tracking;
  };
  // A job the workers' group gave this node: where it sits in the jobs topic, the log position
  // of the submission (the publisher's read model held it), and the flag that stops it.
  struct Taken {
    Job job;
    std::optional<eventstore::LogPosition> at;
    uint32_t partition = 0;
    int64_t offset = -1;
    std::shared_ptr<std::atomic<bool>> cancel;
    std::chrono::steady_clock::time_point not_before{};
  };
  // One pass of the loop: every pending submission not already running goes to the pool (or,
  // in a cluster, to the jobs topic), and every job given and not running to the pool.
  void Dispatch();
  void DispatchLocal();
  void PublishPending();
  void RunTaken();
  core::Status RunJob(const Taken& t);
  void OnJob(eventstore::JobRecord record);
  void OnRevoked(uint32_t partition);
  bool NothingDue();
  core::Status Process(const Job& job, const std::atomic<bool>* cancel = nullptr);
  core::Result<std::vector<Job>> Pending() const;

  Options options_;
  std::unique_ptr<core::ThreadPool> pool_;
  std::mutex mu_;                  // guards active_ and stopping_
  std::condition_variable halted_;  // a run stopped by halt_after_stage waits here for Stop
  bool stopping_ = false;
  std::set<std::string> active_;  // sessions being processed
  std::deque<Taken> waiting_;     // given by the workers' group, not running
  std::map<std::pair<uint32_t, int64_t>, std::shared_ptr<std::atomic<bool>>> running_;  // taken, running
  std::condition_variable ended_;  // a taken job ended (OnRevoked waits for its partition's)
  std::map<std::string, std::string> published_;  // "<ten>/<env>/<vrf>" -> tracking id on the topic
  WorkLoop loop_;
  projections::Listeners::Subscription listener_;  // the projector's wake-up call, reset on Stop
  core::Counter* stages_ = nullptr;
  core::Counter* verdicts_ = nullptr;
  core::Counter* failures_ = nullptr;
};

}  // namespace svc::pipeline::verification
