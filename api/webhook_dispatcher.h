#pragma once
// The webhook delivery worker: a process manager over the webhooks read model's `due/` rows
// (written when a delivery is created or a retry is scheduled, removed when an attempt is
// recorded). For each due delivery it signs the stored body with the endpoint's secret(s), sends
// it with the delivery client, and records the attempt as an event of the delivery aggregate:
//
//   2xx -> delivered; 4xx -> failed, not retried (410 also deactivates the endpoint);
//   5xx, timeouts, connection errors -> retried after backoff_base x 2^(attempt-1), at most
//   max_backoff, +-20 % jitter, or Retry-After when the receiver asks for longer; after
//   retry_budget_hours since the delivery was created -> failed.
//
// At least once: a crash between the send and the recorded attempt leaves the due row, and the
// delivery is sent again after the restart (receivers de-duplicate on webhook-id).
// A per-endpoint limit keeps one slow receiver from taking every worker.

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "api/public_api.h"
#include "api/webhook_sender.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/executor.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "projections/runner.h"
#include "projections/webhooks_projector.h"

namespace svc::api {

// The secrets an endpoint signs with at `now_micros`: the current one, and the previous one
// during the overlap after a rotation (newest first). Plaintext: the caller wipes them.
core::Result<std::vector<std::string>> OpenWebhookSecrets(const eventstore::KvStore& store,
                                                          eventstore::KeyStore& keys,
                                                          const std::string& tenant,
                                                          const std::string& env,
                                                          const std::string& endpoint_id,
                                                          int64_t now_micros);

class WebhookDispatcher {
 public:
  struct Options {
    commands::Writer* writer = nullptr;
    const eventstore::KvStore* store = nullptr;
    projections::ProjectionSet* projections = nullptr;
    projections::WebhooksProjector* projector = nullptr;
    eventstore::KeyStore* keys = nullptr;
    const core::Clock* clock = nullptr;
    core::IdSource* ids = nullptr;
    PublicApiOptions::WebhookPolicy policy;
    SendOptions send;
    size_t workers = 8;           // sending blocks on the network: more workers than cores
    size_t per_endpoint_limit = 4;
  };
  explicit WebhookDispatcher(const Options& options);
  ~WebhookDispatcher();
  void Start();  // registers with the projector (before projections start)
  void Stop();
  // Blocks until no delivery is due (at the clock's now) or being sent. False on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout);

 private:
  struct Job {
    int64_t due_micros = 0;
    std::string tenant, env, delivery;
  };
  core::Result<std::vector<Job>> Due() const;
  void Dispatch();
  core::Status Send(const Job& job);
  commands::CommandContext SystemContext(const std::string& env, const std::string& correlation) const;

  Options options_;
  std::unique_ptr<core::ThreadPool> pool_;
  std::thread dispatcher_;
  std::mutex mu_;
  std::condition_variable wake_, idle_;
  bool stop_ = false, dirty_ = true;
  std::set<std::string> active_;               // deliveries being sent
  std::map<std::string, size_t> per_endpoint_;  // sends in flight per endpoint
};

}  // namespace svc::api
