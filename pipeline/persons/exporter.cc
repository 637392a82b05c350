#include "pipeline/persons/exporter.h"

#include <algorithm>
#include <filesystem>

#include "commands/writer.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/log.h"
#include "eventstore/kv_store.h"
#include "pipeline/persons/export_dump.h"
#include "pipeline/persons/pii.h"
#include "pipeline/persons/reveal_rules.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/runner.h"
#include "projections/view_rows.h"

namespace svc::pipeline::persons {

namespace ps = commands::persons;
using PV = projections::PersonsView;

namespace {

constexpr size_t kAuditGroup = 500;
constexpr int kMaxAttempts = 3;

std::vector<std::string> Strings(const core::Json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

// A person put in the dump: their record and the fields to open.
struct Pick {
  std::string id;
  core::Json record;
  std::vector<std::string> fields;
};

}  // namespace

BulkExporter::BulkExporter(Options options)
    : QueueManager("svc-export", options.projector), options_(std::move(options)) {
  if (options_.metrics != nullptr) {
    exported_ = &options_.metrics->GetCounter("svc_persons_exported_total", "Persons written into bulk export dumps");
  }
}

BulkExporter::~BulkExporter() { Stop(); }

void BulkExporter::Pause() { paused_ = true; }

void BulkExporter::Resume() {
  paused_ = false;
  Wake();
}

std::string BulkExporter::ExportsDir(const std::string& data_dir) {
  return (std::filesystem::path(data_dir) / "exports").string();
}

core::Status BulkExporter::AdoptLegacy() {
  if (!legacy_left_) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(size_t moved, AdoptLegacyDumps(options_.exports_dir, *options_.blobs));
  if (moved > 0) core::LogInfo("export: dumps kept as files moved into the blob store", {{"dumps", std::to_string(moved)}});
  legacy_left_ = false;
  return core::Status::Ok();
}

core::Result<std::vector<BulkExporter::Queued>> BulkExporter::Pending() const {
  SVC_ASSIGN_OR_RETURN(auto rows, projections::ScanRows(*options_.store, PV::Abs(PV::ExportingPrefix())));
  std::vector<Queued> out;
  for (auto& row : rows) {
    if (!options_.Owns(core::StringOr(row, "tenantId"))) continue;  // another node's partition
    out.push_back({core::StringOr(row, "tenantId"), core::StringOr(row, "environment"), core::StringOr(row, "jobId"), row});
  }
  return out;
}

core::Result<std::vector<BulkExporter::Queued>> BulkExporter::Expired() const {
  const int64_t now = options_.clock->Now().micros;
  SVC_ASSIGN_OR_RETURN(auto rows, projections::ScanRows(*options_.store, PV::Abs(PV::ExportReadyPrefix())));
  std::vector<Queued> out;
  for (auto& row : rows) {
    if (row.value("expiresAtMicros", int64_t{0}) > now || !options_.Owns(core::StringOr(row, "tenantId"))) continue;
    out.push_back({core::StringOr(row, "tenantId"), core::StringOr(row, "environment"), core::StringOr(row, "jobId"), row});
  }
  return out;
}

bool BulkExporter::NothingDue() {
  if (legacy_left_) return false;
  auto expired = Expired();
  if (!expired.ok() || !expired->empty()) return false;
  if (paused_) return true;
  auto due = Pending();
  return due.ok() && due->empty();
}

void BulkExporter::Pass() {
  if (auto st = AdoptLegacy(); !st.ok()) {
    core::LogWarn("export: dumps kept as files could not be moved into the blob store; retried", {{"error", st.ToString()}});
  }
  if (auto expired = Expired(); expired.ok()) {
    for (const auto& q : *expired) {
      if (auto st = Expire(q); !st.ok()) {
        core::LogWarn("export: a dump's expiry stopped; it is retried", {{"jobId", q.job}, {"error", st.ToString()}});
      }
    }
  }
  if (paused_) return;
  auto due = Pending();
  if (!due.ok()) {
    core::LogWarn("export: cannot read the queue", {{"error", due.status().ToString()}});
    return;
  }
  for (const auto& q : *due) {
    if (Stopping() || paused_) return;
    auto st = Process(q);
    if (st.ok()) {
      attempts_.erase(q.job);
      continue;
    }
    core::LogWarn("export: the job stopped", {{"jobId", q.job}, {"error", st.ToString()}});
    if (++attempts_[q.job] < kMaxAttempts) continue;  // retried on the next pass
    ps::FailExport fail;
    fail.failed.code = "EXPORT_FAILED";
    fail.failed.message = "the dump could not be written after " + std::to_string(kMaxAttempts) + " tries";
    if (Run(q, fail, true).ok()) attempts_.erase(q.job);
  }
}

core::Result<commands::CommandOutcome> BulkExporter::Run(const Queued& q, ps::ExportCommand command, bool wait) {
  SVC_ASSIGN_OR_RETURN(
      auto outcome,
      options_.writer->ExecuteAndWait(commands::MakeCommand<ps::ExportDecider>(
          q.tenant, q.job, std::move(command), commands::SystemContext(options_.clock->Now(), options_.ids, "exporter", q.env))));
  if (wait && !outcome.positions.empty()) options_.projections->WaitApplied(outcome.positions, std::chrono::seconds(30));
  return outcome;
}

core::Status BulkExporter::Expire(const Queued& q) {
  const eventstore::KvStore& store = *options_.store;
  SVC_ASSIGN_OR_RETURN(auto row, store.Get(store.Cf(projections::kViewsCf),
                                           PV::Abs(PV::Export(projections::TenantEnv(q.tenant, q.env), q.job))));
  if (!row.has_value()) return core::DataLoss("a ready export without its job: " + q.job);
  const std::string address = core::StringOr(core::ParseJsonOrDiscarded(*row).value("dump", core::Json::object()), "sha256");
  if (eventstore::ValidBlobAddress(address)) SVC_RETURN_IF_ERROR(options_.blobs->Delete(address).status());
  return Run(q, ps::ExpireExport{}, true).status();
}

core::Status BulkExporter::Process(const Queued& q) {
  const core::Json& r = q.request;
  const std::string te = projections::TenantEnv(q.tenant, q.env);
  const core::Timestamp now = options_.clock->Now();
  const eventstore::KvStore& store = *options_.store;
  const int cf = store.Cf(projections::kViewsCf);
  const Reader reader{q.tenant, q.env, core::StringOr(r, "applicationId")};
  const std::vector<std::string> asked = Strings(r.value("fields", core::Json::array()));
  const std::string purpose = core::StringOr(r, "purpose");
  std::vector<std::string> all_fields;
  for (const auto& f : PiiFields()) all_fields.emplace_back(f.name);

  // 1. The persons, and the fields of each.
  std::vector<Pick> picks;
  std::vector<ps::ExportSkip> skipped;
  int64_t skipped_count = 0;
  auto skip = [&](const std::string& id, std::string code) {
    ++skipped_count;
    if (skipped.size() < ps::kMaxListedSkips) skipped.push_back({id, std::move(code)});
  };
  const std::vector<std::string> listed = Strings(r.value("personIds", core::Json::array()));
  auto consider = [&](const std::string& id, const core::Json& record, bool listed_one) -> core::Status {
    if (auto st = CheckActive(record); !st.ok()) {
      if (listed_one) skip(id, std::string(st.api_code()));
      return core::Status::Ok();
    }
    std::vector<std::string> fields = asked;
    if (fields.empty()) {
      // Every field the key may read: a grant in force narrows it to the grant's fields.
      SVC_ASSIGN_OR_RETURN(auto grant, GrantInForce(store, now, reader, id));
      fields = all_fields;
      if (grant.has_value()) {
        const core::Json allowed = grant->value("allowedFields", core::Json::array());
        std::erase_if(fields, [&](const std::string& f) {
          return std::find(allowed.begin(), allowed.end(), f) == allowed.end();
        });
      }
    }
    if (auto st = CheckRevealAllowed(store, now, reader, record, fields, purpose); !st.ok()) {
      skip(id, std::string(st.api_code()));
      return core::Status::Ok();
    }
    picks.push_back({id, record, std::move(fields)});
    return core::Status::Ok();
  };
  if (!listed.empty()) {
    for (const auto& id : listed) {
      SVC_ASSIGN_OR_RETURN(auto row, store.Get(cf, PV::Abs(PV::Record(te, id))));
      if (!row.has_value()) {
        skip(id, "PERSON_NOT_FOUND");
        continue;
      }
      SVC_RETURN_IF_ERROR(consider(id, core::ParseJsonOrDiscarded(*row), true));
    }
  } else {
    const std::string prefix = PV::Abs(PV::Records(te));
    auto it = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      SVC_RETURN_IF_ERROR(consider(std::string(it->key().substr(prefix.size())), core::ParseJsonOrDiscarded(it->value()), false));
    }
    SVC_RETURN_IF_ERROR(it->status());
  }

  // 2. The access events, before any value is opened, each with the job's reason (sealed in the
  // job's request; sealed again under each person's key).
  std::string reason = core::StringOr(r, "reason");
  if (const std::string sealed = core::StringOr(r, "reasonSealed"); !sealed.empty()) {
    SVC_ASSIGN_OR_RETURN(reason, OpenExportReason(options_.event_seal_key, q.tenant, q.env, q.job, sealed));
  }
  for (size_t i = 0; i < picks.size(); i += kAuditGroup) {
    ps::RecordExportAccesses group;
    for (size_t j = i; j < std::min(picks.size(), i + kAuditGroup); ++j) {
      ps::PiiAccessed a;
      a.person_id = picks[j].id;
      a.application_id = reader.application_id;
      a.actor_type = core::StringOr(r, "actorType");
      a.actor_id = core::StringOr(r, "actorId");
      a.channel = "export_bulk";
      a.fields = picks[j].fields;
      a.purpose = purpose;
      a.reason = reason;
      a.redaction = "sealed";
      SVC_ASSIGN_OR_RETURN(auto sealed, SealAccessReason(*options_.keys, q.tenant, q.env, a.person_id, a.reason));
      if (sealed.has_value()) {
        a.reason_sealed = std::move(sealed->sealed);
        a.reason_commitment = std::move(sealed->commitment);
        a.reason.clear();
      }
      group.accesses.push_back(std::move(a));
    }
    SVC_RETURN_IF_ERROR(Run(q, std::move(group), false).status());
  }

  // 3. The dump.
  auto recipient = core::Base64UrlDecode(core::StringOr(r, "recipientPublicKey"));
  if (!recipient.ok()) return core::DataLoss("the job's export key is unreadable");
  core::Json header = {{"format", "svc-export-bulk-1"},
                       {"jobId", q.job},
                       {"tenantId", q.tenant},
                       {"environment", q.env},
                       {"recipientKeyId", core::StringOr(r, "recipientKeyId")},
                       {"purpose", purpose},
                       {"writtenAt", core::FormatRfc3339(now)}};
  SVC_ASSIGN_OR_RETURN(auto writer, DumpWriter::Create(*options_.blobs, header, *recipient));
  int64_t written = 0;
  for (const auto& p : picks) {
    SVC_ASSIGN_OR_RETURN(auto key, options_.keys->Get(PersonKeyName(q.tenant, q.env, p.id)));
    SVC_ASSIGN_OR_RETURN(auto record_now, store.Get(cf, PV::Abs(PV::Record(te, p.id))));
    const bool active = record_now.has_value() && CheckActive(core::ParseJsonOrDiscarded(*record_now)).ok();
    if (!key.has_value() || !active) {  // erased or forgotten since it was picked
      if (key.has_value()) core::SecureZero(*key);
      skip(p.id, key.has_value() ? "PERSON_FORGET_PENDING" : "PERSON_PURGED");
      continue;
    }
    SVC_ASSIGN_OR_RETURN(auto sealed_row, store.Get(cf, PV::Abs(PV::Sealed(te, p.id))));
    const core::Json sealed = core::ParseJsonOrDiscarded(sealed_row.value_or("{}"));
    core::Json pii = core::Json::object();
    for (const auto& field : p.fields) {
      auto it = sealed.find(field);
      if (it == sealed.end() || !it->is_object()) continue;
      auto value = OpenPii(*key, q.tenant, q.env, p.id, field, it->value("version", 0), core::StringOr(*it, "sealed"));
      if (!value.ok()) {
        core::SecureZero(*key);
        return value.status();
      }
      pii[field] = std::move(*value);
    }
    core::SecureZero(*key);
    const core::Json& rec = p.record;
    SVC_RETURN_IF_ERROR(writer->Add({{"personId", p.id},
                                     {"applicationId", rec.value("applicationId", core::Json(nullptr))},
                                     {"externalRefs", rec.value("externalRefs", core::Json::array())},
                                     {"createdAt", rec.value("createdAt", core::Json(nullptr))},
                                     {"updatedAt", rec.value("updatedAt", core::Json(nullptr))},
                                     {"fields", p.fields},
                                     {"pii", std::move(pii)}}));
    ++written;
  }
  SVC_ASSIGN_OR_RETURN(DumpSummary summary, writer->Finish());

  // 4. Done.
  ps::CompleteExport done;
  done.done.person_count = written;
  done.done.skipped_count = skipped_count;
  done.done.skipped = std::move(skipped);
  done.done.size_bytes = summary.size_bytes;
  done.done.sha256 = summary.sha256;
  done.done.expires_at_micros = options_.clock->Now().micros + r.value("ttlSeconds", int64_t{0}) * 1000000;
  SVC_RETURN_IF_ERROR(Run(q, std::move(done), true).status());
  if (exported_ != nullptr) exported_->Add(static_cast<uint64_t>(written));
  return core::Status::Ok();
}

}  // namespace svc::pipeline::persons
