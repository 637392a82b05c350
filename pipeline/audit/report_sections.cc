#include "pipeline/audit/report_sections.h"

#include "pipeline/audit/history.h"
#include "projections/audit/audit_view.h"
#include "projections/persons/arco_queries.h"
#include "projections/persons/arco_view.h"
#include "projections/sessions_queries.h"
#include "projections/sessions_view.h"
#include "projections/view_key.h"

namespace svc::pipeline::audit {

core::Result<ReportSections> ComputeReportSections(const ReportSectionsInput& in) {
  const std::string te = projections::TenantEnv(in.tenant, in.environment);
  const core::Timestamp at = in.as_of.value_or(in.now);
  ReportSections out;
  // Over the live read models, or a scratch store of them as they stood at the moment (whose
  // chain is walked whole: the live verifier's marks are the live chain's).
  auto read = [&](const eventstore::KvStore& views, bool scratch) -> core::Status {
    SVC_ASSIGN_OR_RETURN(out.chain, scratch ? projections::VerifyStoredChain(views, te) : in.verifier->Verify(views, te));
    SVC_ASSIGN_OR_RETURN(out.volume, projections::VerificationVolume(views, te, at));
    SVC_ASSIGN_OR_RETURN(out.arco, projections::ArcoCounts(views, te, at.micros));
    return core::Status::Ok();
  };
  if (!in.as_of.has_value()) {
    SVC_RETURN_IF_ERROR(read(*in.views, false));
    out.as_of = nullptr;
    return out;
  }
  const core::Status replayed = AtMoment(
      *in.log, in.projectors, in.scratch_dir,
      {projections::AuditView::kName, projections::SessionsView::kName, projections::ArcoView::kName}, in.tenant,
      *in.as_of, [&](const eventstore::KvStore& views, const projections::TenantReplay& r) {
        SVC_RETURN_IF_ERROR(read(views, true));
        out.as_of = {{"asOf", core::FormatRfc3339Micros(*in.as_of)},
                     {"tenantEventsReplayed", r.tenant_events},
                     {"through", r.through}};
        return core::Status::Ok();
      });
  SVC_RETURN_IF_ERROR(replayed);
  return out;
}

}  // namespace svc::pipeline::audit
