#include "api/webhook_dispatcher.h"

#include <cmath>

#include "commands/webhooks/delivery_decider.h"
#include "commands/webhooks/endpoint_decider.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/webhooks/signing.h"
#include "projections/projector.h"

namespace svc::api {

namespace wh = commands::webhooks;

namespace {
constexpr auto kApplyTimeout = std::chrono::seconds(30);
std::string WKey(std::string_view rest) {
  return std::string(projections::WebhooksProjector::kName) + "/" + std::string(rest);
}
}  // namespace

commands::CommandContext WebhookDispatcher::SystemContext(const std::string& env,
                                                          const std::string& correlation) const {
  commands::CommandContext ctx;
  ctx.now = options_.clock->Now();
  ctx.ids = options_.ids;
  ctx.actor = {"system", "webhook-dispatcher"};
  ctx.environment = env;
  ctx.request_id = options_.ids->NewIdString(core::IdKind::kRequest);
  ctx.correlation_id = correlation;
  return ctx;
}

core::Result<std::vector<std::string>> OpenWebhookSecrets(const eventstore::KvStore& store,
                                                          eventstore::KeyStore& keys,
                                                          const std::string& tenant,
                                                          const std::string& env,
                                                          const std::string& endpoint_id,
                                                          int64_t now_micros) {
  const std::string te = tenant + "/" + env;
  SVC_ASSIGN_OR_RETURN(auto row, store.Get(store.Cf(projections::kViewsCf), WKey("sec/" + te + "/" + endpoint_id)));
  if (!row.has_value()) return core::Unavailable("the endpoint's secret is not projected yet");
  core::Json sec = core::ParseJsonOrDiscarded(*row);
  SVC_ASSIGN_OR_RETURN(auto dek, keys.Get("webhook/" + te + "/" + endpoint_id));
  if (!dek.has_value()) return core::DataLoss("the endpoint's key is gone");
  std::string aad = "webhook-secret|" + tenant + "|" + env + "|" + endpoint_id;
  std::vector<std::string> secrets;
  for (const char* field : {"secretSealed", "previousSecretSealed"}) {
    std::string sealed = sec.value(field, "");
    if (sealed.empty()) continue;
    if (std::string(field) == "previousSecretSealed" && now_micros >= sec.value("previousValidUntilMicros", int64_t{0})) {
      continue;
    }
    SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed));
    SVC_ASSIGN_OR_RETURN(std::string secret, core::AeadOpen(*dek, raw, aad));
    secrets.push_back(std::move(secret));
  }
  return secrets;
}

WebhookDispatcher::WebhookDispatcher(const Options& options) : options_(options) {}
WebhookDispatcher::~WebhookDispatcher() { Stop(); }

void WebhookDispatcher::Start() {
  pool_ = std::make_unique<core::ThreadPool>(std::max<size_t>(1, options_.workers));
  options_.projector->AddListener([this] {
    std::lock_guard lock(mu_);
    dirty_ = true;
    wake_.notify_all();
  });
  dispatcher_ = std::thread([this] { Dispatch(); });
}

void WebhookDispatcher::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    stop_ = true;
    wake_.notify_all();
  }
  if (dispatcher_.joinable()) dispatcher_.join();
  pool_.reset();
}

core::Result<std::vector<WebhookDispatcher::Job>> WebhookDispatcher::Due() const {
  std::vector<Job> jobs;
  int cf = options_.store->Cf(projections::kViewsCf);
  std::string prefix = WKey("due/");
  std::string end = prefix;
  eventstore::PutFixed64BE(end, static_cast<uint64_t>(options_.clock->Now().micros) + 1);
  auto it = options_.store->NewIterator(cf, prefix, end);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    std::string key(it->key());
    std::string_view rest = std::string_view(key).substr(prefix.size() + 9);  // 8 bytes + '/'
    size_t a = rest.find('/'), b = rest.find('/', a + 1);
    if (a == std::string_view::npos || b == std::string_view::npos) continue;
    uint64_t micros = 0;
    for (size_t i = 0; i < 8; ++i) micros = (micros << 8) | static_cast<unsigned char>(key[prefix.size() + i]);
    jobs.push_back({static_cast<int64_t>(micros), std::string(rest.substr(0, a)),
                    std::string(rest.substr(a + 1, b - a - 1)), std::string(rest.substr(b + 1))});
  }
  SVC_RETURN_IF_ERROR(it->status());
  return jobs;
}

void WebhookDispatcher::Dispatch() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    // Woken by committed batches; the timeout finds retries whose time has come (a periodic
    // scan, not synchronisation).
    wake_.wait_for(lock, std::chrono::seconds(1), [&] { return stop_ || dirty_; });
    if (stop_) break;
    dirty_ = false;
    lock.unlock();
    auto jobs = Due();
    lock.lock();
    if (!jobs.ok()) {
      core::LogWarn("webhooks: cannot read due deliveries", {{"error", jobs.status().ToString()}});
      continue;
    }
    for (auto& job : *jobs) {
      if (active_.count(job.delivery) > 0) continue;
      active_.insert(job.delivery);
      pool_->Post([this, job] {
        auto st = Send(job);
        if (!st.ok()) {
          core::LogWarn("webhook delivery attempt not recorded; it is tried again",
                        {{"deliveryId", job.delivery}, {"error", st.ToString()}});
        }
        std::lock_guard l(mu_);
        active_.erase(job.delivery);
        if (!st.ok()) dirty_ = true;
        idle_.notify_all();
        wake_.notify_all();
      });
    }
    idle_.notify_all();
  }
}

bool WebhookDispatcher::WaitIdle(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mu_);
  for (;;) {
    if (active_.empty() && !dirty_) {
      lock.unlock();
      auto due = Due();
      lock.lock();
      if (due.ok() && due->empty() && active_.empty()) return true;
      dirty_ = true;
      wake_.notify_all();
    }
    if (idle_.wait_until(lock, deadline) == std::cv_status::timeout) return false;
  }
}

core::Status WebhookDispatcher::Send(const Job& job) {
  const auto& st = *options_.store;
  int cf = st.Cf(projections::kViewsCf);
  const std::string te = job.tenant + "/" + job.env;
  auto read = [&](const std::string& key) -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(auto row, st.Get(cf, WKey(key)));
    if (!row.has_value()) return core::Json(nullptr);
    return core::ParseJsonOrDiscarded(*row);
  };
  SVC_ASSIGN_OR_RETURN(core::Json dl, read("dl/" + te + "/" + job.delivery));
  SVC_ASSIGN_OR_RETURN(core::Json dlx, read("dlx/" + te + "/" + job.delivery));
  if (!dl.is_object() || !dlx.is_object()) return core::Unavailable("the delivery is not projected yet");
  if (dlx.value("dueMicros", int64_t{-1}) != job.due_micros) return core::Status::Ok();  // attempted already
  std::string whe = dl.value("endpointId", "");
  SVC_ASSIGN_OR_RETURN(core::Json ep, read("ep/" + te + "/" + whe));
  if (!ep.is_object()) return core::Unavailable("the endpoint is not projected yet");

  int attempt = dl.value("attempts", 0) + 1;
  core::Timestamp now = options_.clock->Now();
  wh::RecordAttempt rec;
  rec.endpoint_id = whe;
  rec.attempt = attempt;
  auto record = [&]() -> core::Status {
    auto cmd = commands::MakeCommand<wh::DeliveryDecider>(job.tenant, job.delivery, wh::DeliveryCommand(rec),
                                                          SystemContext(job.env, dl.value("eventId", "")));
    SVC_ASSIGN_OR_RETURN(auto out, options_.writer->ExecuteAndWait(std::move(cmd)));
    if (!out.positions.empty() && !options_.projections->WaitApplied(out.positions, kApplyTimeout)) {
      return core::Unavailable("the read models did not apply the attempt in time");
    }
    return core::Status::Ok();
  };

  if (!ep.value("isActive", false)) {
    rec.outcome = "failed";
    rec.error = "endpoint_inactive";
    return record();
  }
  // Per-endpoint limit: a slow receiver holds at most this many workers.
  {
    std::lock_guard lock(mu_);
    if (per_endpoint_[whe] >= options_.per_endpoint_limit) {
      dirty_ = true;  // try again on the next pass
      return core::Status::Ok();
    }
    ++per_endpoint_[whe];
  }
  struct Release {
    WebhookDispatcher* d;
    std::string whe;
    ~Release() {
      std::lock_guard lock(d->mu_);
      if (--d->per_endpoint_[whe] == 0) d->per_endpoint_.erase(whe);
    }
  } release{this, whe};

  // Secrets: the current one, and during the overlap after a rotation the previous one.
  SVC_ASSIGN_OR_RETURN(std::vector<std::string> secrets,
                       OpenWebhookSecrets(st, *options_.keys, job.tenant, job.env, whe, now.micros));
  std::string body = dlx.value("body", "");
  std::string event_id = dl.value("eventId", "");
  int64_t ts = now.micros / 1'000'000;
  SVC_ASSIGN_OR_RETURN(std::string signature, pipeline::webhooks::SignatureHeader(secrets, event_id, ts, body));
  for (auto& s : secrets) core::SecureZero(s);

  SendResult r = PostWebhook(dl.value("targetUrl", ""),
                             {{"webhook-id", event_id},
                              {"webhook-timestamp", std::to_string(ts)},
                              {"webhook-signature", signature}},
                             body, options_.send, ts);
  rec.status_code = r.status;
  rec.error = r.error;
  rec.latency_ms = r.latency_ms;
  bool gone = false;
  if (r.status >= 200 && r.status < 300) {
    rec.outcome = "delivered";
    rec.error.clear();
  } else if (r.status >= 400 && r.status < 500) {
    rec.outcome = "failed";  // permanent: not retried
    if (rec.error.empty()) rec.error = "http_" + std::to_string(r.status);
    gone = r.status == 410;
  } else {
    if (rec.error.empty()) rec.error = "http_" + std::to_string(r.status);
    const auto& p = options_.policy;
    double wait = std::min<double>(p.max_backoff_seconds, p.backoff_base_seconds * std::pow(2.0, attempt - 1));
    // +-20 % jitter so that receivers coming back are not hit by every retry at once.
    std::string rnd = core::RandomBytes(2);
    double u = ((static_cast<unsigned char>(rnd[0]) << 8) | static_cast<unsigned char>(rnd[1])) / 65535.0;
    wait *= 0.8 + 0.4 * u;
    if (r.retry_after_seconds) wait = std::max<double>(wait, static_cast<double>(*r.retry_after_seconds));
    int64_t next = now.micros + static_cast<int64_t>(wait * 1e6);
    auto created = core::ParseRfc3339(dl.value("createdAt", ""));
    int64_t budget_end = (created.ok() ? created->micros : now.micros) + int64_t{p.retry_budget_hours} * 3600 * 1'000'000;
    if (next > budget_end) {
      rec.outcome = "failed";
    } else {
      rec.outcome = "retrying";
      rec.next_retry_at_micros = next;
    }
  }
  SVC_RETURN_IF_ERROR(record());
  if (gone) {
    // 410 Gone: the receiver says the endpoint is gone for good; it is deactivated.
    wh::UpdateEndpoint u;
    u.changes = {{"isActive", false}};
    u.reason = "gone";
    auto cmd = commands::MakeCommand<wh::EndpointDecider>(job.tenant, whe, wh::EndpointCommand(u),
                                                          SystemContext(job.env, dl.value("eventId", "")));
    SVC_ASSIGN_OR_RETURN(auto out, options_.writer->ExecuteAndWait(std::move(cmd)));
    if (!out.positions.empty()) options_.projections->WaitApplied(out.positions, kApplyTimeout);
  }
  return core::Status::Ok();
}

}  // namespace svc::api
