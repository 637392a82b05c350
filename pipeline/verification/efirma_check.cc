#include "pipeline/verification/efirma_check.h"

#include "commands/verification/session_status.h"
#include "core/crypto.h"
#include "core/mx_ids.h"
#include "pipeline/persons/person_writes.h"
#include "pipeline/persons/purposes.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/efirma_view.h"
#include "projections/persons/persons_view.h"
#include "projections/sessions_view.h"
#include "projections/verification_view.h"
#include "projections/view_rows.h"

namespace svc::pipeline::verification {

namespace vs = commands::verification;
using EV = projections::EfirmaView;
using SV = projections::SessionsView;
using VV = projections::VerificationView;
using PV = projections::PersonsView;

namespace {

core::Status NotConfigured() {
  return core::InvalidArgument("this service checks no e.firma: the operator has not given it the SAT's certificates "
                               "(--efirma-roots)",
                               "EFIRMA_CERT_NOT_READY");
}

// "match", "mismatch" or "not_compared": the certificate's value of `field` against the person's,
// through the vault's blind index (the same keyed hash of the same normalised value).
core::Result<std::string> Compare(const EfirmaDeps& deps, const std::string& tenant, const std::string& env,
                                  const core::Json& sealed_row, const std::string& field, const std::string& value) {
  const core::Json entry = sealed_row.value(field, core::Json(nullptr));
  if (value.empty() || !entry.is_object()) return std::string("not_compared");
  const core::Json index = entry.value("index", core::Json::array());
  if (index.empty()) return std::string("not_compared");
  SVC_ASSIGN_OR_RETURN(std::string key, persons::IndexKey(*deps.keys, tenant, env));
  const auto mine = persons::BlindKeys(key, field, value);
  return std::string(!mine.empty() && mine[0] == index[0].get<std::string>() ? "match" : "mismatch");
}

}  // namespace

std::string EfirmaHolderAad(const std::string& tenant, const std::string& env, const std::string& session_id,
                            const std::string& challenge_id) {
  return "efirma|" + tenant + "/" + env + "/" + session_id + "|" + challenge_id;
}

core::Result<core::Json> OpenEfirmaHolder(const std::string& dek, const std::string& tenant, const std::string& env,
                                          const std::string& session_id, const std::string& challenge_id,
                                          const std::string& sealed_b64) {
  SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed_b64));
  SVC_ASSIGN_OR_RETURN(std::string plain,
                       core::AeadOpen(dek, raw, EfirmaHolderAad(tenant, env, session_id, challenge_id)));
  return core::ParseJsonOrDiscarded(plain);
}

core::Result<commands::Command> EfirmaChallengeCommand(const EfirmaDeps& deps, const std::string& tenant,
                                                       const std::string& env, const std::string& session_id,
                                                       const EfirmaConsentTerms& consent, commands::CommandContext ctx) {
  if (!consent.purpose.empty() && !persons::IsKnownPurpose(consent.purpose)) {
    return core::InvalidArgument("consent.purpose must be one of the catalogue's (docs/persons.md#purposes)",
                                 "PURPOSE_UNKNOWN");
  }
  const std::string te = projections::TenantEnv(tenant, env);
  SVC_ASSIGN_OR_RETURN(auto rec, projections::ReadRow(*deps.views, SV::Abs(SV::Record(te, session_id))));
  if (!rec.has_value()) return core::NotFound("no such session", "SESSION_NOT_FOUND");
  SVC_ASSIGN_OR_RETURN(auto settings, projections::ReadRow(*deps.views, VV::Abs(VV::Settings(te, session_id))));
  const bool on = settings.has_value() && settings->value("checks", core::Json::object()).value("efirma", false) == true;
  if (!on) {
    return core::InvalidArgument("the e.firma check is not on for this session (create it with checks.efirma: true)",
                                 "CHECK_NOT_ENABLED_FOR_FLOW")
        .WithExtension("check", "efirma");
  }
  if (deps.verifier == nullptr) return NotConfigured();
  auto expires = core::ParseRfc3339(core::StringOr(*rec, "expiresAt"));
  const int64_t session_expires = expires.ok() ? expires->micros : 0;
  const std::string status = core::StringOr(*rec, "status");
  vs::SessionFacts facts{status, false, session_expires > 0 && ctx.now.micros >= session_expires};
  SVC_RETURN_IF_ERROR(vs::CheckLive(facts));
  SVC_RETURN_IF_ERROR(vs::CheckCaptureOpen(facts));
  // The session's first free slot, as the read model shows them; the writer decides (an existing
  // challenge is not issued again), so the cap holds whatever the read model lags.
  std::string challenge_id;
  for (int slot = 1; slot <= vs::kMaxEfirmaChallengesPerSession && challenge_id.empty(); ++slot) {
    const std::string id = vs::EfirmaChallengeSlotId(session_id, slot);
    SVC_ASSIGN_OR_RETURN(auto taken, projections::ReadRow(*deps.views, EV::Abs(EV::Challenge(te, id))));
    if (!taken.has_value()) challenge_id = id;
  }
  if (challenge_id.empty()) {
    return core::FailedPrecondition("this session already issued the most e.firma challenges (" +
                                        std::to_string(vs::kMaxEfirmaChallengesPerSession) + ")",
                                    "CAPTURE_NOT_ALLOWED");
  }
  vs::IssueEfirmaChallenge issue;
  issue.challenge.session_id = session_id;
  issue.challenge.nonce = core::Base64UrlEncode(core::RandomBytes(32));
  issue.challenge.consent_purpose = consent.purpose;
  issue.challenge.consent_policy_version = consent.policy_version;
  issue.session_expires_micros = session_expires;
  return commands::MakeCommand<vs::EfirmaDecider>(tenant, challenge_id, vs::EfirmaCommand(std::move(issue)), std::move(ctx));
}

core::Result<commands::Command> EfirmaCheckCommand(const EfirmaDeps& deps, const std::string& tenant,
                                                   const std::string& env, const std::string& session_id,
                                                   const EfirmaAnswer& answer, commands::CommandContext ctx) {
  if (deps.verifier == nullptr) return NotConfigured();
  const std::string te = projections::TenantEnv(tenant, env);
  // The challenge's own refusals before any work (the decider decides them again, in the log).
  SVC_ASSIGN_OR_RETURN(auto ch, projections::ReadRow(*deps.views, EV::Abs(EV::Challenge(te, answer.challenge_id))));
  vs::EfirmaState state;
  if (ch.has_value()) {
    state.session_id = core::StringOr(*ch, "sessionId");
    state.expires_micros = ch->value("expiresAtMicros", int64_t{0});
    state.spent = ch->value("answered", false);
  }
  SVC_RETURN_IF_ERROR(vs::EfirmaChallengeUsable(state, session_id, ctx.now.micros));
  const std::string text =
      vs::EfirmaChallengeText(session_id, answer.challenge_id, core::StringOr(*ch, "nonce"), state.expires_micros,
                              core::StringOr(*ch, "consentPurpose"), core::StringOr(*ch, "consentPolicyVersion"));
  SVC_ASSIGN_OR_RETURN(auto result, deps.verifier->Verify(answer.certificate, text, answer.signature));
  vs::EfirmaChecked c;
  c.reason_codes = result.reasons;
  c.certificate_sha256 = result.certificate.sha256_hex;
  c.serial_hex = result.certificate.serial_hex;
  c.issuer = result.certificate.issuer;
  c.not_after_micros = result.certificate.not_after_micros;
  c.ocsp = result.ocsp;
  c.signature_sha256 = core::Sha256Hex(answer.signature);
  c.latency_ms = result.latency_ms;
  // The holder against the person of the vault the session is for.
  c.rfc_vs_person = c.curp_vs_person = "not_compared";
  SVC_ASSIGN_OR_RETURN(auto rec, projections::ReadRow(*deps.views, SV::Abs(SV::Record(te, session_id))));
  const std::string person = rec.has_value() ? core::StringOr(*rec, "personId") : "";
  if (!person.empty()) {
    SVC_ASSIGN_OR_RETURN(auto sealed, projections::ReadRow(*deps.views, PV::Abs(PV::Sealed(te, person))));
    if (sealed.has_value()) {
      SVC_ASSIGN_OR_RETURN(c.rfc_vs_person, Compare(deps, tenant, env, *sealed, "rfc", result.certificate.rfc));
      SVC_ASSIGN_OR_RETURN(c.curp_vs_person, Compare(deps, tenant, env, *sealed, "curp", result.certificate.curp));
    }
  }
  if (c.rfc_vs_person == "mismatch") c.reason_codes.push_back("EFIRMA_RFC_MISMATCH");
  if (c.curp_vs_person == "mismatch") c.reason_codes.push_back("EFIRMA_CURP_MISMATCH");
  c.status = c.reason_codes.empty() ? "passed" : "failed";
  core::Json holder = {{"rfc", result.certificate.rfc}, {"curp", result.certificate.curp},
                       {"name", result.certificate.subject_name}};
  // Under the session's data key: erased with the session's captures (forget, retention).
  SVC_ASSIGN_OR_RETURN(auto dek, deps.keys->GetOrCreate(eventstore::KeyStore::SessionKeyName(tenant, env, session_id)));
  c.holder_sealed = core::Base64Encode(
      core::AeadSeal(dek, core::DumpJson(holder), EfirmaHolderAad(tenant, env, session_id, answer.challenge_id)));
  const core::Json signed_evidence = {{"certificate", core::Base64Encode(answer.certificate)},
                                      {"signature", core::Base64Encode(answer.signature)},
                                      {"text", text}};
  c.evidence_sealed = core::Base64Encode(core::AeadSeal(
      dek, core::DumpJson(signed_evidence), EfirmaHolderAad(tenant, env, session_id, answer.challenge_id) + "|evidence"));
  vs::RecordEfirmaCheck record{session_id, std::move(c)};
  return commands::MakeCommand<vs::EfirmaDecider>(tenant, answer.challenge_id, vs::EfirmaCommand(std::move(record)),
                                                  std::move(ctx));
}

core::Result<core::Json> EfirmaConsentEvidence(const EfirmaDeps& deps, const std::string& tenant, const std::string& env,
                                               const std::string& person_id, const std::string& purpose,
                                               const std::string& policy_version, const core::Json& evidence) {
  const std::string challenge = core::StringOr(evidence, "efirmaChallengeId");
  auto refuse = [](const std::string& why) {
    const core::Json errors = core::Json::array({{{"field", "evidence.efirmaChallengeId"},
                                                  {"pointer", "/evidence/efirmaChallengeId"},
                                                  {"code", "efirma_not_usable"},
                                                  {"detail", why}}});
    return core::InvalidArgument(why, "VALIDATION_ERROR").WithJsonExtension("errors", core::DumpJson(errors));
  };
  if (!core::ValidateId(core::IdKind::kEfirmaChallenge, challenge).ok()) {
    return refuse("evidence.efirmaChallengeId is an e.firma challenge id (efc_…)");
  }
  const std::string te = projections::TenantEnv(tenant, env);
  SVC_ASSIGN_OR_RETURN(auto row, projections::ReadRow(*deps.views, EV::Abs(EV::Challenge(te, challenge))));
  if (!row.has_value()) return core::NotFound("no such e.firma challenge", "EFIRMA_CHALLENGE_NOT_FOUND");
  const core::Json check = row->value("check", core::Json(nullptr));
  if (!check.is_object()) return refuse("the e.firma challenge was not answered");
  if (core::StringOr(check, "status") != "passed") return refuse("the e.firma check did not pass");
  if (core::StringOr(*row, "consentPurpose") != purpose || core::StringOr(*row, "consentPolicyVersion") != policy_version) {
    return refuse("the signed text does not state this consent (ask for the challenge with consent: {purpose, policyVersion})");
  }
  const std::string session = core::StringOr(*row, "sessionId");
  SVC_ASSIGN_OR_RETURN(auto rec, projections::ReadRow(*deps.views, SV::Abs(SV::Record(te, session))));
  if (!rec.has_value() || core::StringOr(*rec, "personId") != person_id) {
    return refuse("the e.firma was given in a session of another person");
  }
  SVC_ASSIGN_OR_RETURN(auto dek, deps.keys->Get(eventstore::KeyStore::SessionKeyName(tenant, env, session)));
  if (!dek.has_value()) return refuse("the session's data was erased");
  SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(core::StringOr(*row, "evidenceSealed")));
  SVC_ASSIGN_OR_RETURN(std::string plain,
                       core::AeadOpen(*dek, raw, EfirmaHolderAad(tenant, env, session, challenge) + "|evidence"));
  core::SecureZero(*dek);
  core::Json signed_evidence = core::ParseJsonOrDiscarded(plain);
  core::Json out = evidence;
  out["efirma"] = {{"challengeId", challenge},
                   {"sessionId", session},
                   {"text", signed_evidence.value("text", "")},
                   {"certificate", signed_evidence.value("certificate", "")},
                   {"signature", signed_evidence.value("signature", "")},
                   {"signatureAlgorithm", "sha256WithRSAEncryption"},
                   {"check", check}};
  return out;
}

core::Result<commands::Command> ConsentCommand(const EfirmaDeps& deps, const persons::PersonRef& who,
                                               commands::persons::ConsentGranted consent, const core::Json* evidence,
                                               commands::CommandContext ctx) {
  if (evidence == nullptr || !evidence->contains("efirmaChallengeId")) {
    return persons::GrantConsentCommand(*deps.keys, who, std::move(consent), evidence, std::move(ctx));
  }
  if (consent.mechanism != "firma_electronica") {
    const core::Json errors = core::Json::array({{{"field", "mechanism"},
                                                  {"pointer", "/mechanism"},
                                                  {"code", "invalid_enum"},
                                                  {"detail", "a consent given by e.firma has mechanism firma_electronica"}}});
    return core::InvalidArgument("a consent given by e.firma has mechanism firma_electronica", "VALIDATION_ERROR")
        .WithJsonExtension("errors", core::DumpJson(errors));
  }
  SVC_ASSIGN_OR_RETURN(core::Json signed_evidence,
                       EfirmaConsentEvidence(deps, who.tenant, who.environment, who.person, consent.purpose,
                                             consent.policy_version, *evidence));
  consent.efirma_challenge_id = core::StringOr(*evidence, "efirmaChallengeId");
  return persons::GrantConsentCommand(*deps.keys, who, std::move(consent), &signed_evidence, std::move(ctx));
}

}  // namespace svc::pipeline::verification
