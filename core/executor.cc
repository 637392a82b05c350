#include "core/executor.h"

#include <pthread.h>

#include <cstring>

namespace svc::core {

void SetThreadName(const char* name) {
  char buf[16] = {};
  std::strncpy(buf, name, sizeof buf - 1);
  pthread_setname_np(pthread_self(), buf);
}

ThreadPool::ThreadPool(size_t threads) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      SetThreadName("svc-pool");
      Run();
    });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::Post(Task task) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::Run() {
  for (;;) {
    Task task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void Strand::Post(Task task) {
  bool schedule = false;
  {
    std::lock_guard lock(state_->mu);
    state_->queue.push_back(std::move(task));
    if (!state_->running) {
      state_->running = true;
      schedule = true;
    }
  }
  if (schedule) {
    auto state = state_;
    state->pool.Post([state] { Drain(state); });
  }
}

void Strand::Drain(const std::shared_ptr<State>& state) {
  // Runs a bounded number of tasks, then yields the pool thread so other strands get a turn.
  for (int i = 0; i < 64; ++i) {
    Task task;
    {
      std::lock_guard lock(state->mu);
      if (state->queue.empty()) {
        state->running = false;
        return;
      }
      task = std::move(state->queue.front());
      state->queue.pop_front();
    }
    task();
  }
  state->pool.Post([state] { Drain(state); });
}

}  // namespace svc::core
