#pragma once
// The wake loop of a queue-driven process manager: the verified-data writer, the consolidator, the
// bulk exporter, the review outcome writer and the verification pipeline share it (extracted at
// the third). A thread runs a pass over the manager's
// queue whenever it is woken (a batch of the read model it watches, a request) and at least every
// second (a pass that failed is retried: a safety net, not synchronisation). WaitIdle lets tests
// and tools wait until the queue holds nothing to do.
//
// Passes are at least `min_interval` apart (wake-ups meanwhile make one pass): under load the
// watched read model commits hundreds of batches a second, and a pass per batch scanned each
// queue ~550 times a second in the soak (BENCHMARKS.md#soak-bounded), a third of the server's CPU.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace svc::pipeline {

class WorkLoop {
 public:
  // `pass`: one pass over the queue (what fails is left queued: the next pass, within a second,
  // tries again). `nothing_due`: whether the queue holds nothing to do now (read by WaitIdle,
  // between passes).
  static constexpr std::chrono::milliseconds kDefaultMinInterval{20};
  WorkLoop(std::string thread_name, std::function<void()> pass, std::function<bool()> nothing_due,
           std::chrono::milliseconds min_interval = kDefaultMinInterval);
  ~WorkLoop();

  void Start();
  // Returns after the pass in progress (if any) finished.
  void Stop();
  // Runs a pass as soon as the thread is free (once, however many calls came meanwhile).
  void Wake();
  // True once Stop was asked: a pass checks it between items.
  bool Stopping();
  // Blocks until a pass found nothing due. False on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout);

 private:
  void Loop();

  std::string name_;
  std::chrono::milliseconds min_interval_;
  std::chrono::steady_clock::time_point last_pass_{};
  std::function<void()> pass_;
  std::function<bool()> nothing_due_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  bool stop_ = false;
  bool dirty_ = true;
  bool busy_ = false;
  std::thread thread_;
};

}  // namespace svc::pipeline
