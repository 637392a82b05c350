#include "pipeline/retention/blob_collector.h"

#include <algorithm>
#include <optional>

#include "commands/service_tenant.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/log.h"
#include "projections/kyb/kyb_view.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/verification_view.h"
#include "projections/view_key.h"

namespace svc::pipeline::retention {

using VV = projections::VerificationView;
using KV = projections::KybView;
using PV = projections::PersonsView;

core::Json CollectRun::ToJson() const {
  return {{"dryRun", dry_run}, {"objects", objects}, {"referenced", referenced}, {"young", young},
          {"deleted", deleted}, {"failed", failed},  {"bytes", bytes},           {"addresses", addresses}};
}

BlobCollector::BlobCollector(Options options)
    : PeriodicManager("svc-blob-gc", options.interval, "blob garbage collection failed",
                      [this] {
                        // Once per cluster: on the node that writes the service partition, where
                        // its record goes (an operator's run, POST /admin/blobs/gc, runs anywhere).
                        if (!options_.Owns(commands::kServiceTenant)) return core::Status::Ok();
                        return RunOnce(false).status();
                      }),
      options_(std::move(options)) {
  if (options_.metrics != nullptr) {
    deleted_ = &options_.metrics->GetCounter("svc_blob_gc_deleted_total",
                                             "Objects of the blob store deleted as referred to by no event", "");
  }
}

BlobCollector::~BlobCollector() { Stop(); }

core::Status BlobCollector::References(std::vector<std::string>& out) const {
  const eventstore::KvStore& store = *options_.store;
  const int cf = store.Cf(projections::kViewsCf);
  auto scan = [&](const std::string& prefix, const std::function<void(const core::Json&)>& row) -> core::Status {
    auto it = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
    for (it->Seek(prefix); it->Valid(); it->Next()) row(core::ParseJsonOrDiscarded(it->value()));
    return it->status();
  };
  // Captures: every row of every session; a purged one no longer holds its object.
  SVC_RETURN_IF_ERROR(scan(VV::Abs("media/"), [&](const core::Json& m) {
    if (m.value("purgedAt", core::Json()).is_null() && !core::StringOr(m, "blob").empty()) {
      out.push_back(core::StringOr(m, "blob"));
    }
  }));
  // Sanctions lists: the files of every version (a screening names the version it used).
  auto files = [&](const core::Json& l) {
    for (const auto& b : l.value("blobs", core::Json::array())) {
      if (b.is_string()) out.push_back(b.get<std::string>());
    }
  };
  SVC_RETURN_IF_ERROR(scan(KV::Abs(KV::ListsPrefix()), files));
  SVC_RETURN_IF_ERROR(scan(KV::Abs("listv/"), files));
  // Bulk export dumps while ready (the exporter deletes them at expiry).
  SVC_RETURN_IF_ERROR(scan(PV::Abs("exb/"), [&](const core::Json& job) {
    if (core::StringOr(job, "status") != "ready") return;
    const std::string sha = core::StringOr(job.value("dump", core::Json::object()), "sha256");
    if (!sha.empty()) out.push_back(sha);
  }));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return core::Status::Ok();
}

core::Result<CollectRun> BlobCollector::RunOnce(bool dry_run, std::optional<std::chrono::seconds> grace) {
  std::lock_guard lock(run_mu_);
  CollectRun run;
  run.dry_run = dry_run;
  const int64_t grace_seconds = grace.value_or(options_.grace).count();
  // What the log says first: a read model behind it could miss an event naming an object.
  if (options_.caught_up) SVC_RETURN_IF_ERROR(options_.caught_up());
  std::vector<std::string> referenced;
  SVC_RETURN_IF_ERROR(References(referenced));
  // Object ages are measured on the wall clock, as the store dates its objects.
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  std::vector<eventstore::BlobInfo> unreferenced;
  SVC_RETURN_IF_ERROR(options_.blobs->List([&](const eventstore::BlobInfo& b) {
    ++run.objects;
    if (std::binary_search(referenced.begin(), referenced.end(), b.address)) {
      ++run.referenced;
    } else if (now - b.modified_unix < grace_seconds) {
      ++run.young;
    } else {
      unreferenced.push_back(b);
    }
    return core::Status::Ok();
  }));
  commands::compliance::BlobsCollected batch;
  batch.grace_seconds = grace_seconds;
  auto record = [&]() -> core::Status {
    if (batch.addresses.empty()) return core::Status::Ok();
    namespace cc = commands::compliance;
    auto st = options_.writer
                  ->ExecuteAndWait(commands::MakeCommand<cc::BlobGcDecider>(
                      std::string(commands::kServiceTenant), std::string(cc::kBlobGcId), cc::RecordCollected{batch},
                      commands::SystemContext(options_.clock->Now(), options_.ids, "blob-gc", "live")))
                  .status();
    if (!st.ok()) {
      core::LogError("deleted blobs could not be recorded in the log",
                     {{"objects", static_cast<int64_t>(batch.addresses.size())}, {"error", st.ToString()}});
    }
    batch.addresses.clear();
    batch.bytes = 0;
    return st;
  };
  for (const auto& b : unreferenced) {
    if (!dry_run) {
      auto removed = options_.blobs->Delete(b.address);
      if (!removed.ok()) {
        ++run.failed;
        core::LogWarn("an unreferenced blob was not deleted", {{"blob", b.address}, {"error", removed.status().ToString()}});
        continue;
      }
      core::LogInfo("deleted a blob no event refers to", {{"blob", b.address},
                                                          {"bytes", static_cast<int64_t>(b.size)},
                                                          {"ageSeconds", now - b.modified_unix}});
      if (deleted_ != nullptr) deleted_->Add();
      batch.addresses.push_back(b.address);
      batch.bytes += static_cast<int64_t>(b.size);
      if (batch.addresses.size() == commands::compliance::kMaxCollectedPerEvent) SVC_RETURN_IF_ERROR(record());
    }
    ++run.deleted;
    run.bytes += static_cast<int64_t>(b.size);
    if (run.addresses.size() < 1000) run.addresses.push_back(b.address);
  }
  SVC_RETURN_IF_ERROR(record());
  core::LogInfo(dry_run ? "blob garbage collection (dry run)" : "blob garbage collection",
                {{"objects", run.objects}, {"referenced", run.referenced}, {"young", run.young},
                 {"deleted", run.deleted}, {"failed", run.failed}, {"bytes", run.bytes}});
  return run;
}

}  // namespace svc::pipeline::retention
