#pragma once
// The bulk exporter: the process manager that writes bulk export dumps (docs/persons.md#bulk-export).
// A job is queued in the persons read model (`exporting/`, from persons.export_requested until
// its dump is written); for each:
//
//   1. the persons: the ones the request listed, or every active person of the environment; each
//      must be active and readable by the requesting key's application for the purpose (the
//      reveal rules, reveal_rules.h) — one that is not is left out with its error code;
//   2. one access event per person left in (channel export_bulk, redaction sealed), appended to
//      the job in groups of 500, durably, before any value is opened: the audit chain has them;
//   3. the dump (export_dump.h): each person's values opened with their key and written as one
//      JSON line, the whole sealed to the tenant's export key, into an object of the blob store
//      whose address is the dump's SHA-256; a person erased meanwhile is left out (its access
//      event stays: the audit errs on the side of saying more);
//   4. persons.export_completed with the counts, the dump's size and SHA-256, and its expiry.
//
// A job interrupted by a crash starts over on the next run (a new dump; the access events of the
// first try stay; an object stored but never named by persons.export_completed is the blob
// collector's). Ready dumps past their expiry are deleted from the store and recorded
// persons.export_expired.
// Woken by every batch of the persons read model; pausable (operators, tests).

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "commands/persons/export_job.h"
#include "core/json.h"
#include "core/metrics.h"
#include "eventstore/blob_store.h"
#include "eventstore/key_store.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/queue_manager.h"
#include "projections/persons/persons_projector.h"

namespace svc::pipeline::persons {

class BulkExporter final : public QueueManager {
 public:
  struct Options : ManagerRuntime {
    eventstore::KeyStore* keys = nullptr;
    projections::PersonsProjector* projector = nullptr;
    eventstore::BlobStore* blobs = nullptr;  // where dumps are kept
    std::string exports_dir;                  // <data-dir>/exports: where they were kept before
    std::string event_seal_key;               // opens a job's sealed reason (SealExportReason)
  };
  explicit BulkExporter(Options options);
  ~BulkExporter();

  // (WaitIdle: until no job is queued and no ready dump is past its expiry; a paused exporter
  // counts as idle.)
  // While paused, no job starts (expiry still runs). Resume wakes the exporter.
  void Pause();
  void Resume();
  bool Paused() const { return paused_; }

  // Moves the dumps kept as files in exports_dir into the blob store (AdoptLegacyDumps). Called
  // before the API serves; when it fails (the store unreachable), each pass tries again.
  core::Status AdoptLegacy();

  // Where dumps were kept under a data directory before the blob store (<data-dir>/exports).
  static std::string ExportsDir(const std::string& data_dir);

 private:
  struct Queued {
    std::string tenant, env, job;
    core::Json request;
  };
  core::Result<std::vector<Queued>> Pending() const;
  core::Result<std::vector<Queued>> Expired() const;
  bool NothingDue() override;
  void Pass() override;
  core::Status Process(const Queued& q);
  core::Status Expire(const Queued& q);
  core::Result<commands::CommandOutcome> Run(const Queued& q, commands::persons::ExportCommand command, bool wait);

  Options options_;
  std::atomic<bool> paused_{false};
  std::atomic<bool> legacy_left_{true};
  std::map<std::string, int> attempts_;  // job -> failed tries (the loop's thread only)
  core::Counter* exported_ = nullptr;
};

}  // namespace svc::pipeline::persons
