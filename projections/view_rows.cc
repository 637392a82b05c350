#include "projections/view_rows.h"

#include "projections/projector.h"

namespace svc::projections {

core::Result<std::optional<core::Json>> ReadRow(const eventstore::KvStore& store, const std::string& key) {
  SVC_ASSIGN_OR_RETURN(auto row, store.Get(store.Cf(kViewsCf), key));
  if (!row.has_value()) return std::optional<core::Json>();
  return std::optional<core::Json>(core::ParseJsonOrDiscarded(*row));
}

core::Result<std::vector<core::Json>> ScanRows(const eventstore::KvStore& store, const std::string& prefix) {
  const int cf = store.Cf(kViewsCf);
  auto it = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  std::vector<core::Json> rows;
  for (it->Seek(prefix); it->Valid(); it->Next()) rows.push_back(core::ParseJsonOrDiscarded(it->value()));
  SVC_RETURN_IF_ERROR(it->status());
  return rows;
}

}  // namespace svc::projections
