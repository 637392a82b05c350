#include "commands/verification/efirma_challenge.h"

#include "core/crypto.h"

#include <algorithm>

#include "commands/event_codec.h"

namespace svc::commands::verification {

core::Status EfirmaChallengeUsable(const EfirmaState& s, const std::string& session_id, int64_t now_micros) {
  if (s.session_id.empty() || s.session_id != session_id) {
    return core::NotFound("no such e.firma challenge for this session", "EFIRMA_CHALLENGE_NOT_FOUND");
  }
  if (s.spent) return core::FailedPrecondition("the e.firma challenge was answered already: ask for a new one", "EFIRMA_CHALLENGE_ALREADY_USED");
  if (now_micros > s.expires_micros) {
    return core::FailedPrecondition("the e.firma challenge expired: ask for a new one", "EFIRMA_CHALLENGE_EXPIRED");
  }
  return core::Status::Ok();
}

std::string EfirmaChallengeSlotId(std::string_view session_id, int slot) {
  return "efc_" + core::Sha256Hex("svc e.firma challenge slot\n" + std::string(session_id) + "\n" +
                                  std::to_string(slot))
                      .substr(0, 32);
}

core::Result<Decision> EfirmaDecider::Decide(const EfirmaState& s, const EfirmaCommand& command, const CommandContext& ctx) {
  Decision d;
  if (const auto* issue = std::get_if<IssueEfirmaChallenge>(&command)) {
    if (!s.session_id.empty()) return core::AlreadyExists("the e.firma challenge exists", "CONFLICT");
    EfirmaChallengeIssued e = issue->challenge;
    e.expires_at_micros = ctx.now.micros + kEfirmaChallengeTtlMicros;
    if (issue->session_expires_micros > 0) e.expires_at_micros = std::min(e.expires_at_micros, issue->session_expires_micros);
    d.events.push_back(NewEventOf(EfirmaEvent(e)));
    d.result = {{"expiresAtMicros", e.expires_at_micros}};
    return d;
  }
  const auto& record = std::get<RecordEfirmaCheck>(command);
  SVC_RETURN_IF_ERROR(EfirmaChallengeUsable(s, record.session_id, ctx.now.micros));
  if (record.check.status != "passed" && record.check.status != "failed") {
    return core::InvalidArgument("an e.firma check passed or failed", "VALIDATION_ERROR");
  }
  d.events.push_back(NewEventOf(EfirmaEvent(record.check)));
  return d;
}

core::Status EfirmaDecider::Evolve(EfirmaState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(EfirmaEvent event, DecodeEfirma(e));
  if (const auto* issued = std::get_if<EfirmaChallengeIssued>(&event)) {
    s.session_id = issued->session_id;
    s.expires_micros = issued->expires_at_micros;
  } else {
    s.spent = true;
  }
  return core::Status::Ok();
}

}  // namespace svc::commands::verification
