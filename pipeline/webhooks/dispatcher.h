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
//
// Throughput: due deliveries are queued in a lane per endpoint (at most lane_queue_limit each, so
// one endpoint's backlog does not hide another's); at most per_endpoint_limit runners work a lane,
// so one slow receiver cannot take every worker; and an endpoint gets at most its delivery rate
// (a token bucket on the service clock). A runner sends, hands the attempt to the writer
// and goes on to the next delivery: the attempt events of many deliveries share group commits,
// and a delivery leaves the active set only when its attempt is projected (its due row gone).

#include "pipeline/manager_runtime.h"
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_set>

#include "pipeline/webhooks/catalogue.h"
#include "pipeline/net/outbound_client.h"
#include "commands/webhooks/delivery_decider.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/executor.h"
#include "core/metrics.h"
#include "core/token_bucket.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "projections/runner.h"
#include "projections/webhooks_projector.h"

namespace svc::pipeline::webhooks {

using net::OutboundClient;
using net::SendOptions;
using net::SendResult;

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
  struct Options : ManagerRuntime {
    projections::WebhooksProjector* projector = nullptr;
    eventstore::KeyStore* keys = nullptr;
    DeliveryPolicy policy;
    SendOptions send;
    size_t workers = 8;           // sending blocks on the network: more workers than cores
    size_t per_endpoint_limit = 4;
    size_t lane_queue_limit = 512;
    // Scans of the due/ index are at least this far apart while deliveries are in flight
    // (every projected attempt wakes the dispatcher).
    std::chrono::milliseconds min_scan_interval{50};
    // Rows of the due/ index a scan visits at most; the next scan goes on after the last one, and
    // starts over once it reached the clock's now. A backlog (deliveries due faster than their
    // endpoints' rate) then costs each scan this much rather than the whole backlog: unbounded, the
    // soak's backlog of a rate-limited endpoint took a scan longer each minute (BENCHMARKS.md).
    size_t scan_rows = 2048;
    // Per-endpoint delivery rate (0 = none): sustained per second, and bursts of this many.
    double rate_per_second = 0;
    double rate_burst = 1;
    // The runtime's seal key, which sessions' callback secrets are sealed under (endpoint_secrets.h).
    std::string callback_seal_key;
  };
  explicit WebhookDispatcher(const Options& options);
  ~WebhookDispatcher();
  void Start();  // registers with the projector (before projections start)
  void Stop();
  // Blocks until no delivery can go on at the clock's now: none due (but those of endpoints
  // waiting for their delivery rate), none being sent or recorded. False on timeout.
  // While paused: until nothing is being sent; true only if nothing is due either.
  bool WaitIdle(std::chrono::milliseconds timeout);

  // Operations: a paused dispatcher starts no new attempt (those in flight finish and are
  // recorded); deliveries keep being queued and wait. In memory only: a restart resumes.
  void Pause();
  void Resume();
  struct QueueStats {
    bool paused = false;
    size_t due_now = 0;     // due at the clock's now (including those being sent)
    size_t scheduled = 0;   // every pending delivery, retries in the future included
    size_t in_flight = 0;   // queued in a lane, being sent or recorded
    size_t rate_limited = 0;  // endpoints waiting for their delivery rate
  };
  core::Result<QueueStats> Stats() const;

 private:
  struct Job {
    int64_t due_micros = 0;
    std::string tenant, env, delivery, endpoint;
  };
  // One lane per endpoint: its queued jobs and the runners working them (at most
  // per_endpoint_limit), so that one slow receiver holds at most that many workers.
  struct Lane {
    std::deque<Job> queue;
    size_t runners = 0;
    bool more = false;  // the last scan left due jobs out (the queue was full)
    int64_t not_before_micros = 0;  // its rate allows the next send then (clock micros)
  };
  core::Result<std::vector<Job>> Due(int64_t until_micros) const;
  core::Result<std::vector<Job>> Due() const;
  // The due rows up to `until_micros` from `from` (empty: the first), at most `limit`; `*resume`
  // (if given) is set to the first row left out, or cleared when none was.
  core::Result<std::vector<Job>> ScanDue(int64_t until_micros, const std::string& from, size_t limit,
                                         std::string* resume) const;
  // At most scan_rows due rows, from where the last call stopped (`scan_from_`); `*partial` is set
  // when rows were left for the next call. Dispatcher thread only.
  core::Result<std::vector<Job>> NextDue(bool* partial);
  void Dispatch();
  void Fill(std::vector<Job>& jobs);  // queues due jobs in their lanes (mu_ held)
  void StartRunners();                // up to per_endpoint_limit per lane its rate allows (mu_ held)
  std::chrono::milliseconds NextCheck() const;  // mu_ held
  void DropIdleLanes();
  size_t RateLimitedJobs() const;  // queued in lanes waiting for their rate; mu_ held  // lanes no runner works (waiting for their rate); mu_ held
  void RunLane(const std::string& lane_key);
  // Sends one job and hands its attempt to `Record`. `done` is called exactly once, when the
  // attempt is recorded and projected (or with the error that stopped it).
  void Attempt(const Job& job, OutboundClient& client, std::function<void(core::Status)> done);
  void Record(const Job& job, const std::string& event_id, commands::webhooks::RecordAttempt rec,
              std::function<void(core::Status)> done);
  void Settle(const Job& job, const core::Status& st);
  commands::CommandContext SystemContext(const std::string& env, const std::string& correlation) const;

  Options options_;
  std::unique_ptr<core::ThreadPool> pool_;
  std::thread dispatcher_;
  projections::Listeners::Subscription listener_;  // the projector's wake-up call, reset on Stop
  mutable std::mutex mu_;
  std::condition_variable wake_, idle_;
  bool stop_ = false, dirty_ = true, paused_ = false;
  std::unordered_set<std::string> active_;  // deliveries queued, being sent or being recorded
  std::map<std::string, Lane> lanes_;       // by tenant/env/endpoint
  std::map<std::string, core::TokenBucket> buckets_;  // delivery rate, by tenant/env/endpoint
  std::chrono::steady_clock::time_point last_fill_{};
  std::string scan_from_;  // where the next NextDue starts (empty: the start of due/)
  // Metrics (null without a registry): attempts by outcome, and the receivers' answer times.
  core::Counter* delivered_ = nullptr;
  core::Counter* retrying_ = nullptr;
  core::Counter* failed_ = nullptr;
  core::Histogram* latency_ = nullptr;
};

}  // namespace svc::pipeline::webhooks
