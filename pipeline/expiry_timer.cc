#include "pipeline/expiry_timer.h"
#include "core/executor.h"

#include "commands/verification/session_decider.h"
#include "core/log.h"
#include "projections/projector.h"
#include "projections/sessions_view.h"

namespace svc::pipeline {

namespace vs = commands::verification;

SessionExpiryTimer::SessionExpiryTimer(const Options& options) : options_(options) {
  if (options_.metrics != nullptr) {
    expired_ = &options_.metrics->GetCounter("svc_sessions_expired_total",
                                             "Verification sessions expired by the timer");
  }
}

SessionExpiryTimer::~SessionExpiryTimer() { Stop(); }

void SessionExpiryTimer::Start() {
  thread_ = std::thread([this] {
    core::SetThreadName("svc-expiry");
    Loop();
  });
}

void SessionExpiryTimer::Stop() {
  {
    std::lock_guard lock(wake_mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SessionExpiryTimer::Loop() {
  std::unique_lock lock(wake_mu_);
  while (!stop_) {
    // A periodic timer, not synchronisation: tests drive RunOnce through the admin socket.
    wake_.wait_for(lock, options_.interval, [&] { return stop_; });
    if (stop_) break;
    lock.unlock();
    auto r = RunOnce();
    if (!r.ok()) core::LogWarn("expiry timer run failed", {{"error", r.status().ToString()}});
    lock.lock();
  }
}

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
    due.push_back({e->id.tenant, e->id.environment, e->id.id});
  }
  SVC_RETURN_IF_ERROR(it->status());
  std::vector<eventstore::LogPosition> positions;
  int expired = 0;
  for (const auto& d : due) {
    commands::CommandContext ctx;
    ctx.now = now;
    ctx.ids = options_.ids;
    ctx.actor = {"system", "session-expiry"};
    ctx.environment = d.env;
    ctx.request_id = options_.ids->NewIdString(core::IdKind::kRequest);
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
