#pragma once
// The session expiry timer: a process manager that reads the sessions read model's expiry index
// and issues ExpireSession commands for sessions whose expiresAt has passed. The command is
// idempotent (an expired, completed or not-yet-due session is a no-op), so a timer that fires
// late, twice, or on two nodes is harmless.

#include <chrono>
#include <memory>
#include <mutex>

#include "core/metrics.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/periodic.h"

namespace svc::pipeline {

class SessionExpiryTimer final : public PeriodicManager {
 public:
  struct Options : ManagerRuntime {
    std::chrono::milliseconds interval{1000};
  };
  explicit SessionExpiryTimer(const Options& options);
  ~SessionExpiryTimer();

  // Expires every session due at the clock's now and waits until the read models show it.
  // Returns how many sessions expired.
  core::Result<int> RunOnce();

 private:
  Options options_;
  std::mutex mu_;  // one RunOnce at a time
  core::Counter* expired_ = nullptr;
};

}  // namespace svc::pipeline
