#include "projections/projector.h"

namespace svc::projections {

core::Result<std::optional<std::string>> ViewWriter::Get(std::string_view key) const {
  auto it = pending_.find(key);
  if (it != pending_.end()) return it->second;
  return store_->Get(cf_, prefix_ + std::string(key));
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
