#include "pipeline/webhooks/dispatcher.h"
#include "core/executor.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "commands/webhooks/delivery_decider.h"
#include "commands/webhooks/endpoint_decider.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/verification/requested_input.h"
#include "pipeline/webhooks/endpoint_secrets.h"
#include "pipeline/webhooks/signing.h"
#include "projections/projector.h"
#include "projections/webhooks_view.h"

namespace svc::pipeline::webhooks {

namespace wh = commands::webhooks;

namespace {
constexpr auto kApplyTimeout = std::chrono::seconds(30);
// A started attempt's lease: the send timeout and this much more.
constexpr int64_t kLeaseMarginMicros = 5'000'000;
using WV = projections::WebhooksView;
}  // namespace

commands::CommandContext WebhookDispatcher::SystemContext(const std::string& env,
                                                          const std::string& correlation) const {
  return commands::SystemContext(options_.clock->Now(), options_.ids, "webhook-dispatcher", env, correlation);
}

core::Result<std::vector<std::string>> OpenWebhookSecrets(const eventstore::KvStore& store,
                                                          eventstore::KeyStore& keys,
                                                          const std::string& tenant,
                                                          const std::string& env,
                                                          const std::string& endpoint_id,
                                                          int64_t now_micros) {
  const std::string te = projections::TenantEnv(tenant, env);
  SVC_ASSIGN_OR_RETURN(auto row, store.Get(store.Cf(projections::kViewsCf), WV::Abs(WV::Secret(te, endpoint_id))));
  if (!row.has_value()) return core::Unavailable("the endpoint's secret is not projected yet");
  core::Json sec = core::ParseJsonOrDiscarded(*row);
  std::vector<std::string> secrets;
  for (const char* field : {"secretSealed", "previousSecretSealed"}) {
    std::string sealed = sec.value(field, "");
    if (sealed.empty()) continue;
    if (std::string(field) == "previousSecretSealed" && now_micros >= sec.value("previousValidUntilMicros", int64_t{0})) {
      continue;
    }
    SVC_ASSIGN_OR_RETURN(std::string secret, OpenEndpointSecret(keys, tenant, env, endpoint_id, sealed));
    secrets.push_back(std::move(secret));
  }
  return secrets;
}

WebhookDispatcher::WebhookDispatcher(const Options& options) : options_(options) {
  if (auto* m = options_.metrics) {
    const char* help = "Webhook delivery attempts by outcome";
    delivered_ = &m->GetCounter("svc_webhook_attempts_total", help, "outcome=\"delivered\"");
    retrying_ = &m->GetCounter("svc_webhook_attempts_total", help, "outcome=\"retrying\"");
    failed_ = &m->GetCounter("svc_webhook_attempts_total", help, "outcome=\"failed\"");
    interrupted_ = &m->GetCounter("svc_webhook_attempts_interrupted_total",
                                  "Attempts started and never recorded (the node stopped or died mid-send), "
                                  "recorded as interrupted after their lease; not posted again as the same attempt");
    latency_ = &m->GetHistogram("svc_webhook_attempt_seconds", "Time from sending a delivery to its answer (or error)",
                                {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30});
  }
}
WebhookDispatcher::~WebhookDispatcher() { Stop(); }

void WebhookDispatcher::Start() {
  pool_ = std::make_unique<core::ThreadPool>(std::max<size_t>(1, options_.workers));
  listener_ = options_.projector->AddListener([this] {
    std::lock_guard lock(mu_);
    dirty_ = true;
    wake_.notify_all();
  });
  dispatcher_ = std::thread([this] {
    core::SetThreadName("svc-webhooks");
    Dispatch();
  });
}

void WebhookDispatcher::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    stop_ = true;
    wake_.notify_all();
  }
  listener_.Reset();
  if (dispatcher_.joinable()) dispatcher_.join();
  pool_.reset();  // runners see stop_ and return; queued jobs stay due for the next start
  // Attempts handed to the writer settle (recorded, or failed when the log stops).
  std::unique_lock lock(mu_);
  DropIdleLanes();
  idle_.wait(lock, [&] { return active_.empty(); });
}

core::Result<std::vector<WebhookDispatcher::Job>> WebhookDispatcher::Due() const {
  return Due(options_.clock->Now().micros);
}

core::Result<std::vector<WebhookDispatcher::Job>> WebhookDispatcher::Due(int64_t until_micros) const {
  return ScanDue(until_micros, "", std::numeric_limits<size_t>::max(), nullptr);
}

core::Result<std::vector<WebhookDispatcher::Job>> WebhookDispatcher::ScanDue(int64_t until_micros,
                                                                             const std::string& from,
                                                                             size_t limit,
                                                                             std::string* resume) const {
  if (resume != nullptr) resume->clear();
  std::vector<Job> jobs;
  int cf = options_.store->Cf(projections::kViewsCf);
  const std::string prefix = WV::Abs(WV::DuePrefix());
  std::string end = prefix;
  eventstore::PutFixed64BE(end, static_cast<uint64_t>(until_micros) + 1);
  auto it = options_.store->NewIterator(cf, prefix, end);
  size_t visited = 0;
  for (it->Seek(from.empty() || from >= end ? prefix : from); it->Valid(); it->Next()) {
    if (visited == limit) {
      if (resume != nullptr) resume->assign(it->key());  // this row is the next scan's first
      return jobs;
    }
    ++visited;
    auto e = WV::ParseDue(it->key().substr(prefix.size()));
    if (!e || !options_.Owns(e->id.tenant)) continue;  // another node's partition sends it
    jobs.push_back({e->micros, e->id.tenant, e->id.environment, e->id.id, std::string(it->value())});
  }
  SVC_RETURN_IF_ERROR(it->status());
  return jobs;
}

core::Result<std::vector<WebhookDispatcher::Job>> WebhookDispatcher::NextDue(bool* partial) {
  std::string next;
  auto jobs = ScanDue(options_.clock->Now().micros, scan_from_, std::max<size_t>(1, options_.scan_rows), &next);
  if (!jobs.ok()) return jobs;
  *partial = !next.empty();
  scan_from_ = std::move(next);  // empty: it reached the clock's now, and the next scan starts over
  return jobs;
}

void WebhookDispatcher::Dispatch() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    // Woken by committed batches; the timeout finds retries whose time has come and lanes whose
    // rate allows the next send (periodic checks, not synchronisation).
    wake_.wait_for(lock, NextCheck(), [&] { return stop_ || (dirty_ && !paused_); });
    if (stop_) break;
    if (paused_) continue;
    if (dirty_ || std::chrono::steady_clock::now() - last_fill_ >= std::chrono::seconds(1)) {
      // While deliveries are in flight every projected attempt wakes us: scan at most every
      // min_scan_interval then (a queued lane holds work for longer than that).
      auto since = std::chrono::steady_clock::now() - last_fill_;
      if (!active_.empty() && since < options_.min_scan_interval) {
        wake_.wait_for(lock, options_.min_scan_interval - since, [&] { return stop_; });
        if (stop_ || paused_) continue;
      }
      dirty_ = false;
      last_fill_ = std::chrono::steady_clock::now();
      lock.unlock();
      bool partial = false;
      auto jobs = NextDue(&partial);
      lock.lock();
      if (!jobs.ok()) {
        core::LogWarn("webhooks: cannot read due deliveries", {{"error", jobs.status().ToString()}});
        continue;
      }
      if (partial) dirty_ = true;  // the rest of the due rows: the next scan, min_scan_interval on
      if (stop_ || paused_) continue;
      Fill(*jobs);
    }
    StartRunners();
    idle_.notify_all();
  }
}

std::chrono::milliseconds WebhookDispatcher::NextCheck() const {
  // At most a second; sooner when a rate-limited lane may send again.
  int64_t now = options_.clock->Now().micros;
  int64_t wait = 1'000'000;
  for (const auto& [key, lane] : lanes_) {
    if (lane.runners == 0 && !lane.queue.empty()) wait = std::min(wait, lane.not_before_micros - now);
  }
  return std::chrono::milliseconds(std::clamp<int64_t>(wait / 1000, 1, 1000));
}

void WebhookDispatcher::Fill(std::vector<Job>& jobs) {
  for (auto& job : jobs) {
    if (active_.count(job.delivery) > 0) continue;
    std::string lane_key = job.tenant + "/" + job.env + "/" + job.endpoint;
    Lane& lane = lanes_[lane_key];
    if (lane.queue.size() >= options_.lane_queue_limit) {
      lane.more = true;  // found again by the scan when the queue is half worked
      continue;
    }
    active_.insert(job.delivery);
    lane.queue.push_back(std::move(job));
  }
}

void WebhookDispatcher::StartRunners() {
  int64_t now = options_.clock->Now().micros;
  for (auto& [key, lane] : lanes_) {
    if (lane.not_before_micros > now) continue;  // its rate is used up for now
    while (lane.runners < options_.per_endpoint_limit && lane.runners < lane.queue.size()) {
      ++lane.runners;
      pool_->Post([this, k = key] { RunLane(k); });
    }
  }
}

void WebhookDispatcher::RunLane(const std::string& lane_key) {
  // A runner takes a few jobs at a time (their attempts are started in one group commit): its share
  // of the lane's queue, at most kStartBatch; it yields its worker to other lanes' runners after
  // kJobsPerTurn.
  // One connection per turn, kept open between its deliveries while the receiver allows it.
  constexpr int kJobsPerTurn = 64;
  constexpr size_t kStartBatch = 16;
  OutboundClient client(options_.send);
  for (int taken = 0;;) {
    std::vector<Job> batch;
    {
      std::lock_guard lock(mu_);
      auto it = lanes_.find(lane_key);
      if (it == lanes_.end()) return;
      Lane& lane = it->second;
      if (stop_ || paused_ || lane.queue.empty() || taken >= kJobsPerTurn) {
        if (!stop_ && !paused_ && !lane.queue.empty()) {
          pool_->Post([this, lane_key] { RunLane(lane_key); });  // back of the line
          return;
        }
        if (--lane.runners == 0) {
          // Jobs left by a pause or a stop stay due; they are found again.
          for (auto& j : lane.queue) active_.erase(j.delivery);
          lanes_.erase(it);
          idle_.notify_all();
        }
        return;
      }
      // Its share of the lane's queue, so that the lane's other runners have work too: a slow
      // receiver holds one send per runner, not a batch behind one send (at most kStartBatch).
      const size_t share = std::clamp<size_t>(lane.queue.size() / std::max<size_t>(1, options_.per_endpoint_limit), 1,
                                              kStartBatch);
      while (batch.size() < share && !lane.queue.empty()) {
        if (options_.rate_per_second > 0) {
          // The endpoint's delivery rate: without a token this runner ends (once its batch is
          // sent); the dispatcher starts the lane again when the next token is due.
          int64_t now = options_.clock->Now().micros;
          int64_t wait = buckets_[lane_key].Take(now, options_.rate_per_second,
                                                 std::max(1.0, options_.rate_burst));
          if (wait > 0) {
            if (!batch.empty()) break;
            lane.not_before_micros = now + wait;
            --lane.runners;
            wake_.notify_all();
            return;
          }
        }
        batch.push_back(std::move(lane.queue.front()));
        lane.queue.pop_front();
      }
      if (lane.more && lane.queue.size() * 2 <= options_.lane_queue_limit) {
        lane.more = false;
        dirty_ = true;
        wake_.notify_all();
      }
    }
    taken += static_cast<int>(batch.size());
    AttemptBatch(batch, client);
  }
}

void WebhookDispatcher::Settle(const Job& job, const core::Status& st) {
  if (!st.ok()) {
    core::LogWarn("webhook delivery attempt not recorded; it is tried again",
                  {{"deliveryId", job.delivery}, {"error", st.ToString()}});
  }
  std::lock_guard lock(mu_);
  active_.erase(job.delivery);
  if (!st.ok()) dirty_ = true;
  idle_.notify_all();
  wake_.notify_all();
}

void WebhookDispatcher::Pause() {
  std::lock_guard lock(mu_);
  paused_ = true;
  DropIdleLanes();  // lanes waiting for their rate; the busy ones end after their current send
  idle_.notify_all();
}

void WebhookDispatcher::DropIdleLanes() {
  for (auto it = lanes_.begin(); it != lanes_.end();) {
    if (it->second.runners > 0) {
      ++it;
      continue;
    }
    for (const auto& j : it->second.queue) active_.erase(j.delivery);  // still due: found again
    it = lanes_.erase(it);
  }
}

void WebhookDispatcher::Resume() {
  std::lock_guard lock(mu_);
  paused_ = false;
  dirty_ = true;
  wake_.notify_all();
}

core::Result<WebhookDispatcher::QueueStats> WebhookDispatcher::Stats() const {
  QueueStats s;
  int64_t now = options_.clock->Now().micros;
  SVC_ASSIGN_OR_RETURN(auto all, Due(std::numeric_limits<int64_t>::max() - 1));
  s.scheduled = all.size();
  for (const auto& j : all) s.due_now += j.due_micros <= now ? 1 : 0;
  std::lock_guard lock(mu_);
  s.paused = paused_;
  s.in_flight = active_.size();
  for (const auto& [key, lane] : lanes_) {
    s.rate_limited += lane.runners == 0 && !lane.queue.empty() && lane.not_before_micros > now ? 1 : 0;
  }
  return s;
}

size_t WebhookDispatcher::RateLimitedJobs() const {
  int64_t now = options_.clock->Now().micros;
  size_t n = 0;
  for (const auto& [key, lane] : lanes_) {
    if (lane.runners == 0 && lane.not_before_micros > now) n += lane.queue.size();
  }
  return n;
}

bool WebhookDispatcher::WaitIdle(std::chrono::milliseconds timeout) {
  // Idle: nothing can go on at the clock's now. What is left is due only in lanes waiting for
  // their delivery rate (or, while paused, waiting for resume).
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mu_);
  for (;;) {
    if (paused_ && active_.size() == RateLimitedJobs()) {
      lock.unlock();
      auto due = Due();
      return due.ok() && due->empty();
    }
    size_t waiting = RateLimitedJobs();
    for (const auto& [key, lane] : lanes_) {
      if (lane.runners == 0 && !lane.queue.empty() && lane.not_before_micros <= options_.clock->Now().micros) {
        dirty_ = true;  // its rate allows a send again (the clock moved): start it now
        wake_.notify_all();
        break;
      }
    }
    if (active_.size() == waiting && !dirty_) {
      lock.unlock();
      auto due = Due();
      lock.lock();
      if (due.ok() && due->size() == waiting && active_.size() == waiting && RateLimitedJobs() == waiting) {
        return true;
      }
      dirty_ = true;
      wake_.notify_all();
    }
    if (idle_.wait_until(lock, deadline) == std::cv_status::timeout) return false;
  }
}

void WebhookDispatcher::Record(const Job& job, const std::string& event_id, wh::RecordAttempt rec,
                               std::function<void(core::Status)> done) {
  auto cmd = commands::MakeCommand<wh::DeliveryDecider>(job.tenant, job.delivery, wh::DeliveryCommand(std::move(rec)),
                                                        SystemContext(job.env, event_id));
  // Asynchronous: the runner goes on to its next delivery while the writer appends this attempt
  // (with others, in one group commit) and the read models apply it.
  options_.writer->Execute(std::move(cmd), [this, done = std::move(done)](core::Result<commands::CommandOutcome> out) {
    if (!out.ok()) return done(out.status());
    if (out->positions.empty()) return done(core::Status::Ok());
    options_.projections->WhenApplied(out->positions, kApplyTimeout, [done](bool applied) {
      done(applied ? core::Status::Ok() : core::Unavailable("the read models did not apply the attempt in time"));
    });
  });
}

void WebhookDispatcher::Schedule(wh::RecordAttempt& rec, const core::Json& delivery, int64_t now_micros,
                                 std::optional<int64_t> retry_after_seconds) const {
  const auto& p = options_.policy;
  double wait = std::min<double>(p.max_backoff_seconds, p.backoff_base_seconds * std::pow(2.0, rec.attempt - 1));
  // +-20 % jitter so that receivers coming back are not hit by every retry at once.
  std::string rnd = core::RandomBytes(2);
  double u = ((static_cast<unsigned char>(rnd[0]) << 8) | static_cast<unsigned char>(rnd[1])) / 65535.0;
  wait *= 0.8 + 0.4 * u;
  if (retry_after_seconds) wait = std::max<double>(wait, static_cast<double>(*retry_after_seconds));
  int64_t next = now_micros + static_cast<int64_t>(wait * 1e6);
  auto created = core::ParseRfc3339(delivery.value("createdAt", ""));
  int64_t budget_end = (created.ok() ? created->micros : now_micros) + int64_t{p.retry_budget_hours} * 3600 * 1'000'000;
  if (next > budget_end) {
    rec.outcome = "failed";
  } else {
    rec.outcome = "retrying";
    rec.next_retry_at_micros = next;
  }
}

core::Result<WebhookDispatcher::Prepared> WebhookDispatcher::Prepare(const Job& job) const {
  const auto& st = *options_.store;
  int cf = st.Cf(projections::kViewsCf);
  const std::string te = projections::TenantEnv(job.tenant, job.env);
  auto read = [&](const std::string& key) -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(auto row, st.Get(cf, WV::Abs(key)));
    if (!row.has_value()) return core::Json(nullptr);
    return core::ParseJsonOrDiscarded(*row);
  };
  Prepared p;
  SVC_ASSIGN_OR_RETURN(p.delivery, read(WV::Delivery(te, job.delivery)));
  SVC_ASSIGN_OR_RETURN(core::Json dlx, read(WV::DeliveryBody(te, job.delivery)));
  if (!p.delivery.is_object() || !dlx.is_object()) return core::Unavailable("the delivery is not projected yet");
  p.kind = Prepared::kSkip;
  if (dlx.value("dueMicros", int64_t{-1}) != job.due_micros) return p;  // attempted (or started) already
  p.endpoint = core::StringOr(p.delivery, "endpointId");
  p.session = core::StringOr(p.delivery, "callbackSessionId");
  p.event_id = core::StringOr(p.delivery, "eventId");
  p.attempt = p.delivery.value("attempts", 0) + 1;
  // The reviewer's words for an applicant are kept sealed and opened for the send.
  p.body = pipeline::verification::WebhookBodyAsSent(*options_.keys, job.tenant, job.env, dlx.value("body", ""));
  if (dlx.value("started", 0) >= p.attempt) {
    // Started and never recorded: the node that started it stopped or died mid-send, and its lease
    // (this due row) has passed. Not posted again as the same attempt: recorded as interrupted.
    p.kind = Prepared::kInterrupted;
    return p;
  }
  if (p.session.empty()) {
    SVC_ASSIGN_OR_RETURN(core::Json ep, read(WV::Endpoint(te, p.endpoint)));
    if (!ep.is_object()) return core::Unavailable("the endpoint is not projected yet");
    if (!ep.value("isActive", false)) {
      p.kind = Prepared::kInactive;
      return p;
    }
  } else {
    SVC_ASSIGN_OR_RETURN(p.callback, read(WV::Callback(te, p.session)));
    if (!p.callback.is_object()) return core::Unavailable("the session's callback is not projected yet");
  }
  p.kind = Prepared::kSend;
  return p;
}

void WebhookDispatcher::AttemptBatch(const std::vector<Job>& batch, OutboundClient& client) {
  auto settle = [this](const Job& job) { return [this, job](core::Status st) { Settle(job, st); }; };
  // Read each delivery; those that need no post are recorded (or skipped) at once.
  std::vector<std::pair<Job, Prepared>> sends;
  for (const Job& job : batch) {
    auto p = Prepare(job);
    if (!p.ok()) {
      Settle(job, p.status());
      continue;
    }
    wh::RecordAttempt rec;
    rec.endpoint_id = p->endpoint;
    rec.attempt = p->attempt;
    switch (p->kind) {
      case Prepared::kSkip:
        Settle(job, core::Status::Ok());
        break;
      case Prepared::kInactive:
        rec.outcome = "failed";
        rec.error = "endpoint_inactive";
        if (failed_ != nullptr) failed_->Add();
        Record(job, p->event_id, std::move(rec), settle(job));
        break;
      case Prepared::kInterrupted:
        rec.error = "interrupted";
        Schedule(rec, p->delivery, options_.clock->Now().micros, std::nullopt);
        if (interrupted_ != nullptr) interrupted_->Add();
        Record(job, p->event_id, std::move(rec), settle(job));
        break;
      case Prepared::kSend:
        sends.emplace_back(job, std::move(*p));
        break;
    }
  }
  if (sends.empty()) return;

  // Start every attempt of the batch (one group commit) and wait for the writer's answers: only
  // an attempt whose start was appended is posted. The lease is one send's timeout and a margin:
  // it only says when an attempt left open by a dead node is recorded as interrupted (a slow
  // batch's later sends may outlive it; the delivery is this node's active job meanwhile, and
  // another node scans it only once it owns the tenant, when this one no longer sends).
  struct Starts {
    std::mutex mu;
    std::condition_variable cv;
    size_t pending = 0;
    std::vector<core::Status> status;  // OK: started; kAlreadyExists: not ours to post
  };
  auto starts = std::make_shared<Starts>();
  starts->pending = sends.size();
  starts->status.resize(sends.size());
  const int64_t lease = options_.clock->Now().micros +
                        std::chrono::duration_cast<std::chrono::microseconds>(options_.send.total_timeout).count() +
                        kLeaseMarginMicros;
  for (size_t i = 0; i < sends.size(); ++i) {
    const auto& [job, p] = sends[i];
    auto cmd = commands::MakeCommand<wh::DeliveryDecider>(job.tenant, job.delivery,
                                                          wh::DeliveryCommand(wh::StartAttempt{p.endpoint, p.attempt, lease}),
                                                          SystemContext(job.env, p.event_id));
    options_.writer->Execute(std::move(cmd), [starts, i](core::Result<commands::CommandOutcome> out) {
      std::lock_guard lock(starts->mu);
      starts->status[i] = !out.ok()                 ? out.status()
                          : out->positions.empty() ? core::AlreadyExists("started or recorded before")
                                                   : core::Status::Ok();
      if (--starts->pending == 0) starts->cv.notify_all();
    });
  }
  {
    std::unique_lock lock(starts->mu);
    starts->cv.wait(lock, [&] { return starts->pending == 0; });
  }

  for (size_t i = 0; i < sends.size(); ++i) {
    auto& [job, p] = sends[i];
    const core::Status& started = starts->status[i];
    if (started.code() == core::StatusCode::kAlreadyExists) {
      Settle(job, core::Status::Ok());  // another start or record won: its due row moves when projected
      continue;
    }
    if (!started.ok()) {
      Settle(job, started);  // unknown: if it was appended, its lease brings it back as interrupted
      continue;
    }
    bool stopping;
    {
      std::lock_guard lock(mu_);
      stopping = stop_;
    }
    // Right before the send: a lane queued before this node lost the tenant's partition (a
    // cluster's rebalance) must not send on (issue 67). A started attempt left unsent (also at a
    // stop) is recorded as interrupted when its lease has passed, by whichever node owns it then.
    if (stopping || !options_.Owns(job.tenant)) {
      Settle(job, core::Status::Ok());
      continue;
    }
    Send(job, p, client);
  }
}

void WebhookDispatcher::Send(const Job& job, const Prepared& p, OutboundClient& client) {
  auto done = [this, job](core::Status st) { Settle(job, st); };
  core::Timestamp now = options_.clock->Now();
  wh::RecordAttempt rec;
  rec.endpoint_id = p.endpoint;
  rec.attempt = p.attempt;

  // Secrets: the current one, and during the overlap after a rotation the previous one; a
  // session's callback signs with its own.
  core::Result<std::vector<std::string>> secrets = std::vector<std::string>{};
  if (p.session.empty()) {
    secrets = OpenWebhookSecrets(*options_.store, *options_.keys, job.tenant, job.env, p.endpoint, now.micros);
  } else {
    auto secret = OpenCallbackSecret(options_.callback_seal_key, job.tenant, job.env, p.session,
                                     core::StringOr(p.callback, "secretSealed"));
    if (!secret.ok()) return done(secret.status());
    secrets->push_back(std::move(*secret));
  }
  if (!secrets.ok()) return done(secrets.status());
  int64_t ts = now.micros / 1'000'000;
  auto signature = pipeline::webhooks::SignatureHeader(*secrets, p.event_id, ts, p.body);
  for (auto& s : *secrets) core::SecureZero(s);
  if (!signature.ok()) return done(signature.status());

  SendResult r = client.Post(p.delivery.value("targetUrl", ""),
                             {{"webhook-id", p.event_id},
                              {"webhook-timestamp", std::to_string(ts)},
                              {"webhook-signature", *signature}},
                             p.body, ts);
  rec.status_code = r.status;
  rec.error = r.error;
  rec.latency_ms = r.latency_ms;
  bool gone = false;  // an endpoint that answers 410 is deactivated (a callback just fails)
  if (r.status >= 200 && r.status < 300) {
    rec.outcome = "delivered";
    rec.error.clear();
  } else if (r.status >= 400 && r.status < 500) {
    rec.outcome = "failed";  // permanent: not retried
    if (rec.error.empty()) rec.error = "http_" + std::to_string(r.status);
    gone = r.status == 410 && p.session.empty();
  } else {
    if (rec.error.empty()) rec.error = "http_" + std::to_string(r.status);
    Schedule(rec, p.delivery, now.micros, r.retry_after_seconds);
  }
  if (latency_ != nullptr) {
    latency_->Observe(static_cast<double>(r.latency_ms) / 1000.0);
    (rec.outcome == "delivered" ? delivered_ : rec.outcome == "retrying" ? retrying_ : failed_)->Add();
  }
  const std::string& event_id = p.event_id;
  const std::string& whe = p.endpoint;
  if (!gone) return Record(job, event_id, std::move(rec), std::move(done));
  // 410 Gone: the receiver says the endpoint is gone for good. The attempt is recorded, then
  // the endpoint is deactivated (its other queued deliveries then fail as endpoint_inactive).
  Record(job, event_id, std::move(rec), [this, job, whe, event_id, done = std::move(done)](core::Status recorded) {
    if (!recorded.ok()) return done(recorded);
    wh::UpdateEndpoint u;
    u.changes = {{"isActive", false}};
    u.reason = "gone";
    auto cmd = commands::MakeCommand<wh::EndpointDecider>(job.tenant, whe, wh::EndpointCommand(u),
                                                          SystemContext(job.env, event_id));
    options_.writer->Execute(std::move(cmd), [this, done](core::Result<commands::CommandOutcome> out) {
      if (!out.ok()) {
        // The attempt is recorded; the endpoint stays active and the next 410 tries again.
        core::LogWarn("webhook endpoint answered 410 but could not be deactivated",
                      {{"error", out.status().ToString()}});
      }
      if (!out.ok() || out->positions.empty()) return done(core::Status::Ok());
      options_.projections->WhenApplied(out->positions, kApplyTimeout, [done](bool) { done(core::Status::Ok()); });
    });
  });
}

}  // namespace svc::pipeline::webhooks
