// The embedded channel's operator side (docs/embedded.md#operators): flows (create, draft,
// publish, archive, list, show), applications (list, archive, embedded settings). The spec leaves
// their management to a dashboard; here they are admin-socket routes and `svc admin flow|app`.
// Keys restricted to flows are made by AdminKeyCreate (admin.cc) with `flows`.

#include <algorithm>

#include "api/http/write_path.h"
#include "api/embedded/routes.h"
#include "api/http/admin_route.h"
#include "api/http/json_input.h"
#include "commands/embedded/flow_decider.h"
#include "commands/embedded/flow_graph.h"
#include "commands/tenancy/tenant_decider.h"
#include "core/log.h"
#include "projections/embedded/embedded_view.h"
#include "projections/tenancy_view.h"

namespace svc::api {

namespace ce = commands::embedded;
namespace tn = commands::tenancy;
using EV = projections::EmbeddedView;
using TV = projections::TenancyView;

namespace {

core::Status TenantExists(Runtime& rt, const std::string& tenant_id) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kTenant, tenant_id));
  SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, TV::Abs(TV::Tenant(tenant_id))));
  if (!row.has_value()) return core::NotFound("no such tenant", "TENANT_NOT_FOUND");
  return core::Status::Ok();
}

core::Result<core::Json> FlowRow(Runtime& rt, const std::string& tenant_id, const std::string& flow_id) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kFlow, flow_id));
  SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, EV::Abs(EV::Flow(tenant_id, flow_id))));
  if (!row.has_value()) return core::NotFound("no such flow", "FLOW_NOT_FOUND");
  return *row;
}

core::Status DefinitionShape(const core::Json& definition) {
  if (!definition.is_object()) return core::InvalidArgument("definition must be a JSON object", "VALIDATION_ERROR");
  if (core::DumpJson(definition).size() > 64 * 1024) {
    return core::InvalidArgument("definition is at most 64 KiB", "VALIDATION_ERROR");
  }
  return core::Status::Ok();
}

}  // namespace

core::Result<core::Json> AdminFlowCreate(Runtime& rt, const std::string& tenant_id, const std::string& key,
                                         const std::string& name, const core::Json& definition,
                                         const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  if (!ce::ValidFlowKey(key)) {
    return core::InvalidArgument("key is 1-64 of a-z, 0-9, _ and -, from a letter or digit", "VALIDATION_ERROR");
  }
  if (name.empty() || name.size() > 200) return core::InvalidArgument("name is 1-200 characters", "VALIDATION_ERROR");
  SVC_RETURN_IF_ERROR(DefinitionShape(definition));
  const std::string id = ce::FlowIdFor(tenant_id, key);
  SVC_RETURN_IF_ERROR(AdminRun<ce::FlowDecider>(rt, tenant_id, id,
                                             ce::FlowCommand(ce::CreateFlow{ce::FlowCreated{key, name, definition}}), actor)
                          .status());
  return FlowRow(rt, tenant_id, id);
}

core::Result<core::Json> AdminFlowDraft(Runtime& rt, const std::string& tenant_id, const std::string& flow_id,
                                        const core::Json& definition, const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  SVC_RETURN_IF_ERROR(FlowRow(rt, tenant_id, flow_id).status());
  SVC_RETURN_IF_ERROR(DefinitionShape(definition));
  SVC_RETURN_IF_ERROR(
      AdminRun<ce::FlowDecider>(rt, tenant_id, flow_id, ce::FlowCommand(ce::UpdateFlowDraft{definition}), actor).status());
  return FlowRow(rt, tenant_id, flow_id);
}

core::Result<core::Json> AdminFlowPublish(Runtime& rt, const std::string& tenant_id, const std::string& flow_id,
                                          const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  SVC_RETURN_IF_ERROR(FlowRow(rt, tenant_id, flow_id).status());
  SVC_RETURN_IF_ERROR(
      AdminRun<ce::FlowDecider>(rt, tenant_id, flow_id, ce::FlowCommand(ce::PublishFlow{}), actor).status());
  return FlowRow(rt, tenant_id, flow_id);
}

core::Result<core::Json> AdminFlowArchive(Runtime& rt, const std::string& tenant_id, const std::string& flow_id,
                                          const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  SVC_RETURN_IF_ERROR(FlowRow(rt, tenant_id, flow_id).status());
  SVC_RETURN_IF_ERROR(
      AdminRun<ce::FlowDecider>(rt, tenant_id, flow_id, ce::FlowCommand(ce::ArchiveFlow{}), actor).status());
  return FlowRow(rt, tenant_id, flow_id);
}

core::Result<core::Json> AdminFlowValidate(Runtime& rt, const std::string& tenant_id, const std::string& flow_id) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  SVC_ASSIGN_OR_RETURN(core::Json row, FlowRow(rt, tenant_id, flow_id));
  auto issues = ce::ValidateFlow(row.value("draft", core::Json::object()));
  return core::Json{{"flowId", flow_id}, {"publishable", issues.empty()}, {"issues", ce::IssuesJson(issues)}};
}

core::Result<core::Json> AdminFlowShow(Runtime& rt, const std::string& tenant_id, const std::string& flow_id) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  SVC_ASSIGN_OR_RETURN(core::Json row, FlowRow(rt, tenant_id, flow_id));
  SVC_ASSIGN_OR_RETURN(auto versions, ScanView(rt, EV::Abs(EV::FlowVersions(tenant_id, flow_id))));
  row["versions"] = versions;
  return row;
}

core::Result<core::Json> AdminFlowList(Runtime& rt, const std::string& tenant_id) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  SVC_ASSIGN_OR_RETURN(auto rows, ScanView(rt, EV::Abs(EV::Flows(tenant_id))));
  for (auto& r : rows) r.erase("draft");
  std::sort(rows.begin(), rows.end(), [](const core::Json& a, const core::Json& b) {
    return core::StringOr(a, "key") < core::StringOr(b, "key");
  });
  return core::Json{{"object", "list"}, {"data", rows}};
}

core::Result<core::Json> AdminApplicationList(Runtime& rt, const std::string& tenant_id) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  SVC_ASSIGN_OR_RETURN(auto rows, ScanView(rt, TV::Abs(TV::Application(tenant_id, ""))));
  return core::Json{{"object", "list"}, {"data", rows}};
}

core::Result<core::Json> AdminApplicationArchive(Runtime& rt, const std::string& tenant_id,
                                                 const std::string& application_id, const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kApplication, application_id));
  SVC_RETURN_IF_ERROR(AdminRun<tn::TenantDecider>(rt, tenant_id, tenant_id,
                                               tn::TenancyCommand(tn::ArchiveApplication{application_id}), actor)
                          .status());
  SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, TV::Abs(TV::Application(tenant_id, application_id))));
  return row.value_or(core::Json::object());
}

core::Result<core::Json> AdminApplicationSettings(Runtime& rt, const std::string& tenant_id,
                                                  const std::string& application_id, const ApplicationSettings& s,
                                                  const eventstore::Actor& actor) {
  SVC_RETURN_IF_ERROR(TenantExists(rt, tenant_id));
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kApplication, application_id));
  // Flows are their own aggregates: each named one must exist in the tenant (an archived one may
  // stay allowed; no new session starts with it).
  std::vector<std::string> named = s.allowed_flows;
  if (!s.default_flow.empty()) named.push_back(s.default_flow);
  for (const auto& f : named) SVC_RETURN_IF_ERROR(FlowRow(rt, tenant_id, f).status());
  tn::SetApplicationSettings cmd{application_id, s.allowed_flows, s.default_flow, s.allowed_origins,
                                 s.privacy_notice_url};
  SVC_RETURN_IF_ERROR(
      AdminRun<tn::TenantDecider>(rt, tenant_id, tenant_id, tn::TenancyCommand(cmd), actor).status());
  SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, TV::Abs(TV::Application(tenant_id, application_id))));
  return row.value_or(core::Json::object());
}

core::Status CheckFlowsExist(Runtime& rt, const std::string& tenant_id, const std::vector<std::string>& flows) {
  for (const auto& f : flows) SVC_RETURN_IF_ERROR(FlowRow(rt, tenant_id, f).status());
  return core::Status::Ok();
}

namespace {

core::Result<std::vector<std::string>> Strings(const core::Json& body, const char* name) {
  std::vector<std::string> out;
  if (!body.contains(name) || body[name].is_null()) return out;
  if (!body[name].is_array()) return core::InvalidArgument(std::string(name) + " must be an array of strings", "VALIDATION_ERROR");
  for (const auto& v : body[name]) {
    if (!v.is_string()) return core::InvalidArgument(std::string(name) + " must be an array of strings", "VALIDATION_ERROR");
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

void AddEmbeddedAdminRoutes(Router& router, Runtime& rt, const std::string& service_key) {
  eventstore::Actor actor{"service", "admin"};
  Runtime* r = &rt;
  auto add = [&](const char* method, const char* path, std::function<core::Result<core::Json>(HttpRequest&)> fn,
                 int ok = 200) { router.Add(method, path, AdminRoute(service_key, std::move(fn), ok)); };
  add("POST", "/admin/tenants/{tenant_id}/flows", [r, actor](HttpRequest& req) -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(core::Json b, AdminBody(req));
    return AdminFlowCreate(*r, req.path_params["tenant_id"], core::StringOr(b, "key"), core::StringOr(b, "name"),
                           b.value("definition", core::Json::object()), actor);
  }, 201);
  add("GET", "/admin/tenants/{tenant_id}/flows",
      [r](HttpRequest& req) { return AdminFlowList(*r, req.path_params["tenant_id"]); });
  add("GET", "/admin/tenants/{tenant_id}/flows/{flow_id}",
      [r](HttpRequest& req) { return AdminFlowShow(*r, req.path_params["tenant_id"], req.path_params["flow_id"]); });
  add("POST", "/admin/tenants/{tenant_id}/flows/{flow_id}/draft", [r, actor](HttpRequest& req) -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(core::Json b, AdminBody(req));
    if (!b.contains("definition")) return core::InvalidArgument("body: {definition}", "VALIDATION_ERROR");
    return AdminFlowDraft(*r, req.path_params["tenant_id"], req.path_params["flow_id"], b["definition"], actor);
  });
  add("POST", "/admin/tenants/{tenant_id}/flows/{flow_id}/validate", [r](HttpRequest& req) {
    return AdminFlowValidate(*r, req.path_params["tenant_id"], req.path_params["flow_id"]);
  });
  add("POST", "/admin/tenants/{tenant_id}/flows/{flow_id}/publish", [r, actor](HttpRequest& req) {
    return AdminFlowPublish(*r, req.path_params["tenant_id"], req.path_params["flow_id"], actor);
  });
  add("POST", "/admin/tenants/{tenant_id}/flows/{flow_id}/archive", [r, actor](HttpRequest& req) {
    return AdminFlowArchive(*r, req.path_params["tenant_id"], req.path_params["flow_id"], actor);
  });
  add("GET", "/admin/tenants/{tenant_id}/applications",
      [r](HttpRequest& req) { return AdminApplicationList(*r, req.path_params["tenant_id"]); });
  add("POST", "/admin/tenants/{tenant_id}/applications/{application_id}/archive", [r, actor](HttpRequest& req) {
    return AdminApplicationArchive(*r, req.path_params["tenant_id"], req.path_params["application_id"], actor);
  });
  add("POST", "/admin/tenants/{tenant_id}/applications/{application_id}/settings",
      [r, actor](HttpRequest& req) -> core::Result<core::Json> {
        SVC_ASSIGN_OR_RETURN(core::Json b, AdminBody(req));
        ApplicationSettings s;
        SVC_ASSIGN_OR_RETURN(s.allowed_flows, Strings(b, "allowedFlows"));
        SVC_ASSIGN_OR_RETURN(s.allowed_origins, Strings(b, "allowedOrigins"));
        if (b.contains("defaultFlow") && !b["defaultFlow"].is_null() && !b["defaultFlow"].is_string()) {
          return core::InvalidArgument("defaultFlow must be a flow id or null", "VALIDATION_ERROR");
        }
        s.default_flow = core::StringOr(b, "defaultFlow");
        if (b.contains("privacyNoticeUrl") && !b["privacyNoticeUrl"].is_null() && !b["privacyNoticeUrl"].is_string()) {
          return core::InvalidArgument("privacyNoticeUrl must be a URL or null", "VALIDATION_ERROR");
        }
        s.privacy_notice_url = core::StringOr(b, "privacyNoticeUrl");
        return AdminApplicationSettings(*r, req.path_params["tenant_id"], req.path_params["application_id"], s, actor);
      });
}

}  // namespace svc::api
