#pragma once
// The purger: a process manager that carries out ARCO cancellations (docs/persons.md#forget).
// Every interval, and at once when a forget asks for a purge now (Wake):
//   1. each person whose purge is due (the persons read model's queue) is purged: the person
//      records persons.person_purged with their verification sessions (the decider refuses while
//      a legal hold is in force; the person stays queued and is looked at again next time);
//   2. each purged person whose keys are not yet gone: their data key and the data keys of their
//      sessions are destroyed for good (deleted, then the key store compacted so the wrapped keys
//      leave the disk), the sessions' capture files deleted, and persons.keys_destroyed recorded.
// Step 2 runs from the read model, so a crash between the purge and the destruction is finished
// on the next run. Destroying a key that is already gone is harmless.

#include <chrono>
#include <memory>
#include <mutex>

#include "core/json.h"
#include "core/metrics.h"
#include "eventstore/blob_store.h"
#include "eventstore/key_store.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/periodic.h"

namespace svc::pipeline::persons {

class Purger final : public PeriodicManager {
 public:
  struct Options : ManagerRuntime {
    eventstore::KeyStore* keys = nullptr;
    eventstore::BlobStore* blobs = nullptr;
    std::chrono::seconds interval{60};
  };
  explicit Purger(Options options);
  ~Purger();

  // (Wake: a forget with mode purge.)
  // Both steps, as of the clock's now; waits until the read models show what it recorded.
  // Answers {"purged", "keysDestroyed", "held"}.
  core::Result<core::Json> RunOnce();

 private:
  Options options_;
  std::mutex run_mu_;
  core::Counter* purged_ = nullptr;
};

}  // namespace svc::pipeline::persons
