#include "projections/audit/timestamps_projector.h"

#include "commands/audit/checkpoint.h"
#include "commands/audit/timestamps.h"
#include "commands/kyb/company_events.h"
#include "commands/persons/export_job.h"
#include "commands/persons/person_events.h"
#include "commands/verification/session_events.h"
#include "core/clock.h"
#include "core/crypto.h"

namespace svc::projections {

namespace au = commands::audit;
using TsV = TimestampsView;

namespace {

void Enqueue(const eventstore::RecordedEvent& re, ViewWriter& view, std::string_view kind, const std::string& subject,
             const std::string& digest) {
  const auto& env = re.event;
  core::Json row = {{"tenantId", env.tenant_id},
                    {"environment", env.environment},
                    {"kind", kind},
                    {"subject", subject},
                    {"eventId", env.id},
                    {"partition", re.position.partition},
                    {"offset", re.position.offset},
                    {"queuedAt", core::FormatRfc3339(env.occurred_at)},
                    {"queuedAtMicros", env.occurred_at.micros}};
  if (!digest.empty()) row["digest"] = digest;
  view.Put(TsV::Queued(TenantEnv(env.tenant_id, env.environment), kind, subject), core::DumpJson(row));
}

}  // namespace

core::Status TimestampsProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  if (env.aggregate_type == commands::verification::kSessionAggregate &&
      (env.type == "verification.approved" || env.type == "verification.declined")) {
    Enqueue(re, view, au::kVerificationCertificate, env.aggregate_id, "");
  } else if (env.aggregate_type == commands::persons::kPersonAggregate &&
             env.type == commands::persons::KeysDestroyed::kType) {
    Enqueue(re, view, au::kDeletionCertificate, env.aggregate_id, "");
  } else if (env.aggregate_type == commands::kyb::kCompanyAggregate &&
             env.type == commands::kyb::SubjectKeysDestroyed::kType) {
    // A company member's or owner's deletion certificate (docs/kyb.md#erasure): the same kind.
    SVC_ASSIGN_OR_RETURN(auto event, commands::kyb::Decode(env));
    Enqueue(re, view, au::kDeletionCertificate, std::get<commands::kyb::SubjectKeysDestroyed>(event).subject_id, "");
  } else if (env.aggregate_type == commands::persons::kExportAggregate &&
             env.type == commands::persons::ExportCompleted::kType) {
    SVC_ASSIGN_OR_RETURN(auto event, commands::persons::DecodeExport(env));
    Enqueue(re, view, au::kBulkExport, env.aggregate_id, std::get<commands::persons::ExportCompleted>(event).sha256);
  } else if (env.aggregate_type == au::kAuditLogAggregate && env.type == au::CheckpointPublished::kType) {
    SVC_ASSIGN_OR_RETURN(au::AuditLogEvent event, au::DecodeAuditLog(env));
    const auto& c = std::get<au::CheckpointPublished>(event);
    Enqueue(re, view, au::kAuditCheckpoint, std::to_string(c.tree_size), core::Sha256Hex(c.checkpoint));
  } else if (env.aggregate_type == au::kTimestampsAggregate) {
    SVC_ASSIGN_OR_RETURN(au::TimestampsEvent event, au::DecodeTimestamps(env));
    std::string kind, subject, queue_event;
    if (const auto* r = std::get_if<au::EvidenceRecorded>(&event)) {
      core::Json receipt = core::EncodeFields(*r);
      receipt["recordedAt"] = core::FormatRfc3339(env.occurred_at);
      view.Put(TsV::Receipt(te, r->kind, r->subject), core::DumpJson(receipt));
      Enqueue(re, view, r->kind, r->subject, r->digest);
      return core::Status::Ok();
    }
    if (const auto* s = std::get_if<au::TimestampSettled>(&event)) {
      kind = s->kind;
      subject = s->subject;
      queue_event = s->queue_event_id;
    } else {
      const auto& t = std::get<au::Timestamped>(event);
      kind = t.kind;
      subject = t.subject;
      queue_event = t.queue_event_id;
      view.Put(TsV::Token(te, t.kind, t.subject, t.digest),
               core::DumpJson({{"status", "granted"},
                               {"hashAlgorithm", "sha256"},
                               {"digest", t.digest},
                               {"genTime", t.gen_time},
                               {"serialNumber", t.serial_number},
                               {"policy", t.policy},
                               {"tsaName", t.tsa_name},
                               {"tsaUrl", t.tsa_url},
                               {"token", t.token}}));
    }
    SVC_ASSIGN_OR_RETURN(auto queued, view.Get(TsV::Queued(te, kind, subject)));
    if (queued.has_value() && core::StringOr(core::ParseJsonOrDiscarded(*queued), "eventId") == queue_event) {
      view.Delete(TsV::Queued(te, kind, subject));
    }
  }
  return core::Status::Ok();
}

}  // namespace svc::projections
