#pragma once
// The blob garbage collector (docs/operations.md#object-storage): deletes the objects of the blob
// store that nothing refers to any more, after a grace period.
//
// A capture's object is stored before its event is appended, so a crash (or a failed append)
// between the two leaves an object no event names. So does a purge whose delete failed. One run:
//   1. waits until every read model has applied the whole log (`caught_up`), so what it reads
//      is what the log says;
//   2. collects the addresses still referred to: every capture row of the verification read
//      model not purged, every version of every sanctions list (its files), and the dump of every
//      bulk export job while it is ready (the exporter deletes it at expiry);
//   3. lists the store and deletes each object that is not referred to and older than `grace`
//      (24 h by default: an upload in flight appends its event within seconds of its object),
//      logging each deletion (address, size, age) and counting it;
//   4. records what it deleted in the log (commands/compliance/blob_gc.h: compliance.blobs_collected,
//      at most 1,000 addresses an event, appended after the deletions it names); a run whose
//      record cannot be appended fails (the deletions are in the process log).
// A dry run reports what it would delete and deletes nothing.

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "commands/compliance/blob_gc.h"
#include "core/json.h"
#include "core/metrics.h"
#include "eventstore/blob_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/periodic.h"

namespace svc::pipeline::retention {

struct CollectRun {
  bool dry_run = false;
  int64_t objects = 0;     // listed
  int64_t referenced = 0;  // kept: an event refers to them
  int64_t young = 0;       // kept: not referred to, but younger than the grace period
  int64_t deleted = 0;     // deleted (or, in a dry run, would be)
  int64_t failed = 0;      // could not be deleted (the next run tries again)
  int64_t bytes = 0;       // of the deleted
  std::vector<std::string> addresses;  // the deleted, the first 1,000
  core::Json ToJson() const;
};

class BlobCollector final : public PeriodicManager {
 public:
  struct Options : ManagerRuntime {  // writer: where the record goes; store: the read models
    eventstore::BlobStore* blobs = nullptr;
    std::function<core::Status()> caught_up;  // the read models applied the whole log
    std::chrono::seconds grace{86400};
    std::chrono::seconds interval{6 * 3600};
  };
  explicit BlobCollector(Options options);
  ~BlobCollector();

  // One run. `grace`: this run's grace period, when it is not the configured one (an operator's
  // `svc blobs gc --grace-seconds`).
  core::Result<CollectRun> RunOnce(bool dry_run, std::optional<std::chrono::seconds> grace = std::nullopt);

 private:
  core::Status References(std::vector<std::string>& out) const;
  Options options_;
  std::mutex run_mu_;  // one run at a time
  core::Counter* deleted_ = nullptr;
};

}  // namespace svc::pipeline::retention
