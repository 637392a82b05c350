#include "projections/embedded/embedded_queries.h"

#include "projections/sessions_view.h"
#include "projections/tenancy_view.h"
#include "projections/view_rows.h"

namespace svc::projections {

core::Result<core::Json> IntegratorOf(const eventstore::KvStore& views, std::string_view tenant,
                                      const core::Json& session_record) {
  const std::string app = core::StringOr(session_record, "applicationId");
  core::Json out = {{"name", nullptr}, {"privacyNoticeUrl", nullptr}};
  if (app.empty()) return out;
  SVC_ASSIGN_OR_RETURN(auto row, ReadRow(views, TenancyView::Abs(TenancyView::Application(tenant, app))));
  if (!row.has_value()) return out;
  out["name"] = row->value("name", core::Json(nullptr));
  out["privacyNoticeUrl"] = row->value("privacyNoticeUrl", core::Json(nullptr));
  return out;
}

core::Result<core::Json> MountAnswer(const eventstore::KvStore& views, const core::Json& embedded,
                                     const std::string& embedded_id, const std::string& applicant_token) {
  const std::string te = TenantEnv(core::StringOr(embedded, "tenantId"), core::StringOr(embedded, "environment"));
  const std::string sid = core::StringOr(embedded, "sessionId");
  SVC_ASSIGN_OR_RETURN(auto rec, ReadRow(views, SessionsView::Abs(SessionsView::Record(te, sid))));
  if (!rec.has_value()) return core::Unavailable("the session is not readable yet");
  const core::Json& r = *rec;
  core::Json out = {{"sessionId", embedded_id},
                    {"verificationSessionId", sid},
                    {"applicantToken", applicant_token},
                    {"allowedOrigins", embedded.value("allowedOrigins", core::Json::array())},
                    {"expiresAt", r.value("expiresAt", core::Json(nullptr))},
                    {"status", "mounted"},
                    {"verificationStatus", r.value("status", core::Json(nullptr))},
                    {"requiresApp", false},
                    {"locale", r.value("locale", core::Json("es-MX"))}};
  SVC_ASSIGN_OR_RETURN(out["integrator"], IntegratorOf(views, core::StringOr(embedded, "tenantId"), r));
  out["flow"] = {{"id", r.value("flowId", core::Json(nullptr))},
                 {"steps", embedded.value("steps", core::Json::array())},
                 {"livenessMode", embedded.value("livenessMode", "passive")},
                 {"livenessFileAllowed", embedded.value("livenessFileAllowed", false)}};
  return out;
}

}  // namespace svc::projections
