#pragma once
// A thread that runs a process manager's periodic work every `interval` until stopped, and the
// base of the managers that run on one (PeriodicManager, below; the thread extracted at the
// third). Under a fake clock nobody starts it: tests call the work directly, as the clock
// moves. The wait is a timer, not synchronisation.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/status.h"

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

// A process manager whose work runs on a PeriodicThread: the expiry timer, the checkpoint
// publisher, the purger and the retention sweeper (extracted at the fourth: each declared the
// same thread, Start, Stop and failure log). A subclass calls Stop in its own destructor.
class PeriodicManager {
 public:
  PeriodicManager(const PeriodicManager&) = delete;
  PeriodicManager& operator=(const PeriodicManager&) = delete;

  // The timer (not under a fake clock: tests call the work directly).
  void Start();
  // Returns after the run in progress (if any) finished.
  void Stop();
  // Runs as soon as possible on the timer's thread.
  void Wake();

 protected:
  // `work`: one run; a failure is logged as `failed_message` and the next interval tries again.
  PeriodicManager(std::string thread_name, std::chrono::milliseconds interval, std::string failed_message,
                  std::function<core::Status()> work, bool run_first = false);
  ~PeriodicManager();

 private:
  std::string name_;
  std::chrono::milliseconds interval_;
  std::string failed_message_;
  std::function<core::Status()> work_;
  bool run_first_;
  std::unique_ptr<PeriodicThread> thread_;
};

}  // namespace svc::pipeline
