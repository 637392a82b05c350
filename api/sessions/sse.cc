#include "api/sessions/sse.h"
#include "core/executor.h"

#include "commands/verification/session_events.h"
#include "core/json.h"
#include "projections/projector.h"

namespace svc::api {

bool FinalSeen(const eventstore::KvStore& store, const std::string& prefix,
               const std::string& after_key);

namespace {
using VV = projections::VerificationView;

std::string StreamPrefix(const std::string& tenant, const std::string& env,
                         const std::string& session) {
  return VV::Abs(VV::Stream(projections::TenantEnv(tenant, env), session));
}

std::string AfterKey(const std::string& tenant, const std::string& env, const std::string& session,
                     std::optional<eventstore::LogPosition> after) {
  if (!after.has_value()) return "";
  return VV::Abs(VV::StreamAt(projections::TenantEnv(tenant, env), session, *after));
}

}  // namespace

// True when the session's stream has ended (its last entry is final) and the client has seen
// that entry (`after_key` is at or past it).
bool FinalSeen(const eventstore::KvStore& store, const std::string& prefix,
               const std::string& after_key) {
  if (after_key.empty()) return false;
  int cf = store.Cf(projections::kViewsCf);
  auto last = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  last->SeekToLast();
  return last->Valid() && std::string_view(last->key()) <= std::string_view(after_key) &&
         SseHub::IsFinal(core::ParseJsonOrDiscarded(last->value()));
}

bool SseHub::Ended(const std::string& tenant, const std::string& env, const std::string& session,
                   std::optional<eventstore::LogPosition> after) const {
  std::string prefix = StreamPrefix(tenant, env, session);
  return FinalSeen(*store_, prefix, AfterKey(tenant, env, session, after));
}

bool SseHub::IsFinal(const core::Json& entry) {
  std::string type = core::StringOr(entry, "type");
  // A verdict (the submission's answer), the expiry, or a refused consent end the stream.
  namespace vs = commands::verification;
  if (type == vs::SessionExpired::kType) return true;
  for (auto t : vs::kVerdictTypes) {
    if (type == t) return true;
  }
  return type == "verification.consent_recorded" && entry.contains("consentGiven") &&
         entry["consentGiven"].is_boolean() && !entry["consentGiven"].get<bool>();
}

class SseHub::Stream final : public ResponseStream,
                             public std::enable_shared_from_this<SseHub::Stream> {
 public:
  Stream(SseHub* hub, std::string prefix, std::string after_key)
      : hub_(hub), prefix_(std::move(prefix)), after_(std::move(after_key)) {}
  ~Stream() override {
    std::lock_guard lock(hub_->mu_);
    --hub_->open_;
  }

  void Next(std::function<void(std::optional<std::string>)> deliver) override {
    if (finished_.load() || ended_) return deliver(std::nullopt);
    std::string chunk;
    if (!started_) {
      started_ = true;
      chunk = "retry: 3000\n\n";
    }
    auto r = Poll(&chunk);
    if (r == PollResult::kData || !chunk.empty()) return deliver(std::move(chunk));
    if (r == PollResult::kEnd) return deliver(std::nullopt);
    hub_->Park(shared_from_this(), std::move(deliver));
  }

  void Finish() override {
    finished_.store(true);
    std::lock_guard lock(hub_->mu_);
    hub_->dirty_ = true;
    hub_->wake_.notify_all();
  }

  enum class PollResult { kNone, kData, kEnd };
  // Appends the entries after `after_` to `chunk`. kEnd when the stream is over (a final entry
  // was sent, or is already behind the client).
  PollResult Poll(std::string* chunk) {
    if (finished_.load()) return PollResult::kEnd;
    int cf = hub_->store_->Cf(projections::kViewsCf);
    std::string lower = after_.empty() ? prefix_ : after_ + std::string(1, '\0');
    auto it = hub_->store_->NewIterator(cf, lower, eventstore::PrefixEnd(prefix_));
    bool any = false;
    for (it->Seek(lower); it->Valid(); it->Next()) {
      std::string_view key = it->key();
      std::string_view pos = key.substr(prefix_.size());
      if (pos.size() != 12) continue;
      eventstore::LogPosition p{eventstore::GetFixed32BE(pos), eventstore::GetFixed64BE(pos.substr(4))};
      core::Json entry = core::ParseJsonOrDiscarded(it->value());
      chunk->append("id: ").append(projections::VerificationProjector::StreamId(p)).append("\n");
      chunk->append("event: ").append(core::StringOr(entry, "type")).append("\n");
      chunk->append("data: ").append(it->value()).append("\n\n");
      after_ = std::string(key);
      any = true;
      if (IsFinal(entry)) {
        ended_ = true;
        break;
      }
    }
    if (any) return PollResult::kData;
    if (!it->status().ok()) return PollResult::kEnd;
    // Nothing new: is the last entry of the session (already behind the client) final?
    if (FinalSeen(*hub_->store_, prefix_, after_)) return PollResult::kEnd;
    return PollResult::kNone;
  }

  bool finished() const { return finished_.load(); }

 private:
  SseHub* hub_;
  std::string prefix_;
  std::string after_;  // full key of the last entry sent ("" = none)
  bool started_ = false;
  bool ended_ = false;
  std::atomic<bool> finished_{false};
};

SseHub::SseHub(const eventstore::KvStore* store, projections::VerificationProjector* projector,
               std::chrono::milliseconds heartbeat)
    : store_(store), heartbeat_(heartbeat) {
  listener_ = projector->AddListener([this] {
    std::lock_guard lock(mu_);
    dirty_ = true;
    wake_.notify_all();
  });
  thread_ = std::thread([this] {
    core::SetThreadName("svc-sse");
    Loop();
  });
}

SseHub::~SseHub() { Stop(); }

void SseHub::Stop() {
  std::list<Waiter> waiters;
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    stop_ = true;
    waiters.swap(waiters_);
    wake_.notify_all();
  }
  listener_.Reset();
  for (auto& w : waiters) w.deliver(std::nullopt);
  if (thread_.joinable()) thread_.join();
}

size_t SseHub::OpenStreams() const {
  std::lock_guard lock(mu_);
  return open_;
}

std::shared_ptr<ResponseStream> SseHub::Open(const std::string& tenant, const std::string& env,
                                             const std::string& session,
                                             std::optional<eventstore::LogPosition> after) {
  std::string prefix = StreamPrefix(tenant, env, session);
  std::string after_key = AfterKey(tenant, env, session, after);
  {
    std::lock_guard lock(mu_);
    ++open_;
  }
  return std::make_shared<Stream>(this, prefix, after_key);
}

void SseHub::Park(std::shared_ptr<Stream> s,
                  std::function<void(std::optional<std::string>)> deliver) {
  std::unique_lock lock(mu_);
  if (stop_) {
    lock.unlock();
    return deliver(std::nullopt);
  }
  waiters_.push_back({s, std::chrono::steady_clock::now() + heartbeat_, std::move(deliver)});
  // Rows may have landed between the poll and now: look again on the hub thread.
  dirty_ = true;
  wake_.notify_all();
}

void SseHub::Loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    auto next = std::chrono::steady_clock::now() + std::chrono::hours(1);
    for (const auto& w : waiters_) next = std::min(next, w.deadline);
    wake_.wait_until(lock, next, [&] { return stop_ || dirty_; });
    if (stop_) break;
    dirty_ = false;
    std::list<Waiter> waiting;
    waiting.swap(waiters_);
    lock.unlock();
    auto now = std::chrono::steady_clock::now();
    std::list<Waiter> keep;
    for (auto& w : waiting) {
      auto s = w.stream.lock();
      if (s == nullptr) continue;
      std::string chunk;
      auto r = s->Poll(&chunk);
      if (r == Stream::PollResult::kData) {
        w.deliver(std::move(chunk));
      } else if (r == Stream::PollResult::kEnd) {
        w.deliver(std::nullopt);
      } else if (now >= w.deadline) {
        w.deliver(std::string(": keep-alive\n\n"));
      } else {
        keep.push_back(std::move(w));
      }
    }
    lock.lock();
    waiters_.splice(waiters_.end(), keep);
  }
}

}  // namespace svc::api
