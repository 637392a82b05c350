#pragma once
// Trusted timestamps of evidence (issue 35; NOM-151): a token of a time-stamping authority
// (RFC 3161) over the SHA-256 of a piece of evidence, recorded in the log. One aggregate per piece
// of evidence ("evidence_timestamps", id "<kind>/<subject>"): a verification certificate (kind
// verification_certificate, subject the session id), a deletion certificate
// (deletion_certificate, the person id), a published audit checkpoint (audit_checkpoint, the tree
// size). The timestamper (pipeline/audit/timestamper.h) obtains and checks the token; the command
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

using TimestampsEvent = std::variant<Timestamped, TimestampSettled>;
core::Result<TimestampsEvent> DecodeTimestamps(const eventstore::EventEnvelope& envelope);

struct TimestampsState {
  std::set<std::string> digests;  // stamped already
  static constexpr auto Fields() { return std::tuple{core::Field("digests", &TimestampsState::digests)}; }
};

// With a token: recorded (evidence.timestamped), or, when the digest has one already, the queue
// entry settled (evidence.timestamp_settled). Without one (token ""): only the settling, for a
// digest stamped already.
struct RecordTimestamp {
  Timestamped token;
  static constexpr std::string_view kCommand = "RecordTimestamp";
  static constexpr auto Fields() { return std::tuple{core::Field("token", &RecordTimestamp::token)}; }
};

struct TimestampsDecider : FieldSnapshots<TimestampsDecider, TimestampsState> {
  using CommandType = RecordTimestamp;
  static constexpr std::string_view kName = kTimestampsAggregate;
  // INVALID_ARGUMENT for an unknown kind, a digest that is not 64 hex, no token for a digest not
  // stamped yet. Result {"recorded": bool}: false when the digest had its token already.
  static core::Result<Decision> Decide(const TimestampsState& s, const RecordTimestamp& c, const CommandContext& ctx);
  static core::Status Evolve(TimestampsState& s, const eventstore::EventEnvelope& e);
};

}  // namespace svc::commands::audit
