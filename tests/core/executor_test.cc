#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <vector>

#include "core/executor.h"

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
