#include "pipeline/audit/timestamper.h"

#include <algorithm>

#include "commands/audit/timestamps.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "core/log.h"
#include "pipeline/certificate.h"
#include "pipeline/verification/report_inputs.h"
#include "projections/kyb/kyb_view.h"
#include "projections/persons/persons_view.h"
#include "projections/runner.h"
#include "projections/view_rows.h"

namespace svc::pipeline::audit {

namespace au = commands::audit;
using TV = projections::TimestampsView;
using KV = projections::KybView;

Timestamper::Timestamper(Options options)
    : QueueManager("svc-timestamps", options.projector), options_(std::move(options)) {
  if (options_.metrics != nullptr) {
    obtained_ = &options_.metrics->GetCounter("svc_timestamps_obtained_total",
                                              "Trusted timestamps (RFC 3161) obtained and recorded");
    failed_ = &options_.metrics->GetCounter("svc_timestamp_failures_total",
                                            "Attempts to obtain a trusted timestamp that failed (retried)");
    delay_ = &options_.metrics->GetHistogram(
        "svc_timestamp_delay_seconds", "From the event that made a piece of evidence to its recorded timestamp",
        {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300});
  }
}

Timestamper::~Timestamper() { Stop(); }

core::Result<std::optional<std::string>> EvidenceDigest(const eventstore::KvStore& store, const std::string& kind,
                                                        const std::string& tenant, const std::string& environment,
                                                        const std::string& subject) {
  if (kind == au::kVerificationCertificate) {
    return verification::CertificateDigest(store, tenant, environment, subject);
  }
  if (kind == au::kDeletionCertificate) {
    using PV = projections::PersonsView;
    const std::string te = projections::TenantEnv(tenant, environment);
    // A person's, or a company member's or owner's (mem_…, ubo_…).
    const std::string key = subject.rfind("per_", 0) == 0 ? PV::Abs(PV::Deletion(te, subject)) : KV::Abs(KV::Deletion(te, subject));
    SVC_ASSIGN_OR_RETURN(auto content, projections::ReadRow(store, key));
    if (!content.has_value()) return std::optional<std::string>();
    SVC_ASSIGN_OR_RETURN(std::string digest, CertificateContentHash(*content));
    return std::optional<std::string>(std::move(digest));
  }
  return core::InvalidArgument("no digest is computed for evidence of kind " + kind);
}

core::Result<core::Json> EvidenceTimestamps(const eventstore::KvStore& store, const std::string& te,
                                            std::string_view kind, const std::string& subject,
                                            const std::string& digest_hex, bool enabled) {
  core::Json out = core::Json::array();
  SVC_ASSIGN_OR_RETURN(auto token, projections::ReadRow(store, TV::Abs(TV::Token(te, kind, subject, digest_hex))));
  if (token.has_value()) {
    out.push_back(std::move(*token));
  } else if (enabled) {
    out.push_back({{"status", "pending"}, {"hashAlgorithm", "sha256"}, {"digest", digest_hex}});
  }
  return out;
}

core::Result<std::string> SignEvidence(const eventstore::KvStore& store, const std::string& te, std::string_view kind,
                                       const std::string& subject, core::Json content, std::string_view root_key,
                                       bool timestamps_enabled) {
  SVC_ASSIGN_OR_RETURN(std::string digest, CertificateContentHash(content));
  SVC_ASSIGN_OR_RETURN(core::Json timestamps, EvidenceTimestamps(store, te, kind, subject, digest, timestamps_enabled));
  return SignCertificate(std::move(content), root_key, timestamps);
}

core::Result<core::Json> ExportReceipt(const eventstore::KvStore& store, const std::string& te,
                                       const std::string& person_id, const std::string& export_id, bool enabled) {
  if (!core::ValidateId(core::IdKind::kPersonExport, export_id).ok()) {
    return core::InvalidArgument("export_id is not an export bundle id (pxb_…)", "INVALID_ID");
  }
  SVC_ASSIGN_OR_RETURN(auto row, projections::ReadRow(store, TV::Abs(TV::Receipt(te, au::kPersonExport, export_id))));
  if (!row.has_value() || core::StringOr(*row, "personId") != person_id) {
    return core::NotFound("no export bundle of that id was answered for this person", "EXPORT_NOT_FOUND");
  }
  const std::string digest = core::StringOr(*row, "digest");
  SVC_ASSIGN_OR_RETURN(auto timestamps, EvidenceTimestamps(store, te, au::kPersonExport, export_id, digest, enabled));
  return core::Json{{"object", "person.export_receipt"},
                    {"id", export_id},
                    {"personId", person_id},
                    {"generatedAt", core::StringOr(*row, "generatedAt")},
                    {"recordedAt", core::StringOr(*row, "recordedAt")},
                    {"sha256", digest},
                    {"sizeBytes", core::IntOr(*row, "sizeBytes")},
                    {"timestamps", std::move(timestamps)}};
}

namespace {

std::string EntryKey(const core::Json& row) {
  return core::StringOr(row, "tenantId") + "/" + core::StringOr(row, "environment") + "/" +
         core::StringOr(row, "kind") + "/" + core::StringOr(row, "subject");
}

}  // namespace

bool Timestamper::InBackoff(const std::string& key, int64_t now_micros) {
  std::lock_guard l(mu_);
  auto it = backoff_.find(key);
  return it != backoff_.end() && it->second.due_micros > now_micros;
}

bool Timestamper::NothingDue() {
  auto rows = projections::ScanRows(*options_.store, TV::Abs(TV::Queue()));
  if (!rows.ok()) return false;
  const int64_t now = options_.clock->Now().micros;
  for (const auto& row : *rows) {
    if (!options_.Owns(core::StringOr(row, "tenantId"))) continue;
    if (!InBackoff(EntryKey(row), now)) return false;
  }
  return true;
}

void Timestamper::Pass() {
  auto rows = projections::ScanRows(*options_.store, TV::Abs(TV::Queue()));
  if (!rows.ok()) {
    core::LogWarn("timestamps: cannot read the queue", {{"error", rows.status().ToString()}});
    return;
  }
  for (const auto& row : *rows) {
    if (Stopping()) return;
    if (!options_.Owns(core::StringOr(row, "tenantId"))) continue;  // another node's partition
    const std::string key = EntryKey(row);
    if (InBackoff(key, options_.clock->Now().micros)) continue;
    core::Status st = Process(row);
    std::lock_guard l(mu_);
    if (st.ok()) {
      backoff_.erase(key);
      continue;
    }
    if (failed_ != nullptr) failed_->Add();
    Backoff& b = backoff_[key];
    b.delay_ms = b.delay_ms == 0 ? options_.first_retry.count()
                                 : std::min<int64_t>(b.delay_ms * 2, options_.max_retry.count());
    b.due_micros = options_.clock->Now().micros + b.delay_ms * 1000;
    core::LogWarn("timestamps: no token yet; asked again later",
                  {{"kind", core::StringOr(row, "kind")},
                   {"subject", core::StringOr(row, "subject")},
                   {"retryInMs", std::to_string(b.delay_ms)},
                   {"error", st.ToString()}});
  }
}

core::Status Timestamper::Process(const core::Json& row) {
  const std::string tenant = core::StringOr(row, "tenantId");
  const std::string env = core::StringOr(row, "environment");
  const std::string kind = core::StringOr(row, "kind");
  const std::string subject = core::StringOr(row, "subject");
  // The read models the digest is computed from have applied the event that queued the entry.
  const eventstore::LogPosition queued{static_cast<uint32_t>(core::IntOr(row, "partition")),
                                       static_cast<uint64_t>(core::IntOr(row, "offset"))};
  if (!options_.projections->WaitApplied({queued}, std::chrono::seconds(10))) {
    return core::Unavailable("the read models have not applied the queued event yet");
  }
  std::string digest = core::StringOr(row, "digest");
  if (digest.empty()) {
    SVC_ASSIGN_OR_RETURN(auto computed, EvidenceDigest(*options_.store, kind, tenant, env, subject));
    if (!computed.has_value()) return core::FailedPrecondition("the evidence is not final in the read models");
    digest = std::move(*computed);
  }
  au::Timestamped t;
  t.kind = kind;
  t.subject = subject;
  t.digest = digest;
  t.queue_event_id = core::StringOr(row, "eventId");
  const std::string te = projections::TenantEnv(tenant, env);
  SVC_ASSIGN_OR_RETURN(auto existing, projections::ReadRow(*options_.store, TV::Abs(TV::Token(te, kind, subject, digest))));
  if (!existing.has_value()) {
    SVC_ASSIGN_OR_RETURN(std::string raw, core::HexDecode(digest));
    // Right before the request: a pass that began before this node lost the tenant's partition
    // stops here; the new owner stamps the entry from its queue row (issue 67).
    if (!options_.Owns(tenant)) return core::Status::Ok();
    SVC_ASSIGN_OR_RETURN(rfc3161::Token token, options_.tsa->Stamp(raw));
    t.token = core::Base64Encode(token.der);
    t.gen_time = core::FormatRfc3339(token.gen_time);
    t.serial_number = token.serial_hex;
    t.policy = token.policy;
    t.tsa_name = token.tsa_subject;
    t.tsa_url = options_.tsa->url();
  }
  SVC_ASSIGN_OR_RETURN(auto outcome,
                       options_.writer->ExecuteAndWait(commands::MakeCommand<au::TimestampsDecider>(
                           tenant, au::TimestampsId(kind, subject), au::RecordTimestamp{t},
                           commands::SystemContext(options_.clock->Now(), options_.ids, "timestamps", env))));
  if (!outcome.positions.empty()) options_.projections->WaitApplied(outcome.positions, std::chrono::seconds(30));
  if (outcome.result.value("recorded", false)) {
    if (obtained_ != nullptr) obtained_->Add();
    if (delay_ != nullptr && row.contains("queuedAtMicros")) {
      delay_->Observe(static_cast<double>(options_.clock->Now().micros - core::IntOr(row, "queuedAtMicros")) / 1e6);
    }
  }
  return core::Status::Ok();
}

}  // namespace svc::pipeline::audit
