#include "pipeline/expiry_timer.h"
#include "core/executor.h"

#include "commands/verification/session_decider.h"
#include "core/log.h"
#include "projections/projector.h"
#include "projections/sessions_projector.h"

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
  std::string prefix = std::string(projections::SessionsProjector::kName) + "/exp/";
  auto it = options_.store->NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  struct Due {
    std::string tenant, env, id;
  };
  std::vector<Due> due;
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    std::string_view rest = it->key().substr(prefix.size());
    if (rest.size() < 9) continue;
    int64_t at = static_cast<int64_t>(eventstore::GetFixed64BE(rest));
    if (at > now.micros) break;  // the index is ordered by time
    std::string_view tail = rest.substr(9);  // after "<8 bytes>/"
    size_t a = tail.find('/'), b = tail.find('/', a + 1);
    if (a == std::string_view::npos || b == std::string_view::npos) continue;
    due.push_back({std::string(tail.substr(0, a)), std::string(tail.substr(a + 1, b - a - 1)),
                   std::string(tail.substr(b + 1))});
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
