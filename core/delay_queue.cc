#include "core/delay_queue.h"

#include <vector>

#include "core/executor.h"

namespace svc::core {

DelayQueue::DelayQueue() {
  thread_ = std::thread([this] {
    SetThreadName("svc-delays");
    Loop();
  });
}

DelayQueue::~DelayQueue() { Stop(); }

void DelayQueue::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void DelayQueue::After(std::chrono::milliseconds delay, std::function<void()> task) {
  bool now = false;
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      now = true;
    } else {
      tasks_.emplace(std::chrono::steady_clock::now() + delay, std::move(task));
    }
  }
  if (now) {
    task();
    return;
  }
  cv_.notify_all();
}

void DelayQueue::Loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (stopping_) break;
    if (tasks_.empty()) {
      cv_.wait(lock);
      continue;
    }
    const auto due = tasks_.begin()->first;
    if (std::chrono::steady_clock::now() < due) {
      cv_.wait_until(lock, due);
      continue;
    }
    auto task = std::move(tasks_.begin()->second);
    tasks_.erase(tasks_.begin());
    lock.unlock();
    task();
    lock.lock();
  }
  // Stopping: whatever waits is run now.
  std::vector<std::function<void()>> left;
  for (auto& [at, task] : tasks_) left.push_back(std::move(task));
  tasks_.clear();
  lock.unlock();
  for (auto& t : left) t();
}

}  // namespace svc::core
