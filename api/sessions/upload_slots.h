#pragma once
// Who may hold the upload slots (issue 68): an upload holds one from its header until its answer
// (a thread of the upload pool reads, seals and analyses it), so slots are shared out — at most
// `total` at once, at most `per_source` held by one source address (CredentialGuard::SourceOf)
// and at most `per_tenant` by one tenant's environment. A source or a tenant past its share is
// refused at once (429 RATE_LIMITED), a full house 503 ADMISSION_FULL, both with Retry-After: a
// client that sends its headers and stalls takes its own share, not another tenant's. A stalled
// body loses its slot after the server's upload stall deadline (docs/verification-pipeline.md).
// Thread-safe.

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

#include "core/metrics.h"

namespace svc::api {

class UploadSlots {
 public:
  struct Limits {
    size_t total = 32;
    size_t per_source = 8;   // 0: no share
    size_t per_tenant = 16;  // 0: no share
  };
  enum class Taken { kYes, kSourceFull, kTenantFull, kFull };

  // `in_use` (optional) shows the slots taken.
  explicit UploadSlots(Limits limits, core::Gauge* in_use = nullptr) : limits_(limits), in_use_(in_use) {}
  Taken Take(const std::string& source, const std::string& tenant);
  // Gives back a slot Take gave (kYes) to the same source and tenant.
  void Release(const std::string& source, const std::string& tenant);
  const Limits& limits() const { return limits_; }

 private:
  const Limits limits_;
  core::Gauge* const in_use_;
  std::mutex mu_;
  size_t total_ = 0;
  std::map<std::string, size_t> by_source_, by_tenant_;
};

}  // namespace svc::api
