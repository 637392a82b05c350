#pragma once
// e.firma possession proofs of a verification session (docs/verification-sessions.md#efirma), the
// use cases below the routes: a challenge issued for a session that turned the check on, and an
// answer checked in full — the challenge usable, the signature, the chain to the SAT, revocation
// (adapters/efirma_http.h), and the holder's RFC and CURP against the person of the vault the
// session is for (compared through the vault's blind index: nothing is opened) — then recorded on
// the challenge (commands/verification/efirma_challenge.h), passed or failed with its reasons.

#include <string>

#include "commands/command.h"
#include "commands/verification/efirma_challenge.h"
#include "core/status.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/adapters/efirma_http.h"

namespace svc::pipeline::verification {

struct EfirmaDeps {
  const eventstore::KvStore* views = nullptr;
  eventstore::KeyStore* keys = nullptr;        // the vault's index key (blind index)
  adapters::EfirmaVerifier* verifier = nullptr;  // null: e.firma is not configured (--efirma-roots)
  // The holder's RFC, CURP and name are sealed in the event under the session's data key.
};

// The holder ({rfc, curp, name}) of a recorded check, opened with the session's data key `dek`.
std::string EfirmaHolderAad(const std::string& tenant, const std::string& env, const std::string& session_id,
                            const std::string& challenge_id);
core::Result<core::Json> OpenEfirmaHolder(const std::string& dek, const std::string& tenant, const std::string& env,
                                          const std::string& session_id, const std::string& challenge_id,
                                          const std::string& sealed_b64);

// The command issuing challenge `challenge_id` (nonce drawn here) for session `session_id`, whose
// record and settings the read models show: SESSION_NOT_FOUND, SESSION_EXPIRED and
// SESSION_COMPLETED, CONSENT_REQUIRED (the session's capture rules), CHECK_NOT_ENABLED_FOR_FLOW
// (extension check: efirma) unless the session's checks turn e.firma on, EFIRMA_CERT_NOT_READY
// (400) when the service has no SAT certificates to check with.
core::Result<commands::Command> EfirmaChallengeCommand(const EfirmaDeps& deps, const std::string& tenant,
                                                       const std::string& environment, const std::string& session_id,
                                                       const std::string& challenge_id, commands::CommandContext ctx);

struct EfirmaAnswer {
  std::string challenge_id;
  std::string certificate;  // the .cer's bytes (DER) or PEM
  std::string signature;    // raw bytes
};
// The command recording the checked answer. The challenge's own refusals first (before any work):
// EFIRMA_CHALLENGE_NOT_FOUND, EFIRMA_CHALLENGE_ALREADY_USED, EFIRMA_CHALLENGE_EXPIRED; a
// certificate that is none: EFIRMA_CERT_NOT_READY. Everything else is a result (passed, or failed
// with reason codes), recorded.
core::Result<commands::Command> EfirmaCheckCommand(const EfirmaDeps& deps, const std::string& tenant,
                                                   const std::string& environment, const std::string& session_id,
                                                   const EfirmaAnswer& answer, commands::CommandContext ctx);

}  // namespace svc::pipeline::verification
