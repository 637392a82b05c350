#include "pipeline/work_loop.h"

#include "core/executor.h"

namespace svc::pipeline {

WorkLoop::WorkLoop(std::string thread_name, std::function<void()> pass, std::function<bool()> nothing_due,
                   std::chrono::milliseconds min_interval)
    : name_(std::move(thread_name)),
      min_interval_(min_interval),
      pass_(std::move(pass)),
      nothing_due_(std::move(nothing_due)) {}

WorkLoop::~WorkLoop() { Stop(); }

void WorkLoop::Start() {
  thread_ = std::thread([this] {
    core::SetThreadName(name_.c_str());
    Loop();
  });
}

void WorkLoop::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void WorkLoop::Wake() {
  std::lock_guard lock(mu_);
  dirty_ = true;
  wake_.notify_all();
}

bool WorkLoop::Stopping() {
  std::lock_guard lock(mu_);
  return stop_;
}

void WorkLoop::Loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::seconds(1), [&] { return stop_ || dirty_; });
    if (stop_) break;
    // At most one pass per min_interval: the wake-ups that come meanwhile share the next one.
    const auto next = last_pass_ + min_interval_;
    if (std::chrono::steady_clock::now() < next) {
      wake_.wait_until(lock, next, [&] { return stop_; });
      if (stop_) break;
    }
    last_pass_ = std::chrono::steady_clock::now();
    dirty_ = false;
    busy_ = true;
    lock.unlock();
    pass_();
    lock.lock();
    busy_ = false;
    idle_.notify_all();
  }
  busy_ = false;
  idle_.notify_all();
}

bool WorkLoop::WaitIdle(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mu_);
  for (;;) {
    if (!busy_ && !dirty_) {
      lock.unlock();
      const bool none = nothing_due_();
      lock.lock();
      if (none && !busy_) return true;
      dirty_ = true;
      wake_.notify_all();
    }
    if (idle_.wait_until(lock, deadline) == std::cv_status::timeout) return false;
  }
}

}  // namespace svc::pipeline
