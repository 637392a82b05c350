#include "projections/embedded/embedded_queries.h"

#include "commands/verification/session_status.h"

#include <set>

#include "projections/sessions_view.h"
#include "projections/tenancy_view.h"
#include "projections/verification_view.h"
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

core::Result<core::Json> ApplicantResume(const eventstore::KvStore& views, const std::string& te,
                                         const std::string& session_id, const core::Json& r,
                                         const OpenApplicantWords& open_words) {
  using VV = VerificationView;
  SVC_ASSIGN_OR_RETURN(auto submission, ReadRow(views, VV::Abs(VV::Submission(te, session_id))));
  std::set<std::string> submitted;
  if (submission.has_value()) {
    for (const auto& m : submission->value("mediaIds", core::Json::array())) {
      if (m.is_string()) submitted.insert(m.get<std::string>());
    }
  }
  SVC_ASSIGN_OR_RETURN(auto media, ScanRows(views, VV::Abs(VV::Media(te, session_id))));
  std::set<std::string> kinds;
  for (const auto& m : media) {
    if (submitted.count(core::StringOr(m, "mediaId")) == 0) kinds.insert(core::StringOr(m, "kind"));
  }
  SVC_ASSIGN_OR_RETURN(auto consent, ReadRow(views, SessionsView::Abs(SessionsView::Consent(te, session_id))));
  // Asked for more information: the captures the verdict named (the page asks for those only).
  std::vector<std::string> requested;
  if (core::StringOr(r, "status") == "awaiting_input") {
    SVC_ASSIGN_OR_RETURN(auto verdict, ReadRow(views, VV::Abs(VV::Verdict(te, session_id))));
    if (verdict.has_value()) {
      requested = commands::verification::RequestedCaptures(
          verdict->value("reasonCodes", std::vector<std::string>{}));
    }
  }
  core::Json asked = r.value("requestedInput", core::Json(nullptr));
  if (asked.is_object()) open_words(asked);
  return core::Json{{"consentGiven", consent.has_value() && consent->value("consentGiven", false) == true},
                    {"requestedCaptures", requested},
                    {"requestedInput", std::move(asked)},
                    {"processing", core::StringOr(r, "currentStep") == "processing"},
                    {"submission", submission.has_value() ? submission->value("trackingId", core::Json(nullptr))
                                                          : core::Json(nullptr)},
                    {"capturedKinds", kinds}};
}

core::Result<core::Json> MountAnswer(const eventstore::KvStore& views, const core::Json& embedded,
                                     const std::string& embedded_id, const std::string& applicant_token,
                                     const OpenApplicantWords& open_words) {
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
  SVC_ASSIGN_OR_RETURN(out["resume"], ApplicantResume(views, te, sid, r, open_words));
  return out;
}

}  // namespace svc::projections
