#include "pipeline/expiry_timer.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/executor.h"
#include "eventstore/kv_store.h"
#include "projections/runner.h"

#include "commands/verification/session_decider.h"
#include "core/log.h"
#include "projections/projector.h"
#include "projections/sessions_view.h"

namespace svc::pipeline {

namespace vs = commands::verification;

SessionExpiryTimer::SessionExpiryTimer(const Options& options)
    : PeriodicManager("svc-expiry", options.interval, "expiry timer run failed", [this] { return RunOnce().status(); }),
      options_(options) {
  if (options_.metrics != nullptr) {
    expired_ = &options_.metrics->GetCounter("svc_sessions_expired_total",
                                             "Verification sessions expired by the timer");
  }
}

SessionExpiryTimer::~SessionExpiryTimer() { Stop(); }

core::Result<int> SessionExpiryTimer::RunOnce() {
  std::lock_guard run_lock(mu_);
  core::Timestamp now = options_.clock->Now();
  int cf = options_.store->Cf(projections::kViewsCf);
  using SV = projections::SessionsView;
  std::string prefix = SV::Abs(SV::ExpiryPrefix());
  auto it = options_.store->NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  struct Due {
    std::string tenant, env, id;
  };
  std::vector<Due> due;
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    auto e = SV::ParseExpiry(it->key().substr(prefix.size()));
    if (!e) continue;
    if (e->micros > now.micros) break;  // the index is ordered by time
    if (!options_.Owns(e->id.tenant)) continue;  // another node's partition
    due.push_back({e->id.tenant, e->id.environment, e->id.id});
  }
  SVC_RETURN_IF_ERROR(it->status());
  std::vector<eventstore::LogPosition> positions;
  int expired = 0;
  for (const auto& d : due) {
    commands::CommandContext ctx = commands::SystemContext(now, options_.ids, "session-expiry", d.env);
    auto r = options_.writer->ExecuteAndWait(commands::MakeCommand<vs::SessionDecider>(
        d.tenant, d.id, vs::SessionCommand(vs::ExpireSession{}), ctx));
    if (!r.ok()) {
      core::LogWarn("session expiry failed", {{"sessionId", d.id}, {"error", r.status().ToString()}});
      continue;
    }
    if (!r->positions.empty()) {
      ++expired;
      positions.insert(positions.end(), r->positions.begin(), r->positions.end());
    }
  }
  if (!positions.empty()) {
    options_.projections->WaitApplied(positions, std::chrono::seconds(10));
  }
  if (expired_ != nullptr) expired_->Add(static_cast<uint64_t>(expired));
  return expired;
}

}  // namespace svc::pipeline
