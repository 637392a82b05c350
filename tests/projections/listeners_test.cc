#include "projections/listeners.h"

#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <thread>

namespace projections_listeners_test {

using svc::projections::Listeners;

TEST_CASE("projector listeners: added, called, removed; removal waits for a running call") {
  Listeners l;
  int a = 0, b = 0;
  int ia = l.Add([&] { ++a; });
  l.Add([&] { ++b; });
  l.Notify();
  CHECK(a == 1);
  CHECK(b == 1);
  l.Remove(ia);
  l.Notify();
  CHECK(a == 1);
  CHECK(b == 2);
  l.Remove(12345);  // unknown: nothing
  {
    auto sub = l.Subscribe([&] { ++a; });
    l.Notify();
    CHECK(a == 2);
    auto moved = std::move(sub);
    sub.Reset();  // moved from: nothing
    l.Notify();
    CHECK(a == 3);
  }  // the subscription removes its listener
  l.Notify();
  CHECK(a == 3);
  CHECK(b == 5);

  // A call in progress: Remove returns only after it (the owner may then be destroyed).
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false, release = false, finished = false;
  int ic = l.Add([&] {
    std::unique_lock lock(mu);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
    finished = true;
  });
  std::thread notifier([&] { l.Notify(); });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return entered; });
  }
  std::atomic<bool> removed{false};
  std::thread remover([&] {
    l.Remove(ic);
    removed = true;
  });
  {
    std::lock_guard lock(mu);
    CHECK_FALSE(removed.load());  // still inside the call
    release = true;
  }
  cv.notify_all();
  remover.join();
  notifier.join();
  CHECK(finished);
  CHECK(removed.load());
}

}  // namespace projections_listeners_test
