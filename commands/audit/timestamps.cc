#include "commands/audit/timestamps.h"

#include "commands/event_codec.h"

namespace svc::commands::audit {

bool IsTimestampKind(std::string_view kind) {
  return kind == kVerificationCertificate || kind == kDeletionCertificate || kind == kAuditCheckpoint;
}

core::Result<Decision> TimestampsDecider::Decide(const TimestampsState& s, const RecordTimestamp& c,
                                                 const CommandContext&) {
  const Timestamped& t = c.token;
  if (!IsTimestampKind(t.kind) || t.subject.empty()) return core::InvalidArgument("unknown evidence kind: " + t.kind);
  bool hex = t.digest.size() == 64;
  for (char ch : t.digest) hex = hex && ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'));
  if (!hex) return core::InvalidArgument("a timestamp's digest is a SHA-256 in lowercase hex");
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
  return core::Status::Ok();
}

}  // namespace svc::commands::audit
