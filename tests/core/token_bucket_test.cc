#include "core/token_bucket.h"

#include <doctest/doctest.h>

namespace core_token_bucket_test {

using svc::core::TokenBucket;

TEST_CASE("token bucket: starts full, refills at its rate, says how long to wait") {
  TokenBucket b;
  const int64_t t0 = 1'000'000'000;
  for (int i = 0; i < 6; ++i) CHECK(b.Take(t0, 1.0, 6) == 0);  // a burst of 6
  CHECK(b.Take(t0, 1.0, 6) == 1'000'000);                      // then one a second
  CHECK(b.Take(t0 + 400'000, 1.0, 6) == 600'000);
  CHECK(b.Take(t0 + 1'000'000, 1.0, 6) == 0);
  CHECK(b.Take(t0 + 1'000'000, 1.0, 6) > 0);
  // Never more than the burst, however long it was idle.
  int64_t later = t0 + 3600'000'000LL;
  int taken = 0;
  while (b.Take(later, 1.0, 6) == 0) ++taken;
  CHECK(taken == 6);
  // A clock that steps back does not mint tokens.
  CHECK(b.Take(later - 10'000'000, 1.0, 6) > 0);
  // Slow rates: 1 a minute.
  TokenBucket slow;
  CHECK(slow.Take(t0, 1.0 / 60, 1) == 0);
  CHECK(slow.Take(t0, 1.0 / 60, 1) == 60'000'000);
}

}  // namespace core_token_bucket_test
