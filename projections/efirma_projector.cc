#include "projections/efirma_projector.h"

#include "commands/verification/efirma_challenge.h"
#include "core/clock.h"
#include "core/json.h"

namespace svc::projections {

namespace vs = commands::verification;
using EfV = EfirmaView;

core::Status EfirmaProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type != vs::kEfirmaAggregate) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(vs::EfirmaEvent event, vs::DecodeEfirma(env));
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string key = EfV::Challenge(te, env.aggregate_id);
  if (const auto* issued = std::get_if<vs::EfirmaChallengeIssued>(&event)) {
    view.Put(key, core::DumpJson({{"challengeId", env.aggregate_id},
                                  {"sessionId", issued->session_id},
                                  {"nonce", issued->nonce},
                                  {"expiresAtMicros", issued->expires_at_micros},
                                  {"answered", false},
                                  {"consentPurpose", issued->consent_purpose},
                                  {"consentPolicyVersion", issued->consent_policy_version},
                                  {"check", nullptr}}));
    return core::Status::Ok();
  }
  const auto& c = std::get<vs::EfirmaChecked>(event);
  SVC_ASSIGN_OR_RETURN(auto stored, view.Get(key));
  if (!stored.has_value()) return core::DataLoss("an e.firma check without its challenge: " + env.aggregate_id);
  core::Json row = core::ParseJsonOrDiscarded(*stored);
  core::Json check = {{"object", "efirma_check"},
                      {"challengeId", env.aggregate_id},
                      {"status", c.status},
                      {"reasonCodes", c.reason_codes},
                      {"certificate", {{"sha256", c.certificate_sha256},
                                       {"serialNumber", c.serial_hex},
                                       {"issuer", c.issuer},
                                       {"notAfter", c.not_after_micros > 0
                                                        ? core::Json(core::FormatRfc3339(core::Timestamp{c.not_after_micros}))
                                                        : core::Json(nullptr)}}},
                      {"ocsp", c.ocsp},
                      {"holder", {{"rfc", c.rfc_vs_person}, {"curp", c.curp_vs_person}}},
                      {"signatureSha256", c.signature_sha256},
                      {"checkedAt", core::FormatRfc3339(env.occurred_at)}};
  row["answered"] = true;
  row["check"] = check;
  // For the pipeline (compared with the document's CURP), never served.
  row["holderSealed"] = c.holder_sealed;
  row["evidenceSealed"] = c.evidence_sealed;
  view.Put(key, core::DumpJson(row));
  view.Put(EfV::Latest(te, core::StringOr(row, "sessionId")), core::DumpJson(check));
  return core::Status::Ok();
}

}  // namespace svc::projections
