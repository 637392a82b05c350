#pragma once
// A budget of bytes shared by many holders (the captures uploads hold in memory): a holder takes
// bytes before it allocates them and gives them back when it frees them; a take that would pass
// the budget is refused, never waited for. Thread-safe.

#include <atomic>
#include <cstddef>

#include "core/metrics.h"

namespace svc::core {

class ByteBudget {
 public:
  // `gauge` (optional) shows the bytes taken.
  explicit ByteBudget(size_t capacity, Gauge* gauge = nullptr) : capacity_(capacity), gauge_(gauge) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  // Takes `n` bytes when they fit (true); else takes nothing (false).
  bool TryTake(size_t n) {
    size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (n > capacity_ || used > capacity_ - n) return false;
    } while (!used_.compare_exchange_weak(used, used + n, std::memory_order_relaxed));
    if (gauge_ != nullptr) gauge_->Add(static_cast<int64_t>(n));
    return true;
  }
  void Give(size_t n) {
    used_.fetch_sub(n, std::memory_order_relaxed);
    if (gauge_ != nullptr) gauge_->Add(-static_cast<int64_t>(n));
  }
  size_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t capacity() const { return capacity_; }

  // What one holder has taken, given back when it goes. A null budget is unlimited.
  class Hold {
   public:
    explicit Hold(ByteBudget* budget = nullptr) : budget_(budget) {}
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    ~Hold() { Release(); }
    // Takes `n` more (false: the budget has not got them; nothing taken).
    bool Grow(size_t n) {
      if (budget_ != nullptr && !budget_->TryTake(n)) return false;
      held_ += n;
      return true;
    }
    void Release() {
      if (budget_ != nullptr && held_ > 0) budget_->Give(held_);
      held_ = 0;
    }
    size_t held() const { return held_; }

   private:
    ByteBudget* budget_;
    size_t held_ = 0;
  };

 private:
  const size_t capacity_;
  Gauge* const gauge_;
  std::atomic<size_t> used_{0};
};

}  // namespace svc::core
