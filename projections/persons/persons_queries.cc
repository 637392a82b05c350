#include "projections/persons/persons_queries.h"

#include "projections/persons/persons_view.h"
#include "projections/projector.h"

namespace svc::projections {

core::Result<PersonsPage> PagePersons(const eventstore::KvStore& views, std::string_view te,
                                      const std::vector<std::string>& ids, const std::string& starting_after,
                                      int limit) {
  std::vector<std::string> keys;
  keys.reserve(ids.size());
  for (const auto& id : ids) keys.push_back(PersonsView::Abs(PersonsView::Record(te, id)));
  SVC_ASSIGN_OR_RETURN(auto rows, views.MultiGet(views.Cf(kViewsCf), keys));
  PersonsPage page;
  int count = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!rows[i].has_value()) continue;
    ++page.total;
    if (!starting_after.empty() && ids[i] <= starting_after) continue;
    if (count == limit) {
      page.has_more = true;
      continue;
    }
    if (count++ > 0) page.data += ',';
    page.data += *rows[i];
    page.last = ids[i];
  }
  return page;
}

}  // namespace svc::projections
