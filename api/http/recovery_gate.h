#pragma once
// The start-up recovery gate. After a crash the write model is recovered before anything is
// served (Runtime::Open), but the read models catch up in the background: their rows are written
// without RocksDB's write-ahead log, so a kill -9 loses their newest batches and they re-apply
// them from the log. Until they have applied every event the log held when the server started,
// no request is answered from them (an API key would be unknown, a person missing, an upsert
// would not find its externalRef): requests wait, at most `max_wait`, and are then answered
// 503 SERVICE_UNAVAILABLE with Retry-After. /healthz, /readyz, /metrics and /node never wait, and
// /readyz answers 503 until the gate opens (docs/operations.md#start-up).

#include <atomic>
#include <chrono>
#include <vector>

#include "api/http/http.h"
#include "api/http/runtime.h"
#include "core/executor.h"
#include "core/metrics.h"

namespace svc::api {

class RecoveryGate {
 public:
  // Reads the log's end as it stands now: call once the runtime is open, before anything appends
  // on behalf of a request. `pool` runs the requests it releases.
  RecoveryGate(Runtime& rt, core::ThreadPool& pool, std::chrono::milliseconds max_wait);

  // True once every read model applied the log as it stood at start-up.
  bool IsOpen();
  // The gate of a router (Router::SetGate) with the paths that never wait.
  void Guard(Router& router);

 private:
  Runtime& rt_;
  core::ThreadPool& pool_;
  std::chrono::milliseconds max_wait_;
  std::vector<eventstore::LogPosition> target_;
  bool end_known_ = false;
  std::atomic<bool> open_{false};
  core::Counter* held_ = nullptr;
  core::Counter* refused_ = nullptr;
};

}  // namespace svc::api
