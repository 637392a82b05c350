#include "projections/tenancy_projector.h"

#include "commands/tenancy/tenancy_events.h"
#include "core/json.h"

#include <atomic>

namespace svc::projections {

namespace tn = commands::tenancy;

namespace {
std::atomic<uint64_t> g_key_generation{0};
}  // namespace

uint64_t TenancyProjector::KeyGeneration() { return g_key_generation.load(); }

void TenancyProjector::AfterCommit() {
  if (keys_changed_) g_key_generation.fetch_add(1);
  keys_changed_ = false;
}

core::Status TenancyProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type != "tenant") return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(tn::TenancyEvent event, tn::Decode(env));
  if (std::holds_alternative<tn::ApiKeyCreated>(event) || std::holds_alternative<tn::ApiKeyRevoked>(event) ||
      std::holds_alternative<tn::UserCreated>(event) || std::holds_alternative<tn::UserDisabled>(event) ||
      std::holds_alternative<tn::ApplicationArchived>(event)) {
    keys_changed_ = true;
  }
  const std::string& tenant = env.tenant_id;
  std::string at = core::FormatRfc3339(env.occurred_at);
  return std::visit(
      [&](const auto& e) -> core::Status {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, tn::TenantCreated>) {
          core::Json j;
          j["id"] = tenant;
          j["name"] = e.name;
          j["createdAt"] = at;
          j["defaultApplicationId"] = nullptr;
          view.Put(TenancyView::Tenant(tenant), core::DumpJson(j));
        } else if constexpr (std::is_same_v<T, tn::ApplicationCreated>) {
          core::Json j;
          j["id"] = e.application_id;
          j["tenantId"] = tenant;
          j["name"] = e.name;
          j["isDefault"] = e.is_default;
          j["createdAt"] = at;
          j["archivedAt"] = nullptr;
          j["allowedFlows"] = core::Json::array();
          j["defaultFlow"] = nullptr;
          j["allowedOrigins"] = core::Json::array();
          view.Put(TenancyView::Application(tenant, e.application_id), core::DumpJson(j));
          if (e.is_default) {
            SVC_ASSIGN_OR_RETURN(auto row, view.Get(TenancyView::Tenant(tenant)));
            if (!row.has_value()) return core::DataLoss("application before its tenant");
            core::Json t = core::ParseJsonOrDiscarded(*row);
            t["defaultApplicationId"] = e.application_id;
            view.Put(TenancyView::Tenant(tenant), core::DumpJson(t));
          }
        } else if constexpr (std::is_same_v<T, tn::ApiKeyCreated>) {
          core::Json j;
          j["id"] = e.key_id;
          j["tenantId"] = tenant;
          j["applicationId"] = e.application_id;
          j["environment"] = e.environment;
          j["keyType"] = e.key_type;
          j["scopes"] = e.scopes;
          j["last4"] = e.last4;
          j["name"] = e.name;
          j["flows"] = e.flows;
          j["createdAt"] = at;
          j["revokedAt"] = nullptr;
          view.Put(TenancyView::Key(tenant, e.key_id), core::DumpJson(j));
          core::Json h;
          h["tenantId"] = tenant;
          h["keyId"] = e.key_id;
          view.Put(TenancyView::KeyBySecretHash(e.secret_hash), core::DumpJson(h));
        } else if constexpr (std::is_same_v<T, tn::ApiKeyRevoked>) {
          std::string k = TenancyView::Key(tenant, e.key_id);
          SVC_ASSIGN_OR_RETURN(auto row, view.Get(k));
          if (!row.has_value()) return core::DataLoss("revocation of an unknown key");
          core::Json j = core::ParseJsonOrDiscarded(*row);
          if (j["revokedAt"].is_null()) j["revokedAt"] = at;
          view.Put(k, core::DumpJson(j));
        } else if constexpr (std::is_same_v<T, tn::UserCreated>) {
          view.Put(TenancyView::User(tenant, e.user_id), core::DumpJson({{"id", e.user_id},
                                                                         {"object", "user"},
                                                                         {"tenantId", tenant},
                                                                         {"role", e.role},
                                                                         {"label", e.label},
                                                                         {"last4", e.last4},
                                                                         {"createdAt", at},
                                                                         {"disabledAt", nullptr}}));
          view.Put(TenancyView::UserBySecretHash(e.secret_hash),
                   core::DumpJson({{"tenantId", tenant}, {"userId", e.user_id}}));
        } else if constexpr (std::is_same_v<T, tn::UserDisabled>) {
          const std::string k = TenancyView::User(tenant, e.user_id);
          SVC_ASSIGN_OR_RETURN(auto row, view.Get(k));
          if (!row.has_value()) return core::DataLoss("disabling an unknown user");
          core::Json j = core::ParseJsonOrDiscarded(*row);
          if (j["disabledAt"].is_null()) j["disabledAt"] = at;
          view.Put(k, core::DumpJson(j));
        } else if constexpr (std::is_same_v<T, tn::ReviewPolicySet>) {
          SVC_ASSIGN_OR_RETURN(auto row, view.Get(TenancyView::Tenant(tenant)));
          if (!row.has_value()) return core::DataLoss("review policy before its tenant");
          core::Json t = core::ParseJsonOrDiscarded(*row);
          t["reviewPolicy"] = {{"doubleApproval", e.double_approval}, {"trustBelow", e.trust_below}, {"setAt", at}};
          view.Put(TenancyView::Tenant(tenant), core::DumpJson(t));
        } else if constexpr (std::is_same_v<T, tn::ApplicationArchived> ||
                             std::is_same_v<T, tn::ApplicationSettingsSet>) {
          const std::string k = TenancyView::Application(tenant, e.application_id);
          SVC_ASSIGN_OR_RETURN(auto row, view.Get(k));
          if (!row.has_value()) return core::DataLoss("a change of an unknown application");
          core::Json j = core::ParseJsonOrDiscarded(*row);
          if constexpr (std::is_same_v<T, tn::ApplicationArchived>) {
            if (j.value("archivedAt", core::Json()).is_null()) j["archivedAt"] = at;
          } else {
            j["allowedFlows"] = e.allowed_flows;
            j["defaultFlow"] = e.default_flow.empty() ? core::Json(nullptr) : core::Json(e.default_flow);
            j["allowedOrigins"] = e.allowed_origins;
            j["privacyNoticeUrl"] = e.privacy_notice_url.empty() ? core::Json(nullptr) : core::Json(e.privacy_notice_url);
            j["updatedAt"] = at;
          }
          view.Put(k, core::DumpJson(j));
        } else if constexpr (std::is_same_v<T, tn::ExportKeySet>) {
          SVC_ASSIGN_OR_RETURN(auto row, view.Get(TenancyView::Tenant(tenant)));
          if (!row.has_value()) return core::DataLoss("export key before its tenant");
          core::Json t = core::ParseJsonOrDiscarded(*row);
          t["exportKey"] = {{"keyId", e.key_id}, {"publicKey", e.public_key}, {"setAt", at}};
          view.Put(TenancyView::Tenant(tenant), core::DumpJson(t));
        }
        return core::Status::Ok();
      },
      event);
}

}  // namespace svc::projections
