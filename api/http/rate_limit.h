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
  // Persons revealed per tenant, environment and UTC day (decrypt, batch decrypt, an expanded
  // read, client-token use, integrity, export, reauth); beyond it 429 PII_DECRYPT_CAP_REACHED
  // until the next UTC midnight. Set by the persons module; the review detail reveals under it too.
  int64_t reveal_budget_per_day = 10000;
  // How often a signed checkpoint of each access log that grew is published (the audit module's
  // flag; the compliance limits report it).
  int64_t audit_checkpoint_interval_seconds = 60;
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
