#include "pipeline/verification/report_inputs.h"

#include "pipeline/certificate.h"
#include "projections/sessions_view.h"
#include "projections/verification_view.h"
#include "projections/view_rows.h"

namespace svc::pipeline::verification {

using SV = projections::SessionsView;
using VV = projections::VerificationView;

core::Result<ReportInputs> ReadReportInputs(const eventstore::KvStore& store, const core::Json& session,
                                            const std::string& environment) {
  const std::string id = core::StringOr(session, "id");
  const std::string te = projections::TenantEnv(core::StringOr(session, "tenantId"), environment);
  ReportInputs in;
  in.session = session;
  in.environment = environment;
  SVC_ASSIGN_OR_RETURN(auto consent, projections::ReadRow(store, SV::Abs(SV::Consent(te, id))));
  in.consent = consent.value_or(core::Json(nullptr));
  SVC_ASSIGN_OR_RETURN(in.media, projections::ScanRows(store, VV::Abs(VV::Media(te, id))));
  SVC_ASSIGN_OR_RETURN(auto sub, projections::ReadRow(store, VV::Abs(VV::Submission(te, id))));
  in.verdict = nullptr;
  if (sub.has_value()) {
    std::string trk = core::StringOr(*sub, "trackingId");
    for (auto name : kStages) {
      SVC_ASSIGN_OR_RETURN(auto row, projections::ReadRow(store, VV::Abs(VV::Stage(te, id, trk, name))));
      if (row.has_value()) in.stages[std::string(name)] = *row;
    }
    SVC_ASSIGN_OR_RETURN(auto verdict, projections::ReadRow(store, VV::Abs(VV::Verdict(te, id))));
    if (verdict.has_value() && core::StringOr(*verdict, "trackingId") == trk) in.verdict = *verdict;
  }
  return in;
}

bool CertificateIssued(const ReportInputs& in) {
  const std::string status = core::StringOr(in.session, "status");
  return (status == "approved" || status == "declined") && in.verdict.is_object();
}

core::Result<std::optional<std::string>> CertificateDigest(const eventstore::KvStore& store,
                                                           const std::string& tenant,
                                                           const std::string& environment,
                                                           const std::string& session_id) {
  SVC_ASSIGN_OR_RETURN(auto session, projections::ReadRow(store, SV::Abs(SV::Record(
                                                                     projections::TenantEnv(tenant, environment), session_id))));
  if (!session.has_value()) return std::optional<std::string>();
  SVC_ASSIGN_OR_RETURN(ReportInputs in, ReadReportInputs(store, *session, environment));
  if (!CertificateIssued(in)) return std::optional<std::string>();
  SVC_ASSIGN_OR_RETURN(std::string digest, CertificateContentHash(BuildCertificateContent(in)));
  return std::optional<std::string>(std::move(digest));
}

}  // namespace svc::pipeline::verification
