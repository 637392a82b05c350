#pragma once
// Retention (docs/compliance.md#retention): the policies in force and the process manager that
// enforces them. One Policies value is configured at start (flags); the sweeper enforces it and
// GET /v1/compliance/reports and /limits report it from the same object, with what the last run
// did, so the report describes what is done, not what was meant.
//
// Every interval the sweeper:
//   - deletes the writer's idempotency records older than their 24 h window (past it a key is
//     new again, so the record only takes space);
//   - purges the captures of sessions completed more than `media_days` ago: the session records
//     verification.media_purged (the decider refuses sessions not completed or not due), then the
//     sealed blobs are deleted; hashes and metadata stay on record. A session whose person, or
//     one of whose captures, is under a legal hold in force is skipped until the hold ends;
//   - records compliance.rows_swept for each tenant and environment with finished webhook
//     deliveries older than `webhook_delivery_days`, which the webhooks projector applies by
//     removing them (so a rebuild from the log removes the same rows).
// The audit log and the event log are kept: the chain must stay whole, and the log is the
// source of truth (a person's data in it is crypto-shredded by forget, not by age).

#include <chrono>
#include <memory>
#include <mutex>

#include "core/clock.h"
#include "core/json.h"
#include "core/metrics.h"
#include "eventstore/blob_store.h"
#include "eventstore/envelope.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/periodic.h"
#include "projections/view_key.h"

namespace svc::pipeline::retention {

struct Policies {
  int64_t media_days = 1825;            // captures, after the session completed; 0 = kept
  int64_t webhook_delivery_days = 30;   // finished webhook deliveries, after creation; 0 = kept
  int64_t idempotency_hours = 24;       // the writer's window (reported; the writer enforces it)
  std::chrono::seconds interval{3600};  // how often the sweeper runs
};

// What one run did.
struct SweepRun {
  int64_t at_micros = 0;  // 0: no run yet
  int64_t idempotency_records = 0;
  int64_t sessions_purged = 0;
  int64_t sessions_held = 0;  // due, but kept by a legal hold
  int64_t media_files = 0;
  int64_t webhook_sweeps = 0;  // tenant-environments whose old deliveries were swept
  core::Json ToJson() const;
};

class Sweeper final : public PeriodicManager {
 public:
  struct Options : ManagerRuntime {
    eventstore::BlobStore* blobs = nullptr;
    Policies policies;
  };
  explicit Sweeper(Options options);
  ~Sweeper();

  // (Start: RunOnce at start, then every interval.)
  // One sweep as of the clock's now; waits until the read models show what it recorded.
  core::Result<SweepRun> RunOnce();
  SweepRun last() const;
  const Policies& policies() const { return options_.policies; }

 private:
  // A legal hold in force on the session's person or on one of its captures.
  core::Result<bool> Held(const projections::ScopedId& session, core::Timestamp now) const;
  core::Result<int64_t> PurgeMedia(core::Timestamp now, SweepRun& run, std::vector<eventstore::LogPosition>& positions);
  core::Result<int64_t> SweepDeliveries(core::Timestamp now, std::vector<eventstore::LogPosition>& positions);
  Options options_;
  std::mutex run_mu_;  // one RunOnce at a time
  mutable std::mutex last_mu_;
  SweepRun last_;
  core::Counter* removed_idempotency_ = nullptr;
  core::Counter* removed_media_ = nullptr;
  core::Counter* swept_deliveries_ = nullptr;
};

// The RetentionPolicyItem list of the compliance report: every kind of data kept, how long, from
// when, who enforces it, and what the last run removed.
core::Json PolicyItems(const Policies& policies, const SweepRun& last);

}  // namespace svc::pipeline::retention
