#include "pipeline/audit/history.h"

#include <filesystem>

#include "core/canonical_json.h"
#include "core/crypto.h"
#include "core/signed_note.h"
#include "commands/verification/session_events.h"
#include "core/ids.h"
#include "pipeline/audit/checkpoints.h"
#include "pipeline/certificate.h"
#include "pipeline/verification/report_inputs.h"
#include "projections/projector.h"
#include "projections/verification_view.h"

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
                                       std::string_view subject_type, const projections::AsOfReplay& replay,
                                       const core::Json& certificate) {
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
                                                 {"through", replay.through},
                                                 {"certificate", certificate}});
}

namespace {

// An empty store of the read side's rows in a directory of its own under `parent`, removed with it.
class ScratchStore {
 public:
  static core::Result<std::unique_ptr<ScratchStore>> Open(const std::string& parent) {
    auto s = std::unique_ptr<ScratchStore>(new ScratchStore());
    s->dir_ = std::filesystem::path(parent) / ("history-" + core::HexEncode(core::RandomBytes(8)) + ".tmp");
    eventstore::KvStore::Options so;
    so.path = s->dir_.string();
    so.column_families = {std::string(projections::kViewsCf)};
    SVC_ASSIGN_OR_RETURN(s->store_, eventstore::KvStore::Open(so));
    return s;
  }
  ~ScratchStore() {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  eventstore::KvStore& store() { return *store_; }

 private:
  ScratchStore() = default;
  std::filesystem::path dir_;
  std::unique_ptr<eventstore::KvStore> store_;
};

core::Result<std::vector<projections::Projector*>> Pick(const std::vector<projections::Projector*>& projectors,
                                                        const std::vector<std::string_view>& names) {
  std::vector<projections::Projector*> chosen;
  for (std::string_view name : names) {
    projections::Projector* found = nullptr;
    for (auto* p : projectors) {
      if (p->Name() == name) found = p;
    }
    if (found == nullptr) return core::Unavailable("this node does not build the " + std::string(name) + " read model");
    chosen.push_back(found);
  }
  return chosen;
}

}  // namespace

core::Status AtMoment(eventstore::EventLog& log, const std::vector<projections::Projector*>& projectors,
                      const std::string& scratch_dir, const std::vector<std::string_view>& views,
                      std::string_view tenant, core::Timestamp as_of,
                      const std::function<core::Status(const eventstore::KvStore&, const projections::TenantReplay&)>& read) {
  SVC_ASSIGN_OR_RETURN(auto chosen, Pick(projectors, views));
  SVC_ASSIGN_OR_RETURN(auto scratch, ScratchStore::Open(scratch_dir));
  SVC_ASSIGN_OR_RETURN(auto replay, projections::ReplayTenant(log, scratch->store(), chosen, tenant, as_of));
  return read(scratch->store(), replay);
}

core::Result<History> ReplayHistory(eventstore::EventLog& log, const std::vector<projections::Projector*>& projectors,
                                    const std::string& scratch_dir, std::string_view subject_type,
                                    const projections::AsOfQuery& q, const HistoryKeys& keys) {
  const auto* subject = projections::FindStateTopic(subject_type);
  if (subject == nullptr) return core::InvalidArgument("no such subject type", "VALIDATION_ERROR");
  const bool session = subject_type == commands::verification::kSessionAggregate;
  std::vector<std::string_view> names = {subject->view};
  if (session) names.push_back(projections::VerificationView::kName);
  SVC_ASSIGN_OR_RETURN(auto chosen, Pick(projectors, names));
  SVC_ASSIGN_OR_RETURN(auto scratch_store, ScratchStore::Open(scratch_dir));
  eventstore::KvStore* scratch = &scratch_store->store();
  History out;
  SVC_ASSIGN_OR_RETURN(out.replay, projections::ReplayAsOf(log, *scratch, chosen, *subject, q));
  if (!out.replay.found) {
    out.bundle = nullptr;
    return out;
  }
  core::Json certificate = nullptr;
  if (session && !out.replay.state_row.empty()) {
    SVC_ASSIGN_OR_RETURN(auto in, verification::ReadReportInputs(*scratch, core::ParseJsonOrDiscarded(out.replay.state_row),
                                                                  q.environment));
    if (verification::CertificateIssued(in)) {
      SVC_ASSIGN_OR_RETURN(std::string doc, SignCertificate(verification::BuildCertificateContent(in),
                                                            keys.certificate_root_key));
      certificate = core::ParseJsonOrDiscarded(doc);
    }
  }
  SVC_ASSIGN_OR_RETURN(out.bundle, HistoryBundle(keys.checkpoint_root_key, q, subject_type, out.replay, certificate));
  return out;
}

}  // namespace svc::pipeline::audit
