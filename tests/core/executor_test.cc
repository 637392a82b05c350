#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <vector>

#include "core/delay_queue.h"
#include "core/executor.h"

namespace core_executor_test {

using namespace svc::core;

TEST_CASE("a strand runs its tasks one at a time, in order") {
  ThreadPool pool(4);
  Strand strand(pool);
  std::vector<int> seen;
  std::atomic<int> running{0};
  std::atomic<bool> overlap{false};
  std::promise<void> done;
  for (int i = 0; i < 1000; ++i) {
    strand.Post([&, i] {
      if (running.fetch_add(1) != 0) overlap = true;
      seen.push_back(i);
      running.fetch_sub(1);
      if (i == 999) done.set_value();
    });
  }
  done.get_future().wait();
  CHECK_FALSE(overlap.load());
  REQUIRE(seen.size() == 1000);
  for (int i = 0; i < 1000; ++i) CHECK(seen[i] == i);
}

// core::DelayQueue: tasks run after their delay, in deadline order, on its thread; Stop runs what
// waits at once (nobody is left unanswered) and a task given after it runs in the caller.
TEST_CASE("delay queue: deadline order; Stop runs what waits; a task after Stop runs at once") {
  svc::core::DelayQueue q;
  std::mutex mu;
  std::vector<int> order;
  std::promise<void> two_ran;
  auto note = [&](int i) {
    std::lock_guard lock(mu);
    order.push_back(i);
  };
  q.After(std::chrono::milliseconds(40), [&] {
    note(2);
    two_ran.set_value();
  });
  q.After(std::chrono::milliseconds(1), [&] { note(1); });
  q.After(std::chrono::hours(1), [&] { note(3); });  // waits until Stop
  two_ran.get_future().wait();
  {
    std::lock_guard lock(mu);
    CHECK(order == std::vector<int>{1, 2});
  }
  q.Stop();
  CHECK(order == std::vector<int>{1, 2, 3});
  q.After(std::chrono::hours(1), [&] { note(4); });
  CHECK(order == std::vector<int>{1, 2, 3, 4});
  q.Stop();  // idempotent
}

}  // namespace core_executor_test
