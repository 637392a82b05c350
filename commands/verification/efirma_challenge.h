#pragma once
// An e.firma possession challenge ("efirma_challenge", id efc_…; docs/verification-sessions.md#efirma):
// the text a verification session's applicant signs with the private key of their e.firma (the
// SAT's FIEL), one use, about two minutes. One aggregate per challenge, so its use is decided
// once: of any number of concurrent answers exactly one is recorded. The check itself (signature,
// chain, revocation, the RFC and CURP against the vault) is made before the answer is recorded
// (pipeline/verification/efirma_check.h); the event keeps its result, never the holder's RFC or
// CURP in clear (sealed under the session's key).

#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "core/json_fields.h"

namespace svc::commands::verification {

inline constexpr std::string_view kEfirmaAggregate = "efirma_challenge";

// A session issues at most this many e.firma challenges (issue 68: 300 in 0.2 s were taken). The
// cap is decided in the log: a session's challenges have the ids of its slots 1..the cap (below)
// and no other, and a challenge whose aggregate exists is not issued again (CONFLICT).
inline constexpr int kMaxEfirmaChallengesPerSession = 10;
// The id of a session's slot `slot` (1-based): efc_ and 32 hex digits of SHA-256 over the session
// and the slot. Guessable, and worth nothing guessed: an answer needs the holder's signature over
// the challenge's text, whose nonce is random.
std::string EfirmaChallengeSlotId(std::string_view session_id, int slot);
inline constexpr int64_t kEfirmaChallengeTtlMicros = 120'000'000;  // the spec's "about 2 minutes"

struct EfirmaChallengeIssued {
  static constexpr std::string_view kType = "efirma.challenge_issued";
  std::string session_id;
  std::string nonce;  // base64url, 32 random bytes
  int64_t expires_at_micros = 0;
  // A consent the signature also gives (purpose of the catalogue, privacy notice version): the
  // text says so, and the check can then be a consent's evidence (mechanism firma_electronica).
  std::string consent_purpose;         // "" = a possession proof only
  std::string consent_policy_version;
  static constexpr auto Fields() {
    using T = EfirmaChallengeIssued;
    return std::tuple{core::Field("sessionId", &T::session_id), core::Field("nonce", &T::nonce),
                      core::Field("expiresAtMicros", &T::expires_at_micros),
                      core::Field("consentPurpose", &T::consent_purpose, core::Empty::kOmit),
                      core::Field("consentPolicyVersion", &T::consent_policy_version, core::Empty::kOmit)};
  }
};

struct EfirmaChecked {
  static constexpr std::string_view kType = "efirma.checked";
  std::string status;  // passed | failed
  std::vector<std::string> reason_codes;
  std::string certificate_sha256;  // hex of the .cer's DER
  std::string serial_hex;
  std::string issuer;
  int64_t not_after_micros = 0;
  std::string ocsp;             // good | revoked | unknown | unavailable | not_checked | skipped
  std::string holder_sealed;    // base64 of sealed {"rfc", "curp", "name"} (the session's key)
  std::string rfc_vs_person;    // match | mismatch | not_compared
  std::string curp_vs_person;
  std::string signature_sha256;  // hex of the signature bytes
  int64_t latency_ms = 0;
  // base64 of sealed {"certificate", "signature" (base64 both), "text"} under the session's key:
  // what was signed and the signature itself, kept as evidence (a consent's, the session's).
  std::string evidence_sealed;
  static constexpr auto Fields() {
    using T = EfirmaChecked;
    return std::tuple{core::Field("status", &T::status), core::Field("reasonCodes", &T::reason_codes),
                      core::Field("certificateSha256", &T::certificate_sha256), core::Field("serialHex", &T::serial_hex),
                      core::Field("issuer", &T::issuer), core::Field("notAfterMicros", &T::not_after_micros),
                      core::Field("ocsp", &T::ocsp), core::Field("holderSealed", &T::holder_sealed, core::Empty::kNull),
                      core::Field("rfcVsPerson", &T::rfc_vs_person), core::Field("curpVsPerson", &T::curp_vs_person),
                      core::Field("signatureSha256", &T::signature_sha256), core::Field("latencyMs", &T::latency_ms),
                      core::Field("evidenceSealed", &T::evidence_sealed, core::Empty::kOmit)};
  }
};

using EfirmaEvent = std::variant<EfirmaChallengeIssued, EfirmaChecked>;
core::Result<EfirmaEvent> DecodeEfirma(const eventstore::EventEnvelope& envelope);

// The exact text the holder signs (UTF-8, its bytes as they are): it names the service, the
// session, the challenge, its nonce and its expiry, so a signature proves possession for this
// session now and is worth nothing for another.
// With consent terms, the text also states the consent (purpose and privacy notice version).
std::string EfirmaChallengeText(const std::string& session_id, const std::string& challenge_id,
                                const std::string& nonce, int64_t expires_at_micros,
                                const std::string& consent_purpose = "", const std::string& consent_policy_version = "");

struct EfirmaState {
  std::string session_id;  // "" = no such challenge
  int64_t expires_micros = 0;
  bool spent = false;
  static constexpr auto Fields() {
    using T = EfirmaState;
    return std::tuple{core::Field("sessionId", &T::session_id), core::Field("expires", &T::expires_micros),
                      core::Field("spent", &T::spent)};
  }
};

// `challenge.nonce` is drawn by the caller; the decider sets the expiry from the clock (at most
// the session's own expiry, `session_expires_micros`).
struct IssueEfirmaChallenge {
  EfirmaChallengeIssued challenge;
  int64_t session_expires_micros = 0;
  static constexpr std::string_view kCommand = "IssueEfirmaChallenge";
  static constexpr auto Fields() {
    using T = IssueEfirmaChallenge;
    return std::tuple{core::Field("challenge", &T::challenge), core::Field("sessionExpiresMicros", &T::session_expires_micros)};
  }
};
// The answer to a challenge of session `session_id`, checked: EFIRMA_CHALLENGE_NOT_FOUND (404;
// also another session's), EFIRMA_CHALLENGE_ALREADY_USED (409), EFIRMA_CHALLENGE_EXPIRED (410).
struct RecordEfirmaCheck {
  std::string session_id;
  EfirmaChecked check;
  static constexpr std::string_view kCommand = "RecordEfirmaCheck";
  static constexpr auto Fields() {
    using T = RecordEfirmaCheck;
    return std::tuple{core::Field("sessionId", &T::session_id), core::Field("check", &T::check)};
  }
};
using EfirmaCommand = std::variant<IssueEfirmaChallenge, RecordEfirmaCheck>;

// What a challenge allows now: the same codes as the decider (for a check before the work).
core::Status EfirmaChallengeUsable(const EfirmaState& s, const std::string& session_id, int64_t now_micros);

struct EfirmaDecider : FieldSnapshots<EfirmaDecider, EfirmaState> {
  using CommandType = EfirmaCommand;
  static constexpr std::string_view kName = kEfirmaAggregate;
  static core::Result<Decision> Decide(const EfirmaState& s, const EfirmaCommand& c, const CommandContext& ctx);
  static core::Status Evolve(EfirmaState& s, const eventstore::EventEnvelope& e);
};

}  // namespace svc::commands::verification
