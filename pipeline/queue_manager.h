#pragma once
// A process manager whose work is a queue in a read model: a WorkLoop whose passes run whenever
// the projector it watches commits a batch (and at least every second). The verified-data writer,
// the consolidator, the bulk exporter, the review outcome writer and the company verifier are
// ones (extracted at the fifth: each declared the same loop, listener, Start, Stop and WaitIdle).
//
// A subclass implements Pass (one pass over its queue; it checks Stopping between items) and
// NothingDue (read by WaitIdle), and calls Stop in its own destructor, before its members go.

#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include "pipeline/work_loop.h"
#include "projections/listeners.h"

namespace svc::pipeline {

class QueueManager {
 public:
  QueueManager(const QueueManager&) = delete;
  QueueManager& operator=(const QueueManager&) = delete;

  // Subscribes to the projector, then starts the thread.
  void Start();
  // Unsubscribes, then returns after the pass in progress (if any) finished.
  void Stop();
  // Runs a pass as soon as the thread is free.
  void Wake() { loop_.Wake(); }
  // Blocks until a pass found nothing due (tests, tools). False on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout) { return loop_.WaitIdle(timeout); }

 protected:
  // `projector`: the read model whose committed batches wake the loop (any projector with
  // AddListener).
  template <class Watched>
  QueueManager(std::string thread_name, Watched* projector)
      : subscribe_([projector](std::function<void()> fn) { return projector->AddListener(std::move(fn)); }),
        loop_(std::move(thread_name), [this] { Pass(); }, [this] { return NothingDue(); }) {}
  ~QueueManager() = default;

  virtual void Pass() = 0;
  virtual bool NothingDue() = 0;
  // True once Stop was asked.
  bool Stopping() { return loop_.Stopping(); }

 private:
  std::function<projections::Listeners::Subscription(std::function<void()>)> subscribe_;
  WorkLoop loop_;
  projections::Listeners::Subscription listener_;
};

}  // namespace svc::pipeline
