#include "projections/kyb/company_reads.h"

#include "projections/kyb/kyb_view.h"
#include "projections/view_rows.h"

namespace svc::projections {

core::Result<std::optional<core::Json>> CompanyAsCreatedRow(const eventstore::KvStore& store, std::string_view te,
                                                            std::string_view id) {
  SVC_ASSIGN_OR_RETURN(auto created, ReadRow(store, KybView::Abs(KybView::CompanyAsCreated(te, id))));
  if (created.has_value()) return created;
  return ReadRow(store, KybView::Abs(KybView::Company(te, id)));
}

}  // namespace svc::projections
