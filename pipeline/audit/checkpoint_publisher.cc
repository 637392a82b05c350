#include "pipeline/audit/checkpoint_publisher.h"

#include "commands/audit/checkpoint.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "core/log.h"
#include "eventstore/kv_store.h"
#include "pipeline/audit/checkpoints.h"
#include "projections/audit/audit_reads.h"
#include "projections/runner.h"
#include "projections/view_key.h"

namespace svc::pipeline::audit {

namespace au = commands::audit;

// A run at start too: a server restarted more often than the interval would otherwise never
// publish, and the entries written since the last checkpoint would stay unsigned.
CheckpointPublisher::CheckpointPublisher(Options options)
    : PeriodicManager("svc-checkpoints", options.interval, "checkpoint publisher run failed",
                      [this] { return RunOnce().status(); }, /*run_first=*/true),
      options_(std::move(options)) {
  if (options_.metrics != nullptr) {
    published_ = &options_.metrics->GetCounter("svc_audit_checkpoints_published_total",
                                               "Signed checkpoints of the access log recorded in the log");
  }
}

CheckpointPublisher::~CheckpointPublisher() {
  Stop();
  core::SecureZero(options_.root_key);
}

core::Result<int> CheckpointPublisher::RunOnce() {
  std::lock_guard run_lock(run_mu_);
  if (options_.log != nullptr) {
    SVC_ASSIGN_OR_RETURN(auto ends, options_.log->EndOffsets());
    std::vector<eventstore::LogPosition> last;
    for (uint32_t p = 0; p < ends.size(); ++p) {
      if (ends[p] > 0) last.push_back({p, ends[p] - 1});
    }
    options_.projections->WaitApplied(last, std::chrono::seconds(10));
  }
  SVC_ASSIGN_OR_RETURN(auto heads, projections::ReadChainHeads(*options_.store));
  std::vector<eventstore::LogPosition> positions;
  int published = 0;
  for (const auto& head : heads) {
    if (!options_.Owns(head.tenant)) continue;  // another node's partition
    const std::string te = projections::TenantEnv(head.tenant, head.environment);
    SVC_ASSIGN_OR_RETURN(int64_t last, projections::LastPublishedSize(*options_.store, te));
    if (head.size <= last) continue;
    SVC_ASSIGN_OR_RETURN(auto tree, projections::ReadStoredTree(*options_.store, te));
    // The tree as read now (it may have grown since the head row was read: publish what was read).
    const int64_t size = std::min(tree.size, head.size);
    SVC_ASSIGN_OR_RETURN(std::string root, core::merkle::Root(static_cast<uint64_t>(size), tree.nodes));
    au::PublishCheckpoint c;
    c.checkpoint.origin = Origin(head.tenant, head.environment);
    c.checkpoint.tree_size = size;
    c.checkpoint.root_hash = core::HexEncode(root);
    SVC_ASSIGN_OR_RETURN(c.checkpoint.checkpoint, SignedCheckpoint(options_.root_key, head.tenant, head.environment,
                                                                   static_cast<uint64_t>(size), root));
    auto ctx = commands::SystemContext(options_.clock->Now(), options_.ids, "audit-checkpoints", head.environment);
    auto r = options_.writer->ExecuteAndWait(
        commands::MakeCommand<au::AuditLogDecider>(head.tenant, head.environment, c, ctx));
    if (!r.ok()) {
      core::LogWarn("checkpoint not published", {{"tenantId", head.tenant}, {"error", r.status().ToString()}});
      continue;
    }
    if (!r->positions.empty()) {
      ++published;
      positions.insert(positions.end(), r->positions.begin(), r->positions.end());
    }
  }
  if (!positions.empty()) options_.projections->WaitApplied(positions, std::chrono::seconds(10));
  if (published_ != nullptr) published_->Add(static_cast<uint64_t>(published));
  return published;
}

}  // namespace svc::pipeline::audit
