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
// At most one post per attempt, and at least once overall: before it posts, the dispatcher appends
// the attempt's start (StartAttempt, accepted once per attempt number by the delivery's writer)
// and posts only if its start was appended. The start moves the due row to the attempt's lease
// (the send timeout + 5 s). A node that stops or dies between the start and the record leaves
// that row; once the lease has passed, whichever node owns the tenant then records the attempt as
// `retrying` with error `interrupted` (not posted again as the same attempt) and the next attempt
// is scheduled with the usual backoff (receivers de-duplicate on webhook-id). The lease is read on
// another node's clock: a clock ahead only records an attempt as interrupted early, it never
// makes two posts of one attempt.
//
// Throughput: due deliveries are queued in a lane per endpoint (at most lane_queue_limit each, so
// one endpoint's backlog does not hide another's); at most per_endpoint_limit runners work a lane,
// so one slow receiver cannot take every worker; and an endpoint gets at most its delivery rate
// (a token bucket on the service clock). A runner takes its share of its lane's queue (at most 16), starts
// their attempts (one group commit), sends them, hands each attempt to the writer and goes on
// without waiting: the attempt events of many deliveries share group commits,
// and a delivery leaves the active set only when its attempt is projected (its due row gone).

#include "pipeline/manager_runtime.h"
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
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
  // What a due job needs, read from the read model: skip it (attempted or started since the scan),
  // record it without a post (endpoint inactive; started and interrupted), or start and send it.
  struct Prepared {
    enum Kind { kSkip, kInactive, kInterrupted, kSend } kind = kSkip;
    core::Json delivery;  // the delivery's row
    core::Json callback;  // a session callback's row (kSend of a callback)
    std::string endpoint, session, event_id, body;
    int attempt = 0;  // the attempt this job is
  };
  core::Result<Prepared> Prepare(const Job& job) const;
  // Prepares a runner's batch, starts the attempts that need a post (one group commit) and sends
  // those whose start was appended, one after the other. Every job is settled exactly once
  // (Settle), when its attempt is recorded and projected or with the error that stopped it.
  void AttemptBatch(const std::vector<Job>& batch, OutboundClient& client);
  // Signs and posts one started attempt and hands its outcome to `Record`; settles the job.
  void Send(const Job& job, const Prepared& p, OutboundClient& client);
  // Sets a failed attempt's outcome: retrying with its next time (backoff, jitter, Retry-After),
  // or failed past the retry budget.
  void Schedule(commands::webhooks::RecordAttempt& rec, const core::Json& delivery, int64_t now_micros,
                std::optional<int64_t> retry_after_seconds) const;
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
  core::Counter* interrupted_ = nullptr;
  core::Histogram* latency_ = nullptr;
};

}  // namespace svc::pipeline::webhooks
