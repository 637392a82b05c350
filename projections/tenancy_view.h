#pragma once
// The tenancy read model's keys (prefix "tenancy/"), for TenancyProjector and its readers
// (authentication, session create, the admin commands).
//
//   tenant/<ten_id>                 {id, name, createdAt, defaultApplicationId, exportKey}
//   app/<ten_id>/<app_id>           {id, tenantId, name, isDefault, createdAt}
//   key/<ten_id>/<key_id>           {id, tenantId, applicationId, environment, keyType, scopes,
//                                    last4, name, createdAt, revokedAt}
//   keyhash/<secret hash hex>       {tenantId, keyId}   (authentication lookup)
//   user/<ten_id>/<usr_id>          {id, object, tenantId, role, label, last4, createdAt, disabledAt}
//   usersecret/<secret hash hex>    {tenantId, userId}  (the console's sign-in lookup)

#include <string>
#include <string_view>

#include "projections/view_key.h"

namespace svc::projections {

struct TenancyView {
  static constexpr std::string_view kName = "tenancy";

  static std::string Tenants() { return "tenant/"; }
  static std::string Tenant(std::string_view tenant) { return Tenants() + std::string(tenant); }
  static std::string Application(std::string_view tenant, std::string_view app) {
    return "app/" + std::string(tenant) + "/" + std::string(app);
  }
  static std::string Keys(std::string_view tenant) { return "key/" + std::string(tenant) + "/"; }
  static std::string Key(std::string_view tenant, std::string_view key_id) {
    return Keys(tenant) + std::string(key_id);
  }
  static std::string KeyBySecretHash(std::string_view hash_hex) {
    return "keyhash/" + std::string(hash_hex);
  }

  static std::string Users(std::string_view tenant) { return "user/" + std::string(tenant) + "/"; }
  static std::string User(std::string_view tenant, std::string_view user_id) {
    return Users(tenant) + std::string(user_id);
  }
  static std::string UserBySecretHash(std::string_view hash_hex) { return "usersecret/" + std::string(hash_hex); }
  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }
};

}  // namespace svc::projections
