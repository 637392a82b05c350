#include "pipeline/kyb/list_registry.h"

#include "core/executor.h"
#include "core/log.h"
#include "projections/kyb/kyb_view.h"
#include "projections/projector.h"

namespace svc::pipeline::kyb {

using KV = projections::KybView;

ListRegistry::ListRegistry(const eventstore::KvStore* store, const eventstore::BlobStore* blobs)
    : store_(store), blobs_(blobs), current_(std::make_shared<ListsInForce>()) {}

ListRegistry::~ListRegistry() { Stop(); }

void ListRegistry::Follow(projections::KybProjector* projector) {
  if (projector == nullptr || follower_.joinable()) return;
  follower_ = std::thread([this] {
    core::SetThreadName("svc-aml-lists");
    std::unique_lock l(follow_mu_);
    while (!stopping_) {
      follow_cv_.wait(l, [&] { return stopping_ || dirty_; });
      if (stopping_) break;
      dirty_ = false;
      l.unlock();
      core::Status st = Refresh();
      l.lock();
      if (!st.ok()) {
        core::LogWarn("a loaded list is not in force here yet", {{"error", st.ToString()}});
        dirty_ = true;  // tried again in a second (its files may not be readable yet)
        follow_cv_.wait_for(l, std::chrono::seconds(1), [&] { return stopping_; });
      }
    }
  });
  followed_ = projector->AddListener([this] {
    std::lock_guard l(follow_mu_);
    dirty_ = true;
    follow_cv_.notify_all();
  });
}

void ListRegistry::Stop() {
  followed_.Reset();
  {
    std::lock_guard l(follow_mu_);
    stopping_ = true;
    follow_cv_.notify_all();
  }
  if (follower_.joinable()) follower_.join();
}

std::shared_ptr<const ListsInForce> ListRegistry::Current() const {
  std::lock_guard l(mu_);
  return current_;
}

core::Status ListRegistry::Refresh() {
  std::lock_guard r(refresh_mu_);
  const int cf = store_->Cf(projections::kViewsCf);
  const std::string prefix = KV::Abs(KV::ListsPrefix());
  std::vector<core::Json> rows;
  std::map<std::string, std::string> hashes;
  auto it = store_->NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    core::Json row = core::ParseJsonOrDiscarded(it->value());
    hashes[core::StringOr(row, "source")] = core::StringOr(row, "contentHash");
    rows.push_back(std::move(row));
  }
  SVC_RETURN_IF_ERROR(it->status());
  if (hashes == hashes_ && (current_->index != nullptr || rows.empty())) return core::Status::Ok();
  auto next = std::make_shared<ListsInForce>();
  std::vector<LoadedList> lists;
  for (const auto& row : rows) {
    std::vector<std::string> files;
    for (const auto& b : row.value("blobs", core::Json::array())) {
      auto bytes = blobs_->Get(b.get<std::string>());
      if (!bytes.ok()) {
        return core::DataLoss("list " + core::StringOr(row, "source") + ": a file of version " +
                              core::StringOr(row, "contentHash") + " is missing: " + bytes.status().message());
      }
      files.push_back(std::move(*bytes));
    }
    auto list = LoadList(core::StringOr(row, "format"), files);
    if (!list.ok()) return core::DataLoss("list " + core::StringOr(row, "source") + ": " + list.status().message());
    next->source_of[list->content_hash] = core::StringOr(row, "source");
    next->lists.push_back({{"source", row.value("source", "")},
                           {"format", row.value("format", "")},
                           {"contentHash", row.value("contentHash", "")},
                           {"entries", row.value("entries", 0)},
                           {"version", row.value("version", 0)},
                           {"loadedAt", row.value("loadedAt", "")}});
    lists.push_back(std::move(*list));
  }
  if (!lists.empty()) next->index = std::make_shared<ScreeningIndex>(std::move(lists));
  core::LogInfo("screening lists in force", {{"lists", static_cast<int64_t>(rows.size())}});
  std::lock_guard l(mu_);
  current_ = std::move(next);
  hashes_ = std::move(hashes);
  return core::Status::Ok();
}

}  // namespace svc::pipeline::kyb
