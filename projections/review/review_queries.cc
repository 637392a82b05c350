#include "projections/review/review_queries.h"

#include "projections/review/review_view.h"
#include "projections/sessions_view.h"
#include "projections/view_rows.h"

namespace svc::projections {

core::Result<core::Json> ResolutionAnswer(const eventstore::KvStore& views, std::string_view te,
                                          std::string_view case_id, std::string_view session_id,
                                          const core::Json& result) {
  SVC_ASSIGN_OR_RETURN(auto row, ReadRow(views, ReviewView::Abs(ReviewView::Case(te, case_id))));
  if (!row.has_value()) return core::Unavailable("the case is not readable yet");
  std::string session_status;
  if (!session_id.empty()) {
    auto session = ReadRow(views, SessionsView::Abs(SessionsView::Record(te, session_id)));
    if (session.ok() && session->has_value()) session_status = core::StringOr(**session, "status");
  }
  return core::Json{{"caseId", case_id},
                    {"caseStatus", (*row)["status"]},
                    {"sessionStatus", session_status},
                    {"awaitingSecondApproval", result.value("awaitingSecondApproval", false)},
                    {"outcome", result.value("outcome", core::Json(nullptr))}};
}

}  // namespace svc::projections
