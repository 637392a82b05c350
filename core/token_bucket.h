#pragma once
// A token bucket on a clock's microseconds: `per_second` tokens flow in, at most `burst` are kept.
// Not thread-safe: its owner locks. Used by the API's rate limits and the webhook lanes.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace svc::core {

struct TokenBucket {
  double tokens = 0;
  int64_t last_micros = 0;
  bool init = false;

  // Takes a token at `now_micros` when there is one (0); else the microseconds until there is.
  // A new bucket starts full.
  int64_t Take(int64_t now_micros, double per_second, double burst) {
    if (!init) {
      tokens = burst;
      last_micros = now_micros;
      init = true;
    }
    double elapsed = static_cast<double>(std::max<int64_t>(0, now_micros - last_micros)) / 1e6;
    tokens = std::min(burst, tokens + elapsed * per_second);
    last_micros = std::max(last_micros, now_micros);
    if (tokens >= 1.0) {
      tokens -= 1.0;
      return 0;
    }
    return std::max<int64_t>(1, static_cast<int64_t>(std::ceil((1.0 - tokens) / per_second * 1e6)));
  }
};

}  // namespace svc::core
