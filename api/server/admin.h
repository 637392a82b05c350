#pragma once

#include <functional>
// Tenancy administration: tenants and API keys. Every operation is a command that appends
// events. The same functions serve the CLI on a stopped data directory and the admin listener
// (unix socket, service key) of a running server.

#include <memory>
#include <string>
#include <vector>

#include "api/http/http.h"
#include "api/http/problem.h"
#include "api/http/admin_route.h"
#include "api/http/runtime.h"
#include "commands/command.h"
#include "commands/writer.h"
#include "core/json.h"
#include "core/log.h"

namespace svc::api {

struct KeyCreateRequest {
  std::string tenant_id;
  std::string environment = "test";
  std::string key_type = "secret";
  std::vector<std::string> scopes = {"*"};
  std::string name;
  std::string application_id;
  std::vector<std::string> flows;  // flow ids the key is restricted to (empty: any)
};


// Results are JSON objects (printed by the CLI, returned by the admin listener). A created key's
// plaintext appears once, in the result of KeyCreate, and nowhere else.
core::Result<core::Json> AdminTenantCreate(Runtime& rt, const std::string& name,
                                           const eventstore::Actor& actor);
core::Result<core::Json> AdminTenantList(Runtime& rt);
core::Result<core::Json> AdminApplicationCreate(Runtime& rt, const std::string& tenant_id, const std::string& name,
                                                const eventstore::Actor& actor);
core::Result<core::Json> AdminKeyCreate(Runtime& rt, const KeyCreateRequest& req,
                                        const eventstore::Actor& actor);
core::Result<core::Json> AdminKeyRevoke(Runtime& rt, const std::string& tenant_id,
                                        const std::string& key_id, const std::string& reason,
                                        const eventstore::Actor& actor);
core::Result<core::Json> AdminKeyList(Runtime& rt, const std::string& tenant_id);
// Review-console users (docs/review.md#reviewers): create (the sign-in secret shown once), list,
// disable.
core::Result<core::Json> AdminUserCreate(Runtime& rt, const std::string& tenant_id, const std::string& role,
                                         const std::string& label, const eventstore::Actor& actor);
core::Result<core::Json> AdminUserList(Runtime& rt, const std::string& tenant_id);
core::Result<core::Json> AdminUserDisable(Runtime& rt, const std::string& tenant_id, const std::string& user_id,
                                          const eventstore::Actor& actor);
// The tenant's review policy: {doubleApproval: none|declines|all, trustBelow: 0..1}.
core::Result<core::Json> AdminReviewPolicySet(Runtime& rt, const std::string& tenant_id, const std::string& double_approval,
                                              double trust_below, const eventstore::Actor& actor);
// The tenant's export key: the X25519 public key (base64url) bulk export dumps are sealed to.
core::Result<core::Json> AdminExportKeySet(Runtime& rt, const std::string& tenant_id, const std::string& public_key,
                                           const eventstore::Actor& actor);

// Routes of the admin listener, all behind `Authorization: Bearer <service key>`
// (401 SERVICE_KEY_REQUIRED otherwise):
//   POST /admin/tenants                         {name}
//   GET  /admin/tenants
//   POST /admin/tenants/{tenant_id}/export-key  {publicKey}
//   POST /admin/tenants/{tenant_id}/review-policy  {doubleApproval, trustBelow}
//   POST /admin/tenants/{tenant_id}/users       {role, label}
//   GET  /admin/tenants/{tenant_id}/users
//   POST /admin/tenants/{tenant_id}/users/{user_id}/disable
//   POST /admin/tenants/{tenant_id}/applications {name}
//   POST /admin/tenants/{tenant_id}/keys        {environment, type, scopes[], name, applicationId, flows[]}
//   GET  /admin/tenants/{tenant_id}/keys
//   POST /admin/tenants/{tenant_id}/keys/{key_id}/revoke   {reason}
void AddAdminRoutes(Router& router, Runtime& rt, std::string service_key);

}  // namespace svc::api
