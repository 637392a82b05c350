#pragma once
// A thread that runs a process manager's periodic work every `interval` until stopped: the
// session expiry timer, the checkpoint publisher and the retention sweeper share it (extracted
// at the third). Under a fake clock nobody starts it: tests call the work directly, as the clock
// moves. The wait is a timer, not synchronisation.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace svc::pipeline {

class PeriodicThread {
 public:
  // `run_first`: run once at start too (else first after one interval).
  PeriodicThread(std::string name, std::chrono::milliseconds interval, std::function<void()> work,
                 bool run_first = false);
  ~PeriodicThread();
  void Start();
  // Returns after the work in progress (if any) finished.
  void Stop();
  // Runs the work as soon as the thread is free (once, however many calls came meanwhile).
  void Wake();

 private:
  std::string name_;
  std::chrono::milliseconds interval_;
  std::function<void()> work_;
  bool run_first_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool woken_ = false;
  std::thread thread_;
};

}  // namespace svc::pipeline
