#pragma once
// The process manager that writes what a verification proved into the vault. An approved
// session is due in the persons read model (`vpending/`, written when verification.approved is
// projected, removed when the person revision that names the session is); for each, the manager
// opens the document stage's sealed details with the session's key, normalises what the document
// said (CURP, names, birth date, sex, document number, validity) through pii.h and writes it:
//
//   - into the session's person (created with personId), or else
//   - into the active person of the tenant and environment who holds that CURP, or else
//   - into a new person of the session's application;
//
// as one revision whose provenance names the session and the source (document_ocr, and renapo
// when the CURP registry confirmed the CURP). The command carries an idempotency key derived from
// the session and submission, so a manager that stops after the write and before the read model
// shows it writes nothing twice.

#include <chrono>
#include <mutex>
#include <set>
#include <string>

#include "core/metrics.h"
#include "eventstore/key_store.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/queue_manager.h"
#include "projections/persons/persons_projector.h"

namespace svc::pipeline::persons {

class VerifiedDataWriter final : public QueueManager {
 public:
  struct Options : ManagerRuntime {
    eventstore::KeyStore* keys = nullptr;
    projections::PersonsProjector* projector = nullptr;
  };
  explicit VerifiedDataWriter(const Options& options);
  ~VerifiedDataWriter();

 private:
  struct Due {
    std::string tenant, env, session, tracking, person;
  };
  core::Result<std::vector<Due>> Pending() const;
  void Pass() override;
  bool NothingDue() override;
  // Writes one session's data; false when there is nothing to write (the session is skipped).
  core::Result<bool> Process(const Due& due);

  Options options_;
  std::mutex skipped_mu_;
  std::set<std::string> skipped_;  // sessions with nothing to write (in memory: retried on restart)
  core::Counter* written_ = nullptr;
};

}  // namespace svc::pipeline::persons
