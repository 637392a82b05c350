#include "api/rate_limit.h"

#include <cmath>

namespace svc::api {

int64_t RateLimiter::Take(const std::string& key_id, RateFamily family) {
  const auto& cfg = limits_.For(family);
  if (cfg.per_second <= 0) return 0;  // unlimited
  int64_t now = clock_.Now().micros;
  std::lock_guard lock(mu_);
  Bucket& b = buckets_[{key_id, static_cast<int>(family)}];
  if (!b.init) {
    b.tokens = cfg.burst;
    b.last_micros = now;
    b.init = true;
  }
  double elapsed = std::max<int64_t>(0, now - b.last_micros) / 1e6;
  b.tokens = std::min(cfg.burst, b.tokens + elapsed * cfg.per_second);
  b.last_micros = now;
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return 0;
  }
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil((1.0 - b.tokens) / cfg.per_second)));
}

}  // namespace svc::api
