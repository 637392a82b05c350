#pragma once
// The checkpoint publisher: a process manager that, every `interval`, reads the head of every
// access-log chain (projections/audit) and records a signed checkpoint of each that grew since
// its last one (commands/audit/checkpoint.h: an audit.checkpoint_published event, which the
// audit projection lists and the webhooks send). So checkpoints live in the log, exports carry
// their history, and integrators receive them without asking. The command ignores a size that
// is not new, so a late, repeated or second publisher is harmless.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "core/metrics.h"
#include "eventstore/event_log.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/periodic.h"

namespace svc::pipeline::audit {

class CheckpointPublisher final : public PeriodicManager {
 public:
  struct Options : ManagerRuntime {
    eventstore::EventLog* log = nullptr;  // to read the chains as the log stands when a run starts
    std::string root_key;  // CheckpointRootKey(working root): every checkpoint key derives from it
    std::chrono::seconds interval{60};
  };
  explicit CheckpointPublisher(Options options);
  ~CheckpointPublisher();

  // (Start: RunOnce at once, then every interval.)
  // Publishes a checkpoint of every chain that grew, as the log stood when it was called (it waits,
  // bounded, for the audit projection to get there); waits until the read models show them.
  // Returns how many were published.
  core::Result<int> RunOnce();

 private:
  Options options_;
  std::mutex run_mu_;  // one RunOnce at a time
  core::Counter* published_ = nullptr;
};

}  // namespace svc::pipeline::audit
