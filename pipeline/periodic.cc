#include "pipeline/periodic.h"

#include "core/executor.h"
#include "core/log.h"

namespace svc::pipeline {

PeriodicThread::PeriodicThread(std::string name, std::chrono::milliseconds interval, std::function<void()> work,
                               bool run_first)
    : name_(std::move(name)), interval_(interval), work_(std::move(work)), run_first_(run_first) {}

PeriodicThread::~PeriodicThread() { Stop(); }

void PeriodicThread::Start() {
  thread_ = std::thread([this] {
    core::SetThreadName(name_.c_str());
    std::unique_lock lock(mu_);
    bool first = run_first_;
    while (!stop_) {
      if (!first) wake_.wait_for(lock, interval_, [&] { return stop_ || woken_; });
      first = false;
      woken_ = false;
      if (stop_) break;
      lock.unlock();
      work_();
      lock.lock();
    }
  });
}

void PeriodicThread::Wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  wake_.notify_all();
}

void PeriodicThread::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

PeriodicManager::PeriodicManager(std::string thread_name, std::chrono::milliseconds interval,
                                 std::string failed_message, std::function<core::Status()> work, bool run_first)
    : name_(std::move(thread_name)),
      interval_(interval),
      failed_message_(std::move(failed_message)),
      work_(std::move(work)),
      run_first_(run_first) {}

PeriodicManager::~PeriodicManager() { Stop(); }

void PeriodicManager::Start() {
  thread_ = std::make_unique<PeriodicThread>(
      name_, interval_,
      [this] {
        if (auto st = work_(); !st.ok()) core::LogWarn(failed_message_, {{"error", st.ToString()}});
      },
      run_first_);
  thread_->Start();
}

void PeriodicManager::Stop() {
  if (thread_) thread_->Stop();
}

void PeriodicManager::Wake() {
  if (thread_) thread_->Wake();
}

}  // namespace svc::pipeline
