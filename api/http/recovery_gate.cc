#include "api/http/recovery_gate.h"

#include <string>

#include "core/log.h"

namespace svc::api {

RecoveryGate::RecoveryGate(Runtime& rt, core::ThreadPool& pool, std::chrono::milliseconds max_wait)
    : rt_(rt), pool_(pool), max_wait_(max_wait) {
  auto ends = rt.log().EndOffsets();
  if (ends.ok()) {
    end_known_ = true;
    for (uint32_t p = 0; p < ends->size(); ++p) {
      if ((*ends)[p] > 0) target_.push_back({p, (*ends)[p] - 1});
    }
  } else {
    // Without the log's end, the runners' own signal (each read to the end once) opens the gate;
    // until then requests are refused at once.
    core::LogWarn("recovery gate: the log's end is unknown; serving once the read models reached it",
                  {{"error", ends.status().ToString()}});
  }
  held_ = &rt.metrics().GetCounter("svc_recovery_held_requests_total",
                                   "Requests that waited at start-up for the read models to catch up");
  refused_ = &rt.metrics().GetCounter("svc_recovery_refused_requests_total",
                                      "Requests answered 503 because the read models had not caught up in time");
}

bool RecoveryGate::IsOpen() {
  if (open_.load(std::memory_order_acquire)) return true;
  const bool caught_up = end_known_ ? rt_.projections().AllApplied(target_) : rt_.projections().AllCaughtUpOnce();
  if (caught_up && !rt_.projections().AnyFailed() && !open_.exchange(true)) {
    core::LogInfo("read models caught up: serving");
  }
  return open_.load(std::memory_order_acquire);
}

void RecoveryGate::Guard(Router& router) {
  router.SetGate(
      [this](HttpRequest& req, std::function<void()> proceed, const Respond& respond) {
        if (IsOpen()) return proceed();
        held_->Add();
        auto release = [this, &req, proceed = std::move(proceed), respond](bool applied) {
          if (applied && IsOpen()) return pool_.Post(proceed);
          refused_->Add();
          HttpResponse r = Problem(req, "SERVICE_UNAVAILABLE",
                                   "the service is starting: its read models are catching up with the log; retry");
          r.headers.emplace_back("Retry-After", "1");
          respond(std::move(r));
        };
        if (!end_known_) return release(false);
        rt_.projections().WhenApplied(target_, max_wait_, std::move(release));
      },
      {"/healthz", "/readyz", "/metrics", "/node"});
}

}  // namespace svc::api
