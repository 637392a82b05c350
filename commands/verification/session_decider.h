#pragma once
// The verification session aggregate (aggregate id = vrf_…). This slice covers create, consent
// and expiry; the capture/submit/decision transitions arrive with the verification-flow issue.
// The transition table lives in docs/verification-sessions.md.

#include <string>
#include <variant>

#include "commands/command.h"
#include "commands/verification/session_events.h"

namespace svc::commands::verification {

struct SessionState {
  bool exists = false;
  std::string status;  // spec enum
  std::string current_step;
  int64_t created_micros = 0;
  int64_t updated_micros = 0;
  int64_t started_micros = 0;
  int64_t completed_micros = 0;
  int64_t expires_micros = 0;
  bool consent_recorded = false;
  bool consent_accepted = false;
  int64_t consent_recorded_micros = 0;

  bool Terminal() const {
    return status == "approved" || status == "declined" || status == "expired" ||
           status == "abandoned";
  }
};

struct CreateSession {
  SessionCreated created;  // validated by the API layer; the decider checks state only
};
struct RecordConsent {
  bool accepted = false;
  int64_t consented_at_micros = 0;  // 0 = now
  std::string policy_version;
  std::string subject_sealed;
};
struct ExpireSession {};

using SessionCommand = std::variant<CreateSession, RecordConsent, ExpireSession>;

struct SessionDecider {
  using State = SessionState;
  static constexpr std::string_view kName = "verification_session";

  static core::Result<Decision> Decide(const SessionState& state, const SessionCommand& command,
                                       const CommandContext& ctx);
  static core::Status Evolve(SessionState& state, const eventstore::EventEnvelope& event);
  static void EvolveDecoded(SessionState& state, const SessionEvent& event,
                            core::Timestamp occurred_at);
  static core::Json ToJson(const SessionState& state);
  static core::Result<SessionState> FromJson(std::string_view text);
};

}  // namespace svc::commands::verification
