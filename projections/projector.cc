#include "projections/projector.h"

namespace svc::projections {

core::Result<std::optional<std::string>> ViewWriter::Get(std::string_view key) const {
  auto it = pending_.find(key);
  if (it != pending_.end()) return it->second;
  return store_->Get(cf_, prefix_ + std::string(key));
}

core::Status ViewWriter::Scan(std::string_view begin, std::string_view end,
                             const std::function<bool(std::string_view, std::string_view)>& visit) const {
  auto it = store_->NewIterator(cf_, prefix_ + std::string(begin), prefix_ + std::string(end));
  it->Seek(prefix_ + std::string(begin));
  auto p = pending_.lower_bound(begin);
  // Merge: the smaller key first; on a tie the batch's write wins over the stored row. (`visit`
  // may write or delete rows: map iterators stay valid, and the end is tested by key.)
  for (;;) {
    std::optional<std::string_view> stored_key;
    if (it->Valid()) stored_key = it->key().substr(prefix_.size());
    const bool pending_left = p != pending_.end() && std::string_view(p->first) < end;
    const bool take_pending = pending_left && (!stored_key.has_value() || std::string_view(p->first) <= *stored_key);
    if (take_pending) {
      if (stored_key.has_value() && std::string_view(p->first) == *stored_key) it->Next();
      const auto& [key, value] = *p;
      ++p;
      if (value.has_value() && !visit(key, *value)) return core::Status::Ok();
      continue;
    }
    if (!stored_key.has_value()) break;
    if (!visit(*stored_key, it->value())) return core::Status::Ok();
    it->Next();
  }
  return it->status();
}

void ViewWriter::Put(std::string_view key, std::string_view value) {
  pending_[std::string(key)] = std::string(value);
}

void ViewWriter::Delete(std::string_view key) { pending_[std::string(key)] = std::nullopt; }

void ViewWriter::Drain(eventstore::KvStore::Batch& batch) {
  for (auto& [k, v] : pending_) {
    if (v.has_value()) {
      batch.Put(cf_, prefix_ + k, *v);
    } else {
      batch.Delete(cf_, prefix_ + k);
    }
  }
  pending_.clear();
}

}  // namespace svc::projections
