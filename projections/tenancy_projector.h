#pragma once
// Read model of tenants, applications and API keys.
//
// Rows (under "tenancy/"):
//   tenant/<ten_id>                 {id, name, createdAt, defaultApplicationId}
//   app/<ten_id>/<app_id>           {id, tenantId, name, isDefault, createdAt}
//   key/<ten_id>/<key_id>           {id, tenantId, applicationId, environment, keyType, scopes,
//                                    last4, name, createdAt, revokedAt}
//   keyhash/<secret hash hex>       {tenantId, keyId}   (authentication lookup)

#include "projections/projector.h"

namespace svc::projections {

class TenancyProjector final : public Projector {
 public:
  static constexpr std::string_view kName = "tenancy";
  std::string_view Name() const override { return kName; }
  int Version() const override { return 1; }
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
  void AfterCommit() override;
  // Moves after every committed batch that changed an API key: authentication caches compare it.
  static uint64_t KeyGeneration();

 private:
  bool keys_changed_ = false;
};

}  // namespace svc::projections
