#include "commands/event_codec.h"
#include "commands/verification/efirma_challenge.h"
#include "core/clock.h"

namespace svc::commands::verification {

core::Result<EfirmaEvent> DecodeEfirma(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<EfirmaEvent>(envelope, "e.firma challenge");
}

std::string EfirmaChallengeText(const std::string& session_id, const std::string& challenge_id,
                                const std::string& nonce, int64_t expires_at_micros) {
  return "svc e.firma possession proof\nsession: " + session_id + "\nchallenge: " + challenge_id +
         "\nnonce: " + nonce + "\nexpires: " + core::FormatRfc3339(core::Timestamp{expires_at_micros}) + "\n";
}

}  // namespace svc::commands::verification
