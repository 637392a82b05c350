#include "commands/event_codec.h"
#include "commands/verification/efirma_challenge.h"
#include "core/clock.h"

namespace svc::commands::verification {

core::Result<EfirmaEvent> DecodeEfirma(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<EfirmaEvent>(envelope, "e.firma challenge");
}

std::string EfirmaChallengeText(const std::string& session_id, const std::string& challenge_id,
                                const std::string& nonce, int64_t expires_at_micros, const std::string& consent_purpose,
                                const std::string& consent_policy_version) {
  std::string text = "svc e.firma possession proof\nsession: " + session_id + "\nchallenge: " + challenge_id +
                     "\nnonce: " + nonce + "\nexpires: " + core::FormatRfc3339(core::Timestamp{expires_at_micros}) + "\n";
  if (!consent_purpose.empty()) {
    // The holder's own words, in the language of the privacy notice (LFPDPPP art. 8: express consent).
    text += "consent: otorgo mi consentimiento expreso para el tratamiento de mis datos personales con la finalidad " +
            consent_purpose + ", conforme al aviso de privacidad versión " + consent_policy_version + "\n";
  }
  return text;
}

}  // namespace svc::commands::verification
