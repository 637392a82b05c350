#pragma once
// Token buckets per API key and per family (reads, writes, PII reveals). The configured values
// live in ApiLimits, the one object GET /v1/compliance/limits will report.

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "api/http/route.h"
#include "core/clock.h"
#include "core/token_bucket.h"

namespace svc::api {

struct RateLimitFamilyConfig {
  std::string name;
  double per_second = 0;  // sustained rate
  double burst = 0;       // bucket size
};

struct ApiLimits {
  RateLimitFamilyConfig reads{"reads", 100, 200};
  RateLimitFamilyConfig writes{"writes", 50, 100};
  RateLimitFamilyConfig reveals{"pii_reveals", 5, 10};
  int page_limit_default = 20;
  int page_limit_max = 100;
  size_t max_body_bytes = 1024 * 1024;
  int64_t session_ttl_seconds = 24 * 3600;
  const RateLimitFamilyConfig& For(RateFamily f) const {
    return f == RateFamily::kRead ? reads : f == RateFamily::kWrite ? writes : reveals;
  }
};

class RateLimiter {
 public:
  RateLimiter(const ApiLimits& limits, const core::Clock& clock) : limits_(limits), clock_(clock) {}
  // 0 when allowed (and a token is taken); else the seconds to wait before retrying.
  int64_t Take(const std::string& key_id, RateFamily family);

 private:
  const ApiLimits& limits_;
  const core::Clock& clock_;
  std::mutex mu_;
  std::map<std::pair<std::string, int>, core::TokenBucket> buckets_;
};

}  // namespace svc::api
