#include "projections/sessions_queries.h"

#include "projections/sessions_view.h"
#include "projections/view_rows.h"

namespace svc::projections {

core::Result<core::Json> ConsentAnswer(const eventstore::KvStore& views, std::string_view te, std::string_view session_id) {
  SVC_ASSIGN_OR_RETURN(auto consent, ReadRow(views, SessionsView::Abs(SessionsView::Consent(te, session_id))));
  SVC_ASSIGN_OR_RETURN(auto record, ReadRow(views, SessionsView::Abs(SessionsView::Record(te, session_id))));
  if (!consent.has_value() || !record.has_value()) return core::Unavailable("consent stored; read it again");
  core::Json out;
  out["consentGiven"] = (*consent)["consentGiven"];
  out["recordedAt"] = (*consent)["recordedAt"];
  out["status"] = (*record)["status"];
  return out;
}

}  // namespace svc::projections
