#include "api/http/rate_limit.h"

#include <cmath>

namespace svc::api {

int64_t RateLimiter::Take(const std::string& key_id, RateFamily family) {
  const auto& cfg = limits_.For(family);
  if (cfg.per_second <= 0) return 0;  // unlimited
  int64_t now = clock_.Now().micros;
  std::lock_guard lock(mu_);
  int64_t wait = buckets_[{key_id, static_cast<int>(family)}].Take(now, cfg.per_second, cfg.burst);
  if (wait == 0) return 0;
  return std::max<int64_t>(1, (wait + 999'999) / 1'000'000);
}

}  // namespace svc::api
