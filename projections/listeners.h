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
