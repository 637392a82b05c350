#pragma once
// The evidence timestamps read model's keys (prefix "timestamps/"), for TimestampsProjector and
// its readers (the timestamper's queue; the certificates and checkpoints that show their tokens).
//
//   q/<ten>/<env>/<kind>/<subject>        evidence waiting for a token: {tenantId, environment,
//                                         kind, subject, digest (when the event gives it),
//                                         eventId, partition, offset (the event that asked),
//                                         queuedAt, queuedAtMicros}
//   tok/<ten>/<env>/<kind>/<subject>/<digest>
//                                         a token recorded (evidence.timestamped), as served in
//                                         a document's `timestamps`
//   rcpt/<ten>/<env>/<kind>/<subject>     evidence the service recorded itself (evidence.recorded:
//                                         an ARCO access bundle): {kind, subject, digest,
//                                         sizeBytes, personId, generatedAt, recordedAt}
//
// Kinds: commands/audit/timestamps.h. `te` is "<ten>/<env>" (TenantEnv).

#include <string>
#include <string_view>

#include "projections/view_key.h"

namespace svc::projections {

struct TimestampsView {
  static constexpr std::string_view kName = "timestamps";

  static std::string Queue() { return "q/"; }
  static std::string Queued(std::string_view te, std::string_view kind, std::string_view subject) {
    return ScopedKey("q/", te, std::string(kind) + "/" + std::string(subject));
  }
  static std::string Tokens(std::string_view te, std::string_view kind, std::string_view subject) {
    return ScopedKey("tok/", te, std::string(kind) + "/" + std::string(subject)) + "/";
  }
  static std::string Token(std::string_view te, std::string_view kind, std::string_view subject,
                           std::string_view digest) {
    return Tokens(te, kind, subject) + std::string(digest);
  }
  static std::string Receipt(std::string_view te, std::string_view kind, std::string_view subject) {
    return ScopedKey("rcpt/", te, std::string(kind) + "/" + std::string(subject));
  }
  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }
};

}  // namespace svc::projections
