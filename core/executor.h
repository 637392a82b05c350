#pragma once
// A small thread pool and serial executors ("strands") on top of it. A Strand runs the tasks
// posted to it one at a time, in order, on whichever pool thread is free: this is how the write
// side serialises commands per partition without a lock around the decision.

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace svc::core {

using Task = std::function<void()>;

// Names the calling thread (at most 15 characters are kept) so that top, perf and gdb show what
// each thread is.
void SetThreadName(const char* name);

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);
  ~ThreadPool();  // drains the queue, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Post(Task task);
  size_t size() const { return threads_.size(); }

 private:
  void Run();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

class Strand {
 public:
  explicit Strand(ThreadPool& pool) : state_(std::make_shared<State>(pool)) {}
  void Post(Task task);

 private:
  struct State {
    explicit State(ThreadPool& p) : pool(p) {}
    ThreadPool& pool;
    std::mutex mu;
    std::deque<Task> queue;
    bool running = false;
  };
  static void Drain(const std::shared_ptr<State>& state);
  std::shared_ptr<State> state_;
};

}  // namespace svc::core
