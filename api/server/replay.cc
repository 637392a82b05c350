#include "api/server/replay.h"

#include <filesystem>

#include "core/crypto.h"
#include "projections/runner.h"

namespace svc::api {

namespace fs = std::filesystem;

namespace {
bool Wanted(const std::vector<std::string>& names, std::string_view n) {
  if (names.empty()) return true;
  for (const auto& x : names) {
    if (x == n) return true;
  }
  return false;
}

core::Status CheckNames(Runtime& rt, const std::vector<std::string>& names) {
  for (const auto& n : names) {
    bool known = false;
    for (auto* p : rt.projectors()) known |= p->Name() == n;
    if (!known) return core::InvalidArgument("no projector named " + n);
  }
  return core::Status::Ok();
}
}  // namespace

core::Result<core::Json> ReplayProjectors(Runtime& rt, const std::vector<std::string>& names) {
  SVC_RETURN_IF_ERROR(CheckNames(rt, names));
  core::Json out = core::Json::array();
  // The wanted projectors rebuild together from one read of the log.
  projections::ProjectionRunner::Options po;
  for (auto* p : rt.projectors()) {
    if (Wanted(names, p->Name())) po.projectors.push_back(p);
  }
  po.log = &rt.log();
  po.store = &rt.store();
  projections::ProjectionRunner runner(po);
  auto start = std::chrono::steady_clock::now();
  SVC_RETURN_IF_ERROR(runner.Reset());
  SVC_RETURN_IF_ERROR(runner.Prepare());
  SVC_RETURN_IF_ERROR(runner.RunUntilCaughtUp());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::string_view name : runner.Names()) {
    out.push_back({{"projector", name}, {"eventsApplied", runner.EventsApplied(name)}, {"seconds", secs}});
  }
  return core::Json{{"replayed", out}};
}

core::Result<core::Json> VerifyReplay(Runtime& rt, const std::vector<std::string>& names) {
  SVC_RETURN_IF_ERROR(CheckNames(rt, names));
  SVC_RETURN_IF_ERROR(rt.CatchUpProjections());
  fs::path scratch = fs::path(rt.data_dir()) / "replay-verify.tmp";
  std::error_code ec;
  fs::remove_all(scratch, ec);
  eventstore::KvStore::Options so;
  so.path = scratch.string();
  so.column_families = StoreColumnFamilies();
  core::Json result;
  result["identical"] = true;
  result["projectors"] = core::Json::array();
  {
    SVC_ASSIGN_OR_RETURN(auto store, eventstore::KvStore::Open(so));
    for (auto* p : rt.projectors()) {
      if (!Wanted(names, p->Name())) continue;
      projections::ProjectionRunner::Options po;
      po.projector = p;
      po.log = &rt.log();
      po.store = store.get();
      projections::ProjectionRunner runner(po);
      SVC_RETURN_IF_ERROR(runner.Prepare());
      SVC_RETURN_IF_ERROR(runner.RunUntilCaughtUp());

      std::string prefix = std::string(p->Name()) + "/";
      auto live = rt.store().NewIterator(rt.store().Cf(projections::kViewsCf), prefix,
                                         eventstore::PrefixEnd(prefix));
      auto rebuilt = store->NewIterator(store->Cf(projections::kViewsCf), prefix,
                                        eventstore::PrefixEnd(prefix));
      live->Seek(prefix);
      rebuilt->Seek(prefix);
      uint64_t rows = 0;
      std::string first_difference;
      std::string live_digest, rebuilt_digest;
      while (live->Valid() || rebuilt->Valid()) {
        if (!live->Valid() || !rebuilt->Valid() || live->key() != rebuilt->key() ||
            live->value() != rebuilt->value()) {
          first_difference = std::string(live->Valid() ? live->key() : rebuilt->key());
          break;
        }
        ++rows;
        live->Next();
        rebuilt->Next();
      }
      SVC_RETURN_IF_ERROR(live->status());
      SVC_RETURN_IF_ERROR(rebuilt->status());
      bool identical = first_difference.empty();
      if (!identical) result["identical"] = false;
      core::Json pj;
      pj["projector"] = p->Name();
      pj["rows"] = rows;
      pj["identical"] = identical;
      pj["firstDifference"] = identical ? core::Json(nullptr) : core::Json(first_difference);
      result["projectors"].push_back(pj);
    }
  }
  fs::remove_all(scratch, ec);
  return result;
}

}  // namespace svc::api
