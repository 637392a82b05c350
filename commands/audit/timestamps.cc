#include "commands/audit/timestamps.h"

#include "commands/event_codec.h"

namespace svc::commands::audit {

bool IsTimestampKind(std::string_view kind) {
  return kind == kVerificationCertificate || kind == kDeletionCertificate || kind == kAuditCheckpoint ||
         kind == kBulkExport || kind == kPersonExport;
}

namespace {

core::Status CheckEvidence(std::string_view kind, std::string_view subject, std::string_view digest) {
  if (!IsTimestampKind(kind) || subject.empty()) return core::InvalidArgument("unknown evidence kind: " + std::string(kind));
  bool hex = digest.size() == 64;
  for (char ch : digest) hex = hex && ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'));
  if (!hex) return core::InvalidArgument("a timestamp's digest is a SHA-256 in lowercase hex");
  return core::Status::Ok();
}

core::Result<Decision> Record(const TimestampsState& s, const RecordEvidence& c) {
  const EvidenceRecorded& e = c.evidence;
  SVC_RETURN_IF_ERROR(CheckEvidence(e.kind, e.subject, e.digest));
  if (e.kind != kPersonExport || e.person_id.empty() || e.size_bytes <= 0) {
    return core::InvalidArgument("only a person's export bundle is recorded, with its person and size");
  }
  Decision d;
  d.result = {{"recorded", s.recorded.empty()}};
  if (s.recorded == e.digest) return d;
  if (!s.recorded.empty()) return core::AlreadyExists("this evidence was recorded with another digest");
  d.events.push_back(NewEventOf(TimestampsEvent(e)));
  return d;
}

}  // namespace

core::Result<Decision> TimestampsDecider::Decide(const TimestampsState& s, const TimestampsCommand& command,
                                                 const CommandContext&) {
  if (const auto* e = std::get_if<RecordEvidence>(&command)) return Record(s, *e);
  const Timestamped& t = std::get<RecordTimestamp>(command).token;
  SVC_RETURN_IF_ERROR(CheckEvidence(t.kind, t.subject, t.digest));
  const bool fresh = s.digests.count(t.digest) == 0;
  if (fresh && (t.token.empty() || t.gen_time.empty())) {
    return core::InvalidArgument("a timestamp needs its token and time");
  }
  Decision d;
  d.result = {{"recorded", fresh}};
  if (fresh) {
    d.events.push_back(NewEventOf(TimestampsEvent(t)));
  } else {
    d.events.push_back(NewEventOf(TimestampsEvent(TimestampSettled{t.kind, t.subject, t.digest, t.queue_event_id})));
  }
  return d;
}

core::Status TimestampsDecider::Evolve(TimestampsState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(TimestampsEvent event, DecodeTimestamps(e));
  if (const auto* t = std::get_if<Timestamped>(&event)) s.digests.insert(t->digest);
  if (const auto* r = std::get_if<EvidenceRecorded>(&event)) s.recorded = r->digest;
  return core::Status::Ok();
}

}  // namespace svc::commands::audit
