// pipeline::WorkLoop: wake-ups that come faster than the loop's minimum interval share one pass,
// and Stop does not wait out the interval.
#include "pipeline/work_loop.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace svc::pipeline {
namespace pipeline_work_loop_test {

struct Passes {
  std::mutex mu;
  std::condition_variable cv;
  int count = 0;
  void Run() {
    std::lock_guard l(mu);
    ++count;
    cv.notify_all();
  }
  bool WaitFor(int n) {
    std::unique_lock l(mu);
    return cv.wait_for(l, std::chrono::seconds(30), [&] { return count >= n; });
  }
  int Count() {
    std::lock_guard l(mu);
    return count;
  }
};

TEST_CASE("work loop: wake-ups within the minimum interval share the next pass; Stop does not wait it out") {
  Passes p;
  WorkLoop loop("svc-test-loop", [&] { p.Run(); }, [] { return true; }, std::chrono::minutes(10));
  loop.Start();
  REQUIRE(p.WaitFor(1));  // the first pass runs at once
  for (int i = 0; i < 1000; ++i) loop.Wake();
  auto t0 = std::chrono::steady_clock::now();
  loop.Stop();  // the pending pass would run in 10 minutes; Stop ends the wait
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::minutes(1));
  CHECK(p.Count() == 1);
}

TEST_CASE("work loop: without a minimum interval every wake-up after a pass makes another") {
  Passes p;
  WorkLoop loop("svc-test-loop", [&] { p.Run(); }, [] { return true; }, std::chrono::milliseconds(0));
  loop.Start();
  REQUIRE(p.WaitFor(1));
  loop.Wake();
  REQUIRE(p.WaitFor(2));
  loop.Wake();
  REQUIRE(p.WaitFor(3));
  CHECK(loop.WaitIdle(std::chrono::seconds(30)));
  loop.Stop();
}

}  // namespace pipeline_work_loop_test
}  // namespace svc::pipeline
