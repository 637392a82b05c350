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
#include "commands/persons/person_events.h"
#include "pipeline/adapters/efirma_http.h"
#include "pipeline/persons/person_writes.h"

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

// The command issuing the session's next challenge (nonce drawn here) for session `session_id`,
// whose record and settings the read models show. Its id is the session's first slot the e.firma
// read model does not show (verification::EfirmaChallengeSlotId); all shown: CAPTURE_NOT_ALLOWED
// (409, the session's most). Two issued at once may pick the same slot: the writer issues one and
// answers the other CONFLICT (409; a retry takes the next slot). SESSION_NOT_FOUND, SESSION_EXPIRED and
// SESSION_COMPLETED, CONSENT_REQUIRED (the session's capture rules), CHECK_NOT_ENABLED_FOR_FLOW
// (extension check: efirma) unless the session's checks turn e.firma on, EFIRMA_CERT_NOT_READY
// (400) when the service has no SAT certificates to check with.
// `consent`: terms the signature also gives (purpose, policyVersion; PURPOSE_UNKNOWN for a purpose
// outside the catalogue), or empty for a possession proof only.
struct EfirmaConsentTerms {
  std::string purpose;
  std::string policy_version;
};
core::Result<commands::Command> EfirmaChallengeCommand(const EfirmaDeps& deps, const std::string& tenant,
                                                       const std::string& environment, const std::string& session_id,
                                                       const EfirmaConsentTerms& consent, commands::CommandContext ctx);

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

// The evidence of a consent given by e.firma (docs/persons.md#consents-and-grants): `evidence` is
// the grant's, naming `efirmaChallengeId`; the check must have passed, be for a session of person
// `person_id`, and its challenge must state this consent (`purpose`, `policy_version`). Returns
// the evidence to seal under the person's key: the caller's members, and `efirma` with the signed
// text, the certificate, the signature and the check's result. EFIRMA_CHALLENGE_NOT_FOUND (404)
// for a challenge of no session of this tenant, VALIDATION_ERROR (422, pointer
// /evidence/efirmaChallengeId) for one that does not back this consent.
core::Result<core::Json> EfirmaConsentEvidence(const EfirmaDeps& deps, const std::string& tenant,
                                               const std::string& environment, const std::string& person_id,
                                               const std::string& purpose, const std::string& policy_version,
                                               const core::Json& evidence);

// A consent's command (persons::GrantConsentCommand): when `evidence` names `efirmaChallengeId`,
// the consent is given by e.firma: mechanism firma_electronica (VALIDATION_ERROR otherwise), the
// evidence EfirmaConsentEvidence makes sealed, the consent naming the check.
core::Result<commands::Command> ConsentCommand(const EfirmaDeps& deps, const persons::PersonRef& who,
                                               commands::persons::ConsentGranted consent, const core::Json* evidence,
                                               commands::CommandContext ctx);

}  // namespace svc::pipeline::verification
