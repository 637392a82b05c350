#pragma once
// A budget of bytes shared by many holders (the captures uploads hold in memory): a holder takes
// bytes before it allocates them and gives them back when it frees them; a take that would pass
// the budget is refused, never waited for. Thread-safe.

#include <atomic>
#include <cstddef>
#include <string_view>
#include <vector>

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

// Bytes held in memory out of a budget, in 1 MiB blocks mapped from the kernel (not the heap):
// growing never copies, and what is given back leaves the process at once (a heap would keep the
// pages of every thread's arena resident after a refused upload freed them). Not thread-safe.
class HeldBytes {
 public:
  static constexpr size_t kBlock = 1u << 20;
  explicit HeldBytes(ByteBudget* budget) : hold_(budget) {}
  HeldBytes(const HeldBytes&) = delete;
  HeldBytes& operator=(const HeldBytes&) = delete;
  ~HeldBytes() { Clear(); }

  // Appends `bytes` (false: the budget had not got a block it needed; what fitted was appended).
  bool Append(std::string_view bytes);
  size_t size() const { return size_; }
  // The bytes in one piece (the blocks are moved into one mapping, each unmapped once copied); the
  // view lives until Clear. The budget's share is unchanged: the mapping is no larger than the blocks.
  std::string_view Whole();
  void Clear();

 private:
  struct Block {
    char* data;
    size_t used;
  };
  static char* Map(size_t n);
  static void Unmap(char* p, size_t n);
  ByteBudget::Hold hold_;
  std::vector<Block> blocks_;
  char* whole_ = nullptr;
  size_t whole_size_ = 0;
  size_t size_ = 0;
};

}  // namespace svc::core
