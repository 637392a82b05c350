#include "api/server/admin.h"

#include "api/embedded/routes.h"

#include <algorithm>

#include "api/http/json_input.h"
#include "commands/tenancy/api_keys.h"
#include "commands/tenancy/tenant_decider.h"
#include "core/crypto.h"
#include "core/log.h"
#include "projections/projector.h"
#include "projections/tenancy_projector.h"

namespace svc::api {

namespace tn = commands::tenancy;
using TV = projections::TenancyView;

namespace {


core::Result<commands::CommandOutcome> Run(Runtime& rt, const std::string& tenant_id, tn::TenancyCommand cmd,
                                           const eventstore::Actor& actor) {
  return AdminRun<tn::TenantDecider>(rt, tenant_id, tenant_id, std::move(cmd), actor);
}

core::Result<core::Json> ReadRow(Runtime& rt, const std::string& key) {
  int cf = rt.store().Cf(projections::kViewsCf);
  SVC_ASSIGN_OR_RETURN(auto row, rt.store().Get(cf, TV::Abs(key)));
  if (!row.has_value()) return core::NotFound("not found");
  return core::ParseJsonOrDiscarded(*row);
}

core::Result<core::Json> ScanRows(Runtime& rt, const std::string& prefix) {
  int cf = rt.store().Cf(projections::kViewsCf);
  std::string full = TV::Abs(prefix);
  auto it = rt.store().NewIterator(cf, full, eventstore::PrefixEnd(full));
  core::Json out = core::Json::array();
  for (it->Seek(full); it->Valid(); it->Next()) out.push_back(core::ParseJsonOrDiscarded(it->value()));
  SVC_RETURN_IF_ERROR(it->status());
  return out;
}

}  // namespace

core::Result<core::Json> AdminTenantCreate(Runtime& rt, const std::string& name,
                                           const eventstore::Actor& actor) {
  std::string tenant_id = rt.ids().NewIdString(core::IdKind::kTenant);
  std::string app_id = rt.ids().NewIdString(core::IdKind::kApplication);
  SVC_ASSIGN_OR_RETURN(auto outcome,
                       Run(rt, tenant_id, tn::CreateTenant{name, app_id}, actor));
  core::Json j;
  j["id"] = tenant_id;
  j["name"] = name;
  j["defaultApplicationId"] = core::StringOr(outcome.result, "defaultApplicationId", app_id);
  return j;
}

core::Result<core::Json> AdminApplicationCreate(Runtime& rt, const std::string& tenant_id, const std::string& name,
                                                const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, tenant_id));
  std::string app_id = rt.ids().NewIdString(core::IdKind::kApplication);
  SVC_RETURN_IF_ERROR(Run(rt, tenant_id, tn::CreateApplication{app_id, name}, actor).status());
  return ReadRow(rt, TV::Application(tenant_id, app_id));
}

core::Result<core::Json> AdminTenantList(Runtime& rt) {
  SVC_ASSIGN_OR_RETURN(auto rows, ScanRows(rt, TV::Tenants()));
  return core::Json{{"object", "list"}, {"data", rows}};
}

core::Result<core::Json> AdminKeyCreate(Runtime& rt, const KeyCreateRequest& req,
                                        const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, req.tenant_id));
  if (!req.application_id.empty()) {
    SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kApplication, req.application_id));
  }
  if (req.environment != "live" && req.environment != "test") {
    return core::InvalidArgument("environment must be live or test", "VALIDATION_ERROR");
  }
  if (req.key_type != "secret" && req.key_type != "publishable") {
    return core::InvalidArgument("type must be secret or publishable", "VALIDATION_ERROR");
  }
  SVC_RETURN_IF_ERROR(CheckFlowsExist(rt, req.tenant_id, req.flows));
  tn::NewKeyMaterial material = tn::GenerateApiKey(req.environment, req.key_type);
  tn::CreateApiKey cmd;
  cmd.key_id = rt.ids().NewIdString(core::IdKind::kApiKey);
  cmd.application_id = req.application_id;
  cmd.environment = req.environment;
  cmd.key_type = req.key_type;
  cmd.scopes = req.scopes;
  cmd.secret_hash = tn::HashApiKey(rt.api_key_lookup_key(), material.plaintext);
  cmd.last4 = material.last4;
  cmd.name = req.name;
  cmd.flows = req.flows;
  SVC_ASSIGN_OR_RETURN(auto outcome, Run(rt, req.tenant_id, cmd, actor));
  core::Json j;
  j["id"] = cmd.key_id;
  j["tenantId"] = req.tenant_id;
  j["applicationId"] = core::StringOr(outcome.result, "applicationId");
  j["environment"] = req.environment;
  j["type"] = req.key_type;
  j["scopes"] = outcome.result.value("scopes", core::Json::array());
  j["name"] = req.name;
  j["flows"] = outcome.result.value("flows", core::Json::array());
  j["last4"] = material.last4;
  j["secret"] = material.plaintext;  // shown once
  core::SecureZero(material.plaintext);
  return j;
}

core::Result<core::Json> AdminKeyRevoke(Runtime& rt, const std::string& tenant_id,
                                        const std::string& key_id, const std::string& reason,
                                        const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, tenant_id));
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kApiKey, key_id));
  SVC_RETURN_IF_ERROR(Run(rt, tenant_id, tn::RevokeApiKey{key_id, reason}, actor).status());
  return ReadRow(rt, TV::Key(tenant_id, key_id));
}

core::Result<core::Json> AdminExportKeySet(Runtime& rt, const std::string& tenant_id, const std::string& public_key,
                                           const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, tenant_id));
  SVC_ASSIGN_OR_RETURN(auto outcome, Run(rt, tenant_id, tn::SetExportKey{public_key}, actor));
  return core::Json{{"tenantId", tenant_id},
                    {"exportKeyId", core::StringOr(outcome.result, "exportKeyId")},
                    {"publicKey", core::StringOr(outcome.result, "publicKey")}};
}

core::Result<core::Json> AdminReviewPolicySet(Runtime& rt, const std::string& tenant_id, const std::string& double_approval,
                                              double trust_below, const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, tenant_id));
  SVC_ASSIGN_OR_RETURN(auto outcome, Run(rt, tenant_id, tn::SetReviewPolicy{double_approval, trust_below}, actor));
  core::Json j = outcome.result;
  j["tenantId"] = tenant_id;
  return j;
}

core::Result<core::Json> AdminUserCreate(Runtime& rt, const std::string& tenant_id, const std::string& role,
                                         const std::string& label, const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, tenant_id));
  tn::NewKeyMaterial material = tn::GenerateUserSecret();
  tn::CreateUser cmd;
  cmd.user_id = rt.ids().NewIdString(core::IdKind::kUser);
  cmd.role = role;
  cmd.label = label;
  cmd.secret_hash = tn::HashApiKey(rt.api_key_lookup_key(), material.plaintext);
  cmd.last4 = material.last4;
  SVC_RETURN_IF_ERROR(Run(rt, tenant_id, cmd, actor).status());
  SVC_ASSIGN_OR_RETURN(core::Json j, ReadRow(rt, TV::User(tenant_id, cmd.user_id)));
  j["secret"] = material.plaintext;  // shown once: the user signs in to the review console with it
  core::SecureZero(material.plaintext);
  return j;
}

core::Result<core::Json> AdminUserList(Runtime& rt, const std::string& tenant_id) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, tenant_id));
  auto tenant = ReadRow(rt, TV::Tenant(tenant_id));
  if (!tenant.ok()) return core::NotFound("no such tenant", "TENANT_NOT_FOUND");
  SVC_ASSIGN_OR_RETURN(auto rows, ScanRows(rt, TV::Users(tenant_id)));
  return core::Json{{"object", "list"}, {"data", rows}};
}

core::Result<core::Json> AdminUserDisable(Runtime& rt, const std::string& tenant_id, const std::string& user_id,
                                          const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, tenant_id));
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kUser, user_id));
  SVC_RETURN_IF_ERROR(Run(rt, tenant_id, tn::DisableUser{user_id}, actor).status());
  return ReadRow(rt, TV::User(tenant_id, user_id));
}

core::Result<core::Json> AdminKeyList(Runtime& rt, const std::string& tenant_id) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, tenant_id));
  auto tenant = ReadRow(rt, TV::Tenant(tenant_id));
  if (!tenant.ok()) return core::NotFound("no such tenant", "TENANT_NOT_FOUND");
  SVC_ASSIGN_OR_RETURN(auto rows, ScanRows(rt, TV::Keys(tenant_id)));
  return core::Json{{"object", "list"}, {"data", rows}};
}


namespace {


// A string member, the default when absent; a member of another type is a validation error.
core::Result<std::string> StringField(const core::Json& body, const char* name,
                                      std::string fallback) {
  if (!body.contains(name) || body[name].is_null()) return fallback;
  if (!body[name].is_string()) {
    return core::InvalidArgument(std::string(name) + " must be a string", "VALIDATION_ERROR");
  }
  return body[name].get<std::string>();
}

}  // namespace

void AddAdminRoutes(Router& router, Runtime& rt, std::string service_key) {
  eventstore::Actor actor{"service", "admin"};
  auto guarded = [service_key](std::function<core::Result<core::Json>(HttpRequest&)> fn, int ok_status) {
    return AdminRoute(service_key, std::move(fn), ok_status);
  };
  router.Add("POST", "/admin/tenants", guarded([&rt, actor](HttpRequest& req) -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(auto body, AdminBody(req));
    SVC_ASSIGN_OR_RETURN(std::string name, StringField(body, "name", ""));
    return AdminTenantCreate(rt, name, actor);
  }, 201));
  router.Add("GET", "/admin/tenants",
             guarded([&rt](HttpRequest&) { return AdminTenantList(rt); }, 200));
  router.Add("POST", "/admin/tenants/{tenant_id}/applications",
             guarded([&rt, actor](HttpRequest& req) -> core::Result<core::Json> {
               SVC_ASSIGN_OR_RETURN(auto body, AdminBody(req));
               SVC_ASSIGN_OR_RETURN(std::string name, StringField(body, "name", ""));
               return AdminApplicationCreate(rt, req.path_params["tenant_id"], name, actor);
             }, 201));
  router.Add("POST", "/admin/tenants/{tenant_id}/keys",
             guarded([&rt, actor](HttpRequest& req) -> core::Result<core::Json> {
               SVC_ASSIGN_OR_RETURN(auto body, AdminBody(req));
               KeyCreateRequest k;
               k.tenant_id = req.path_params["tenant_id"];
               SVC_ASSIGN_OR_RETURN(k.environment, StringField(body, "environment", "test"));
               SVC_ASSIGN_OR_RETURN(k.key_type, StringField(body, "type", "secret"));
               if (body.contains("scopes") && body["scopes"].is_array()) {
                 k.scopes.clear();
                 for (const auto& s : body["scopes"]) {
                   if (!s.is_string()) return core::InvalidArgument("scopes must be strings", "VALIDATION_ERROR");
                   k.scopes.push_back(s.get<std::string>());
                 }
               }
               SVC_ASSIGN_OR_RETURN(k.name, StringField(body, "name", ""));
               SVC_ASSIGN_OR_RETURN(k.application_id, StringField(body, "applicationId", ""));
               if (body.contains("flows") && !body["flows"].is_null()) {
                 if (!body["flows"].is_array()) return core::InvalidArgument("flows must be flow ids", "VALIDATION_ERROR");
                 for (const auto& f : body["flows"]) {
                   if (!f.is_string()) return core::InvalidArgument("flows must be flow ids", "VALIDATION_ERROR");
                   k.flows.push_back(f.get<std::string>());
                 }
               }
               return AdminKeyCreate(rt, k, actor);
             }, 201));
  router.Add("GET", "/admin/tenants/{tenant_id}/keys",
             guarded([&rt](HttpRequest& req) { return AdminKeyList(rt, req.path_params["tenant_id"]); }, 200));
  router.Add("POST", "/admin/tenants/{tenant_id}/keys/{key_id}/revoke",
             guarded([&rt, actor](HttpRequest& req) -> core::Result<core::Json> {
               SVC_ASSIGN_OR_RETURN(auto body, AdminBody(req));
               SVC_ASSIGN_OR_RETURN(std::string reason, StringField(body, "reason", ""));
               return AdminKeyRevoke(rt, req.path_params["tenant_id"], req.path_params["key_id"],
                                     reason, actor);
             }, 200));
  // svc admin tenant review-policy: which resolutions need a second reviewer.
  router.Add("POST", "/admin/tenants/{tenant_id}/review-policy",
             guarded([&rt, actor](HttpRequest& req) -> core::Result<core::Json> {
               SVC_ASSIGN_OR_RETURN(auto body, AdminBody(req));
               SVC_ASSIGN_OR_RETURN(std::string mode, StringField(body, "doubleApproval", "none"));
               double below = 0;
               if (auto it = body.find("trustBelow"); it != body.end() && !it->is_null()) {
                 if (!it->is_number()) return core::InvalidArgument("trustBelow is a number", "VALIDATION_ERROR");
                 below = it->get<double>();
               }
               return AdminReviewPolicySet(rt, req.path_params["tenant_id"], mode, below, actor);
             }, 200));
  // svc admin user create | list | disable: review-console users.
  router.Add("POST", "/admin/tenants/{tenant_id}/users",
             guarded([&rt, actor](HttpRequest& req) -> core::Result<core::Json> {
               SVC_ASSIGN_OR_RETURN(auto body, AdminBody(req));
               SVC_ASSIGN_OR_RETURN(std::string role, StringField(body, "role", "reviewer"));
               SVC_ASSIGN_OR_RETURN(std::string label, StringField(body, "label", ""));
               return AdminUserCreate(rt, req.path_params["tenant_id"], role, label, actor);
             }, 201));
  router.Add("GET", "/admin/tenants/{tenant_id}/users",
             guarded([&rt](HttpRequest& req) { return AdminUserList(rt, req.path_params["tenant_id"]); }, 200));
  router.Add("POST", "/admin/tenants/{tenant_id}/users/{user_id}/disable",
             guarded([&rt, actor](HttpRequest& req) -> core::Result<core::Json> {
               return AdminUserDisable(rt, req.path_params["tenant_id"], req.path_params["user_id"], actor);
             }, 200));
  // svc tenant export-key: {"publicKey": base64url of a 32-byte X25519 public key}.
  router.Add("POST", "/admin/tenants/{tenant_id}/export-key",
             guarded([&rt, actor](HttpRequest& req) -> core::Result<core::Json> {
               SVC_ASSIGN_OR_RETURN(auto body, AdminBody(req));
               SVC_ASSIGN_OR_RETURN(std::string key, StringField(body, "publicKey", ""));
               return AdminExportKeySet(rt, req.path_params["tenant_id"], key, actor);
             }, 200));
  // svc admin master-key rotate, on a running server: {"newMasterKey": base64 of 32 bytes}.
  router.Add("POST", "/admin/master-key/rotate", guarded([&rt](HttpRequest& req) -> core::Result<core::Json> {
               SVC_ASSIGN_OR_RETURN(auto body, AdminBody(req));
               SVC_ASSIGN_OR_RETURN(std::string b64, StringField(body, "newMasterKey", ""));
               auto key = core::Base64Decode(b64);
               core::SecureZero(b64);
               if (!key.ok() || key->size() != 32) {
                 return core::InvalidArgument("newMasterKey must be the base64 of 32 random bytes", "VALIDATION_ERROR");
               }
               return rt.RotateMasterKey(std::move(*key));
             }, 200));
  // svc backup, on a running server: {"to": a directory on the server's machine}.
  router.Add("POST", "/admin/backup", guarded([&rt](HttpRequest& req) -> core::Result<core::Json> {
               SVC_ASSIGN_OR_RETURN(auto body, AdminBody(req));
               SVC_ASSIGN_OR_RETURN(std::string to, StringField(body, "to", ""));
               if (to.empty()) return core::InvalidArgument("to: the backup directory is required", "VALIDATION_ERROR");
               return rt.Backup(to);
             }, 200));
}

}  // namespace svc::api
