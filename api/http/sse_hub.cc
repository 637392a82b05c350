#include "api/http/sse_hub.h"

#include "core/executor.h"
#include "projections/projector.h"

namespace svc::api {

namespace {

// True when the feed's last row is final and the client has seen it (`after_key` at or past it).
bool FinalSeen(const eventstore::KvStore& store, const SseFeed& feed, const std::string& after_key) {
  if (after_key.empty() || !feed.is_final) return false;
  int cf = store.Cf(projections::kViewsCf);
  auto last = store.NewIterator(cf, feed.prefix, eventstore::PrefixEnd(feed.prefix));
  last->SeekToLast();
  return last->Valid() && std::string_view(last->key()) <= std::string_view(after_key) &&
         feed.is_final(core::ParseJsonOrDiscarded(last->value()));
}

}  // namespace

bool SseHub::Ended(const SseFeed& feed) const { return FinalSeen(*store_, feed, feed.after_key); }

class SseHub::Stream final : public ResponseStream, public std::enable_shared_from_this<SseHub::Stream> {
 public:
  Stream(SseHub* hub, SseFeed feed) : hub_(hub), feed_(std::move(feed)), after_(feed_.after_key) {}
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
    hub_->Wake();
  }

  enum class PollResult { kNone, kData, kEnd };
  // Appends the rows after `after_` to `chunk`. kEnd when the stream is over (the last row is
  // final: it was just sent, or is already behind the client).
  PollResult Poll(std::string* chunk) {
    if (finished_.load()) return PollResult::kEnd;
    int cf = hub_->store_->Cf(projections::kViewsCf);
    const std::string& prefix = feed_.prefix;
    std::string lower = after_.empty() ? prefix : after_ + std::string(1, '\0');
    auto it = hub_->store_->NewIterator(cf, lower, eventstore::PrefixEnd(prefix));
    bool any = false, last_final = false;
    for (it->Seek(lower); it->Valid(); it->Next()) {
      std::string_view key = it->key();
      std::string_view suffix = key.substr(prefix.size());
      if (suffix.size() != feed_.suffix_bytes) continue;
      core::Json row = core::ParseJsonOrDiscarded(it->value());
      chunk->append("id: ").append(feed_.id_of(suffix)).append("\n");
      chunk->append("event: ").append(feed_.event_of(row)).append("\n");
      chunk->append("data: ").append(it->value()).append("\n\n");
      after_ = std::string(key);
      any = true;
      // A final row ends the stream when it is the last: a verdict a resubmission followed (more
      // information asked, then the captures again) is history, not the end (issue 69).
      last_final = feed_.is_final && feed_.is_final(row);
    }
    ended_ = last_final;
    if (any) return PollResult::kData;
    if (!it->status().ok()) return PollResult::kEnd;
    // Nothing new: is the last row (already behind the client) final?
    if (FinalSeen(*hub_->store_, feed_, after_)) return PollResult::kEnd;
    return PollResult::kNone;
  }

 private:
  SseHub* hub_;
  SseFeed feed_;
  std::string after_;  // full key of the last row sent ("" = none)
  bool started_ = false;
  bool ended_ = false;
  std::atomic<bool> finished_{false};
};

SseHub::SseHub(const eventstore::KvStore* store, std::chrono::milliseconds heartbeat)
    : store_(store), heartbeat_(heartbeat) {
  thread_ = std::thread([this] {
    core::SetThreadName("svc-sse");
    Loop();
  });
}

SseHub::~SseHub() { Stop(); }

void SseHub::Wake() {
  std::lock_guard lock(mu_);
  dirty_ = true;
  wake_.notify_all();
}

std::function<void()> SseHub::Waker() {
  return [this] { Wake(); };
}

void SseHub::Hold(projections::Listeners::Subscription subscription) {
  std::lock_guard lock(mu_);
  held_.push_back(std::move(subscription));
}

void SseHub::Stop() {
  std::list<Waiter> waiters;
  std::vector<projections::Listeners::Subscription> held;
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    stop_ = true;
    waiters.swap(waiters_);
    held.swap(held_);
    wake_.notify_all();
  }
  held.clear();  // returns once no wake-up call is running
  for (auto& w : waiters) w.deliver(std::nullopt);
  if (thread_.joinable()) thread_.join();
}

size_t SseHub::OpenStreams() const {
  std::lock_guard lock(mu_);
  return open_;
}

std::shared_ptr<ResponseStream> SseHub::Open(SseFeed feed) {
  {
    std::lock_guard lock(mu_);
    ++open_;
  }
  return std::make_shared<Stream>(this, std::move(feed));
}

void SseHub::Park(std::shared_ptr<Stream> s, std::function<void(std::optional<std::string>)> deliver) {
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
