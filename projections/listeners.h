#pragma once
// Callbacks a projector runs after each of its committed batches (process managers and streams
// wake up on them). Remove() returns only once no call is running and none will start, so an
// owner can be destroyed right after, while the projections still run.
//
// Thread-safety: all methods may be called from any thread; a callback must not add or remove
// listeners of the same set.

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace svc::projections {

class Listeners {
 public:
  // A registration that removes its listener when reset or destroyed (move-only).
  class Subscription {
   public:
    Subscription() = default;
    Subscription(Listeners* set, int id) : set_(set), id_(id) {}
    Subscription(Subscription&& o) noexcept : set_(std::exchange(o.set_, nullptr)), id_(o.id_) {}
    Subscription& operator=(Subscription&& o) noexcept {
      if (this != &o) {
        Reset();
        set_ = std::exchange(o.set_, nullptr);
        id_ = o.id_;
      }
      return *this;
    }
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    ~Subscription() { Reset(); }
    // Removes the listener; returns once no call of it is running.
    void Reset() {
      if (set_ != nullptr) std::exchange(set_, nullptr)->Remove(id_);
    }

   private:
    Listeners* set_ = nullptr;
    int id_ = 0;
  };

  Subscription Subscribe(std::function<void()> fn) { return Subscription(this, Add(std::move(fn))); }

  int Add(std::function<void()> fn) {
    std::lock_guard lock(mu_);
    fns_.emplace_back(++next_, std::move(fn));
    return next_;
  }
  void Remove(int id) {
    std::lock_guard lock(mu_);
    std::erase_if(fns_, [id](const auto& f) { return f.first == id; });
  }
  void Notify() {
    std::lock_guard lock(mu_);  // held during the calls: Remove waits for them
    for (auto& [id, fn] : fns_) fn();
  }

 private:
  std::mutex mu_;
  int next_ = 0;
  std::vector<std::pair<int, std::function<void()>>> fns_;
};

}  // namespace svc::projections
