#pragma once
// Trusted timestamps of evidence (issue 35; NOM-151): a token of a time-stamping authority
// (RFC 3161) over the SHA-256 of a piece of evidence, recorded in the log. One aggregate per piece
// of evidence ("evidence_timestamps", id "<kind>/<subject>"): a verification certificate (kind
// verification_certificate, subject the session id), a deletion certificate
// (deletion_certificate, the person id), a published audit checkpoint (audit_checkpoint, the tree
// size), a bulk export's sealed dump (bulk_export, the job id), and an ARCO access bundle answered
// by POST /v1/persons/{id}/export (person_export, the bundle's own id, pxb_…): the service records
// that bundle's digest itself (evidence.recorded), since it exists only in the answer. The timestamper (pipeline/audit/timestamper.h) obtains and checks the token; the command
// only records it. The same digest is recorded once: a repeated or concurrent record is a no-op.
//
// The token is the TSA's TimeStampToken (CMS SignedData, DER) in base64: what anyone checks
// offline with `openssl ts -verify -digest <digest> -in token.der -token_in -CAfile <TSA roots>`
// (docs/audit.md#trusted-timestamps). No personal data: digests, the TSA's names and its token.

#include <set>
#include <string>
#include <variant>

#include "commands/command.h"
#include "commands/decider.h"
#include "core/json_fields.h"

namespace svc::commands::audit {

inline constexpr std::string_view kTimestampsAggregate = "evidence_timestamps";

// The kinds of evidence that are timestamped.
inline constexpr std::string_view kVerificationCertificate = "verification_certificate";
inline constexpr std::string_view kDeletionCertificate = "deletion_certificate";
inline constexpr std::string_view kAuditCheckpoint = "audit_checkpoint";
inline constexpr std::string_view kBulkExport = "bulk_export";
inline constexpr std::string_view kPersonExport = "person_export";
bool IsTimestampKind(std::string_view kind);
// The aggregate id of one piece of evidence.
inline std::string TimestampsId(std::string_view kind, std::string_view subject) {
  return std::string(kind) + "/" + std::string(subject);
}

struct Timestamped {
  static constexpr std::string_view kType = "evidence.timestamped";
  std::string kind;
  std::string subject;
  std::string digest;         // SHA-256 hex of what the token covers
  std::string token;          // TimeStampToken, DER, base64
  std::string gen_time;       // the TSA's time, RFC 3339
  std::string serial_number;  // the token's serial, hex
  std::string policy;         // the TSA policy, dotted OID
  std::string tsa_name;       // the TSA signer's subject (RFC 2253)
  std::string tsa_url;        // where it was obtained
  std::string queue_event_id;  // the event that asked for it (the read model's queue entry it settles)
  static constexpr auto Fields() {
    using T = Timestamped;
    return std::tuple{core::Field("kind", &T::kind),
                      core::Field("subject", &T::subject),
                      core::Field("digest", &T::digest),
                      core::Field("token", &T::token),
                      core::Field("genTime", &T::gen_time),
                      core::Field("serialNumber", &T::serial_number),
                      core::Field("policy", &T::policy),
                      core::Field("tsaName", &T::tsa_name),
                      core::Field("tsaUrl", &T::tsa_url),
                      core::Field("queueEventId", &T::queue_event_id)};
  }
};

// A queued request for a digest that has its token already (the same evidence asked again): the
// queue entry settled, no second token.
struct TimestampSettled {
  static constexpr std::string_view kType = "evidence.timestamp_settled";
  std::string kind;
  std::string subject;
  std::string digest;
  std::string queue_event_id;
  static constexpr auto Fields() {
    using T = TimestampSettled;
    return std::tuple{core::Field("kind", &T::kind), core::Field("subject", &T::subject),
                      core::Field("digest", &T::digest), core::Field("queueEventId", &T::queue_event_id)};
  }
};

// The digest of evidence that exists only in an answer (an ARCO access bundle): what the service
// answered, recorded before it is answered, so that a token can be asked for it and a receipt
// shown later. Ids, a digest, a size and a time: no value of the bundle.
struct EvidenceRecorded {
  static constexpr std::string_view kType = "evidence.recorded";
  std::string kind;
  std::string subject;
  std::string digest;     // SHA-256 hex of the answered body's bytes
  int64_t size_bytes = 0;
  std::string person_id;  // whose data it is
  std::string generated_at;  // RFC 3339, as in the bundle
  std::string arco_request_id;  // the ARCO access request the bundle fulfils, "" = none
  static constexpr auto Fields() {
    using T = EvidenceRecorded;
    return std::tuple{core::Field("kind", &T::kind),           core::Field("subject", &T::subject),
                      core::Field("digest", &T::digest),       core::Field("sizeBytes", &T::size_bytes),
                      core::Field("personId", &T::person_id),  core::Field("generatedAt", &T::generated_at),
                      core::Field("arcoRequestId", &T::arco_request_id, core::Empty::kOmit)};
  }
};

using TimestampsEvent = std::variant<Timestamped, TimestampSettled, EvidenceRecorded>;
core::Result<TimestampsEvent> DecodeTimestamps(const eventstore::EventEnvelope& envelope);

struct TimestampsState {
  std::set<std::string> digests;  // stamped already
  std::string recorded;           // the digest of evidence.recorded, once
  static constexpr auto Fields() {
    return std::tuple{core::Field("digests", &TimestampsState::digests),
                      core::Field("recorded", &TimestampsState::recorded)};
  }
};

// With a token: recorded (evidence.timestamped), or, when the digest has one already, the queue
// entry settled (evidence.timestamp_settled). Without one (token ""): only the settling, for a
// digest stamped already.
struct RecordTimestamp {
  Timestamped token;
  static constexpr std::string_view kCommand = "RecordTimestamp";
  static constexpr auto Fields() { return std::tuple{core::Field("token", &RecordTimestamp::token)}; }
};

// The digest of an answer that is evidence (evidence.recorded). Once per aggregate: the same digest
// again is a no-op, another one a conflict (evidence does not change).
struct RecordEvidence {
  EvidenceRecorded evidence;
  static constexpr std::string_view kCommand = "RecordEvidence";
  static constexpr auto Fields() { return std::tuple{core::Field("evidence", &RecordEvidence::evidence)}; }
};

using TimestampsCommand = std::variant<RecordTimestamp, RecordEvidence>;

struct TimestampsDecider : FieldSnapshots<TimestampsDecider, TimestampsState> {
  using CommandType = TimestampsCommand;
  static constexpr std::string_view kName = kTimestampsAggregate;
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;
  // INVALID_ARGUMENT for an unknown kind, a digest that is not 64 hex, no token for a digest not
  // stamped yet. Result {"recorded": bool}: false when the digest had its token (or the evidence
  // its digest) already. ALREADY_EXISTS: evidence recorded with another digest.
  static core::Result<Decision> Decide(const TimestampsState& s, const TimestampsCommand& c, const CommandContext& ctx);
  static core::Status Evolve(TimestampsState& s, const eventstore::EventEnvelope& e);
};

}  // namespace svc::commands::audit
