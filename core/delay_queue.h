#pragma once
// Runs tasks after a delay, on one thread of its own, in deadline order: for a use case that must
// wait a little for another request's step without holding a thread (a person write that waits
// for the winner of a race to make the person it found: pipeline/persons/person_writes.cc).
// Tasks still queued when it stops (Stop, or its destruction) are run at once, so that no caller
// is left unanswered.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace svc::core {

class DelayQueue {
 public:
  DelayQueue();
  ~DelayQueue();
  DelayQueue(const DelayQueue&) = delete;
  DelayQueue& operator=(const DelayQueue&) = delete;

  void After(std::chrono::milliseconds delay, std::function<void()> task);
  // Runs what waits now and stops the thread; a task given after it runs at once, in the caller.
  // Idempotent; the destructor calls it.
  void Stop();

 private:
  void Loop();
  std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace svc::core
