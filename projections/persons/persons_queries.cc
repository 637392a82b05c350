#include "projections/persons/persons_queries.h"

#include "projections/persons/persons_view.h"
#include <map>

#include "projections/projector.h"
#include "projections/view_rows.h"

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

core::Result<std::vector<std::string>> PersonsWithBlindKey(const eventstore::KvStore& views, std::string_view te,
                                                           std::string_view blind_key) {
  const std::string prefix = PersonsView::Abs(PersonsView::BlindIndexed(te, blind_key));
  std::vector<std::string> out;
  auto it = views.NewIterator(views.Cf(kViewsCf), prefix, eventstore::PrefixEnd(prefix));
  for (it->Seek(prefix); it->Valid(); it->Next()) out.emplace_back(it->key().substr(prefix.size()));
  SVC_RETURN_IF_ERROR(it->status());
  return out;
}

core::Result<std::vector<PersonDuplicate>> FindDuplicates(const eventstore::KvStore& views, std::string_view te,
                                                          const std::string& person_id) {
  using PV = PersonsView;
  SVC_ASSIGN_OR_RETURN(auto sealed, ReadRow(views, PV::Abs(PV::Sealed(te, person_id))));
  std::map<std::string, std::vector<std::string>> matched;  // person -> fields, in field order
  for (const char* field : {"curp", "email"}) {
    if (!sealed.has_value() || !sealed->contains(field)) continue;
    for (const auto& key : (*sealed)[field].value("index", core::Json::array())) {
      if (!key.is_string()) continue;
      SVC_ASSIGN_OR_RETURN(auto holding, PersonsWithBlindKey(views, te, key.get<std::string>()));
      for (const auto& other : holding) {
        auto& fields = matched[other];
        if (other != person_id && (fields.empty() || fields.back() != field)) fields.push_back(field);
      }
    }
  }
  std::vector<PersonDuplicate> out;
  for (auto& [other, fields] : matched) {
    if (fields.empty()) continue;
    SVC_ASSIGN_OR_RETURN(auto record, ReadRow(views, PV::Abs(PV::Record(te, other))));
    if (record.has_value()) out.push_back({other, std::move(fields), std::move(*record)});
  }
  return out;
}

}  // namespace svc::projections
