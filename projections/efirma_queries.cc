#include "projections/efirma_queries.h"

#include "core/json.h"
#include "projections/efirma_view.h"
#include "projections/view_rows.h"

namespace svc::projections {

core::Result<std::string> LatestEfirmaCheckId(const eventstore::KvStore& views, std::string_view te,
                                              std::string_view session_id) {
  SVC_ASSIGN_OR_RETURN(auto row, ReadRow(views, EfirmaView::Abs(EfirmaView::Latest(te, session_id))));
  return row.has_value() ? core::StringOr(*row, "challengeId") : std::string();
}

}  // namespace svc::projections
