#pragma once
// Read model of verification sessions (prefix "sessions/").
//
//   rec/<ten>/<env>/<vrf>                      the VerificationSessionResponse record
//   created/<ten>/<env>/<vrf>                  the record as created (+ sealed link token): what
//                                              an idempotent retry of the create answers
//   idx/<ten>/<env>/all/<newest-first key>     one index per list filter; key = 8-byte
//   idx/<ten>/<env>/status/<s>/<…>             (2^64-1 - createdAt micros) big-endian + id, so
//   idx/<ten>/<env>/app/<app_id>/<…>           a forward scan is newest first
//   cnt/<ten>/<env>/{all|status/<s>|app/<a>}   counters for includeTotal
//   consent/<ten>/<env>/<vrf>                  the consent answer (no personal data)
//   exp/<expiresAt micros BE>/<ten>/<env>/<vrf>  open sessions by expiry, for the expiry timer

#include "projections/projector.h"

namespace svc::projections {

class SessionsProjector final : public Projector {
 public:
  static constexpr std::string_view kName = "sessions";
  std::string_view Name() const override { return kName; }
  int Version() const override { return 3; }
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;

  // Index key suffix ordering newest first.
  static std::string OrderKey(int64_t created_micros, std::string_view id);
  static std::string ExpiryKey(int64_t expires_micros, std::string_view tenant,
                               std::string_view env, std::string_view id);
};

}  // namespace svc::projections
