#include "pipeline/audit/history.h"

#include "core/canonical_json.h"
#include "core/crypto.h"
#include "core/signed_note.h"
#include "pipeline/audit/checkpoints.h"

namespace svc::pipeline::audit {

core::Result<core::Json> SignHistoryBundle(std::string_view checkpoint_root_key, core::Json bundle) {
  const std::string tenant = core::StringOr(bundle, "tenantId");
  const std::string env = core::StringOr(bundle, "environment");
  bundle.erase("signedNote");
  bundle.erase("verifierKey");
  SVC_ASSIGN_OR_RETURN(const std::string canonical, core::CanonicalJson(bundle));
  const std::string origin = Origin(tenant, env);
  const std::string text = std::string(kHistoryFormat) + "\n" + origin + "\n" + core::StringOr(bundle, "subjectType") +
                           " " + core::StringOr(bundle, "subjectId") + "\n" + core::StringOr(bundle, "asOf") + "\n" +
                           core::Sha256Hex(canonical) + "\n";
  core::Ed25519KeyPair kp = CheckpointSigningKey(checkpoint_root_key, tenant, env);
  auto note = core::note::Sign(text, origin, kp.secret_key);
  core::SecureZero(kp.secret_key);
  SVC_RETURN_IF_ERROR(note.status());
  bundle["signedNote"] = *note;
  bundle["verifierKey"] = VerifierKeyOf(checkpoint_root_key, tenant, env);
  return bundle;
}

core::Result<core::Json> HistoryBundle(std::string_view checkpoint_root_key, const projections::AsOfQuery& q,
                                       std::string_view subject_type, const projections::AsOfReplay& replay) {
  return SignHistoryBundle(checkpoint_root_key, {{"object", "history_bundle"},
                                                 {"format", kHistoryFormat},
                                                 {"tenantId", q.tenant},
                                                 {"environment", q.environment},
                                                 {"subjectType", subject_type},
                                                 {"subjectId", q.subject_id},
                                                 {"asOf", core::FormatRfc3339Micros(q.as_of)},
                                                 {"state", replay.state},
                                                 {"events", replay.events},
                                                 {"tenantEventsReplayed", replay.tenant_events},
                                                 {"through", replay.through}});
}

}  // namespace svc::pipeline::audit
