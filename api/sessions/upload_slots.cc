#include "api/sessions/upload_slots.h"

namespace svc::api {

UploadSlots::Taken UploadSlots::Take(const std::string& source, const std::string& tenant) {
  std::lock_guard lock(mu_);
  if (total_ >= limits_.total) return Taken::kFull;
  auto s = by_source_.find(source);
  if (limits_.per_source > 0 && s != by_source_.end() && s->second >= limits_.per_source) return Taken::kSourceFull;
  auto t = by_tenant_.find(tenant);
  if (limits_.per_tenant > 0 && t != by_tenant_.end() && t->second >= limits_.per_tenant) return Taken::kTenantFull;
  ++total_;
  if (in_use_ != nullptr) in_use_->Set(static_cast<int64_t>(total_));
  ++by_source_[source];
  ++by_tenant_[tenant];
  return Taken::kYes;
}

void UploadSlots::Release(const std::string& source, const std::string& tenant) {
  std::lock_guard lock(mu_);
  --total_;
  if (in_use_ != nullptr) in_use_->Set(static_cast<int64_t>(total_));
  if (auto s = by_source_.find(source); s != by_source_.end() && --s->second == 0) by_source_.erase(s);
  if (auto t = by_tenant_.find(tenant); t != by_tenant_.end() && --t->second == 0) by_tenant_.erase(t);
}

}  // namespace svc::api
