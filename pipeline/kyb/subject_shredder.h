#pragma once
// The subject shredder: a process manager that finishes the erasure of a company member's or
// ownership node's personal data (docs/kyb.md#erasure). Each forgotten subject whose data key
// remains (the KYB read model's queue, shred/) has its key destroyed for good — deleted, then the
// key store compacted so the wrapped key leaves the disk — and kyb.subject_keys_destroyed
// recorded, from which its deletion certificate follows. Every interval, at once when a forget
// asks (Wake), and on demand (RunOnce: tests and operators). Working from the read model, a
// crash between the forget and the destruction is finished on the next run; destroying a key
// that is already gone is harmless.

#include <chrono>
#include <mutex>

#include "core/json.h"
#include "eventstore/key_store.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/periodic.h"

namespace svc::pipeline::kyb {

class SubjectShredder final : public PeriodicManager {
 public:
  struct Options : ManagerRuntime {
    eventstore::KeyStore* keys = nullptr;
    std::chrono::seconds interval{60};
  };
  explicit SubjectShredder(Options options);
  ~SubjectShredder();

  // One pass; waits until the read models show what it recorded. Answers {"keysDestroyed": n}.
  core::Result<core::Json> RunOnce();

 private:
  Options options_;
  std::mutex run_mu_;
};

}  // namespace svc::pipeline::kyb
