#include "projections/kyb/kyb_projector.h"

#include "commands/kyb/company_events.h"
#include "commands/kyb/screening_events.h"
#include <limits>
#include <set>

#include "core/clock.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

namespace kc = commands::kyb;
using KyV = KybView;

namespace {

// Replaces the check of `type` (one per type: the latest run's).
void PutCheck(core::Json& row, const std::string& type, const std::string& status, int64_t run,
              const std::string& at, const core::Json& result) {
  core::Json checks = core::Json::array();
  for (const auto& c : row.value("checks", core::Json::array())) {
    if (core::StringOr(c, "type") != type) checks.push_back(c);
  }
  checks.push_back({{"type", type}, {"status", status}, {"run", run}, {"checkedAt", at}, {"result", result}});
  row["checks"] = checks;
}

core::Result<core::Json> ReadRow(ViewWriter& view, const std::string& key) {
  SVC_ASSIGN_OR_RETURN(auto text, view.Get(key));
  if (!text.has_value()) return core::DataLoss("kyb read model: no row " + key);
  return core::ParseJsonOrDiscarded(*text);
}

}  // namespace

std::string KybCreatedEntry(int64_t micros, std::string_view id) {
  std::string e;
  eventstore::PutFixed64BE(e, std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(micros));
  e.append(id);
  return e;
}

core::Status KybProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type == kc::kCompanyAggregate) return ApplyCompany(re, view);
  if (env.aggregate_type == kc::kHitAggregate) return ApplyHit(re, view);
  const std::string at = core::FormatRfc3339(env.occurred_at);
  if (env.aggregate_type == kc::kAmlListAggregate) {
    SVC_ASSIGN_OR_RETURN(auto ev, kc::DecodeAmlList(env));
    const auto& l = std::get<kc::ListLoaded>(ev);
    int64_t version = 1;
    SVC_ASSIGN_OR_RETURN(auto prev, view.Get(KyV::List(l.source)));
    if (prev.has_value()) version = core::ParseJsonOrDiscarded(*prev).value("version", int64_t{0}) + 1;
    core::Json row = {{"source", l.source},       {"format", l.format},   {"contentHash", l.content_hash},
                      {"blobs", l.blobs},         {"entries", l.entries}, {"persons", l.persons},
                      {"companies", l.companies}, {"version", version},   {"loadedAt", at},
                      {"eventId", env.id}};
    view.Put(KyV::List(l.source), core::DumpJson(row));
    std::string vkey = KyV::ListVersions(l.source);
    eventstore::PutFixed64BE(vkey, static_cast<uint64_t>(version));
    view.Put(vkey, core::DumpJson(row));
    return core::Status::Ok();
  }
  if (env.aggregate_type == kc::kScreeningAggregate) {
    SVC_ASSIGN_OR_RETURN(auto ev, kc::DecodeScreening(env));
    const auto& s = std::get<kc::ScreeningCompleted>(ev);
    const std::string te = TenantEnv(env.tenant_id, env.environment);
    core::Json row = {{"object", "screening"},
                      {"id", env.aggregate_id},
                      {"subjectType", s.subject_type},
                      {"subjectId", core::StringOrNull(s.subject_id)},
                      {"portfolioId", core::StringOrNull(s.portfolio_id)},
                      {"origin", s.origin},
                      {"lists", s.lists},
                      {"namesScreened", s.names_screened},
                      {"hits", s.hits},
                      {"createdAt", at}};
    view.Put(KyV::Screening(te, env.aggregate_id), core::DumpJson(row));
    if (!s.portfolio_id.empty()) {
      core::Json subject = {{"subjectType", s.subject_type},
                            {"subjectId", core::StringOrNull(s.subject_id)},
                            {"subjectKey", s.subject_key},
                            {"subjectSealed", core::StringOrNull(s.subject_sealed)},
                            {"enrolledAt", at}};
      const std::string key = KyV::Portfolio(te, s.portfolio_id) + s.subject_key;
      SVC_ASSIGN_OR_RETURN(auto had, view.Get(key));
      if (had.has_value()) subject["enrolledAt"] = core::ParseJsonOrDiscarded(*had).value("enrolledAt", at);
      view.Put(key, core::DumpJson(subject));
    }
  }
  return core::Status::Ok();
}

core::Status KybProjector::ApplyHit(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string at = core::FormatRfc3339(env.occurred_at);
  SVC_ASSIGN_OR_RETURN(auto ev, kc::DecodeHit(env));
  const std::string key = KyV::Hit(te, env.aggregate_id);
  if (const auto* f = std::get_if<kc::HitFound>(&ev)) {
    core::Json row = {{"object", "screening_hit"},
                      {"id", env.aggregate_id},
                      {"tenantId", env.tenant_id},
                      {"environment", env.environment},
                      {"screeningId", f->screening_id},
                      {"subjectType", f->subject_type},
                      {"subjectId", core::StringOrNull(f->subject_id)},
                      {"companyId", core::StringOrNull(f->company_id)},
                      {"list", {{"source", f->list_source}, {"format", f->list_format}, {"contentHash", f->list_hash}}},
                      {"entry", {{"id", f->entry_id}, {"kind", f->entry_kind}, {"name", f->entry_name},
                                 {"programs", f->programs}}},
                      {"matchedName", f->matched_name},
                      {"score", f->score},
                      {"nameScore", f->name_score},
                      {"reasons", f->reasons},
                      {"algorithm", f->algorithm},
                      {"status", "open"},
                      {"reviews", core::Json::array()},
                      {"createdAt", at},
                      {"updatedAt", at}};
    // The entry's names as the event holds them: sealed (opened when served), or in clear in an
    // event from before they were sealed.
    if (!f->names_sealed_with.empty()) {
      row["entryNameSealed"] = f->entry_name_sealed;
      row["matchedNameSealed"] = f->matched_name_sealed;
      row["namesSealedWith"] = f->names_sealed_with;
    }
    view.Put(key, core::DumpJson(row));
    view.Put(KyV::Hits(te) + KybCreatedEntry(env.occurred_at.micros, env.aggregate_id), "");
    if (!f->company_id.empty()) view.Put(KyV::HitsOfCompany(te, f->company_id) + env.aggregate_id, "");
    return core::Status::Ok();
  }
  const auto& r = std::get<kc::HitReviewed>(ev);
  SVC_ASSIGN_OR_RETURN(core::Json row, ReadRow(view, key));
  row["status"] = r.decision;
  row["updatedAt"] = at;
  row["reviews"].push_back({{"decision", r.decision},
                            {"reasonCode", r.reason_code},
                            {"noteSealed", core::StringOrNull(r.note_sealed)},
                            {"actorType", r.actor_type},
                            {"actorId", r.actor_id},
                            {"at", at},
                            {"eventId", env.id}});
  view.Put(key, core::DumpJson(row));
  return core::Status::Ok();
}

core::Status KybProjector::ApplyCompany(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string at = core::FormatRfc3339(env.occurred_at);
  const std::string id = env.aggregate_id;
  const std::string key = KyV::Company(te, id);
  SVC_ASSIGN_OR_RETURN(auto ev, kc::Decode(env));
  if (const auto* c = std::get_if<kc::CompanyCreated>(&ev)) {
    core::Json row = {{"object", "company"},
                      {"id", id},
                      {"tenantId", env.tenant_id},
                      {"environment", env.environment},
                      {"legalNameSealed", c->legal_name_sealed},
                      {"tradeNameSealed", core::StringOrNull(c->trade_name_sealed)},
                      {"country", c->country},
                      {"rfcSealed", core::StringOrNull(c->rfc_sealed)},
                      {"rfcKind", core::StringOrNull(c->rfc_kind)},
                      {"taxId", nullptr},
                      {"subjectKind", c->subject_kind},
                      {"legalForm", nullptr},
                      {"activity", nullptr},
                      {"industryCode", nullptr},
                      {"incorporationDate", nullptr},
                      {"registryAuthority", nullptr},
                      {"registryId", nullptr},
                      {"registryStatus", nullptr},
                      {"networkCompanyId", nullptr},
                      {"claimStatus", "unclaimed"},
                      {"status", "draft"},
                      {"riskLevel", nullptr},
                      {"riskScore", nullptr},
                      {"verificationMethod", nullptr},
                      {"verifiedAt", nullptr},
                      {"run", 0},
                      {"checks", core::Json::array()},
                      {"documents", core::Json::array()},
                      {"members", core::Json::array()},
                      {"uboNodes", core::Json::array()},
                      {"createdAt", at},
                      {"updatedAt", at}};
    view.Put(key, core::DumpJson(row));
    view.Put(KyV::CompanyAsCreated(te, id), core::DumpJson(row));
    const std::string entry = KybCreatedEntry(env.occurred_at.micros, id);
    view.Put(KyV::Companies(te) + entry, "");
    view.Put(KyV::ByClaim(te, "unclaimed") + entry, "");
    if (!c->rfc_blind.empty()) view.Put(KyV::Rfc(te, c->rfc_blind), core::DumpJson(core::Json(id)));
    return core::Status::Ok();
  }
  SVC_ASSIGN_OR_RETURN(core::Json row, ReadRow(view, key));
  row["updatedAt"] = at;
  // A change to a record a run finished with: verify again (company_decider.h).
  auto changed = [&row] {
    const std::string s = core::StringOr(row, "status");
    if (s == "verified" || s == "needs_review" || s == "rejected") row["status"] = "draft";
  };
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, kc::MemberAdded>) {
          row["members"].push_back({{"id", x.member_id},
                                    {"companyId", id},
                                    {"createdAt", at},
                                    {"nameSealed", x.name_sealed},
                                    {"personId", core::StringOrNull(x.person_id)},
                                    {"role", core::StringOrNull(x.role)},
                                    {"verificationStatus", "pending"}});
          if (!x.sealed_with.empty()) row["members"].back()["sealedWith"] = x.sealed_with;
          changed();
        } else if constexpr (std::is_same_v<T, kc::DocumentAdded>) {
          row["documents"].push_back({{"id", x.document_id},
                                      {"companyId", id},
                                      {"createdAt", at},
                                      {"kind", core::StringOrNull(x.kind)},
                                      {"sha256", core::StringOrNull(x.sha256)},
                                      {"status", "received"},
                                      {"storageKey", core::StringOrNull(x.storage_key)},
                                      {"uploadedByUserId", core::StringOrNull(x.uploaded_by_user_id)}});
          changed();
        } else if constexpr (std::is_same_v<T, kc::UboNodeAdded>) {
          core::Json pct = core::StringOrNull(x.ownership_pct);
          row["uboNodes"].push_back(
              {{"id", x.node_id},
               {"companyId", id},
               {"createdAt", at},
               {"effectivePct", nullptr},
               {"isControlPerson", x.is_control_person},
               {"nameSealed", x.name_sealed},
               {"nodeType", x.node_type},
               {"ownershipPct", pct},
               {"ownershipType", x.ownership_pct.empty() ? core::Json(nullptr)
                                                         : core::Json(x.parent_node_id.empty() ? "direct" : "indirect")},
               {"parentNodeId", core::StringOrNull(x.parent_node_id)},
               {"personId", core::StringOrNull(x.person_id)},
               {"relatedCompanyId", core::StringOrNull(x.related_company_id)},
               {"role", core::StringOrNull(x.role)},
               {"status", "declared"}});
          if (!x.sealed_with.empty()) row["uboNodes"].back()["sealedWith"] = x.sealed_with;
          changed();
        } else if constexpr (std::is_same_v<T, kc::VerificationStarted>) {
          row["status"] = "verifying";
          row["run"] = x.run;
          view.Put(KyV::Due(te, id), core::DumpJson(core::Json{
                                       {"tenantId", env.tenant_id}, {"environment", env.environment},
                                       {"companyId", id}, {"run", x.run}}));
        } else if constexpr (std::is_same_v<T, kc::StageCompleted>) {
          PutCheck(row, x.stage, x.status, x.run, at, x.result);
          const core::Json& r = x.result;
          if (x.stage == "registry") {
            for (const char* f : {"legalForm", "activity", "industryCode", "incorporationDate", "registryAuthority",
                                  "registryId", "registryStatus"}) {
              if (r.contains(f)) row[f] = r[f];
            }
            row["verificationMethod"] = r.value("gateway", "") == "" ? core::Json(nullptr)
                                                                     : core::Json("registry_" + core::StringOr(r, "gateway"));
          } else if (x.stage == "ownership") {
            const core::Json eff = r.value("effective", core::Json::object());
            for (auto& n : row["uboNodes"]) {
              const std::string nid = core::StringOr(n, "id");
              n["effectivePct"] = eff.contains(nid) ? eff[nid] : core::Json(nullptr);
            }
          } else if (x.stage == "screening") {
            std::set<std::string> hit_subjects;
            for (const auto& h : r.value("hits", core::Json::array())) hit_subjects.insert(core::StringOr(h, "subjectId"));
            for (auto& m : row["members"]) {
              m["verificationStatus"] = hit_subjects.count(core::StringOr(m, "id")) > 0 ? "hit" : "clear";
            }
            for (auto& n : row["uboNodes"]) {
              n["status"] = hit_subjects.count(core::StringOr(n, "id")) > 0 ? "hit" : "clear";
            }
          }
        } else if constexpr (std::is_same_v<T, kc::SubjectForgotten>) {
          // The name leaves the read model now; the key goes next (the shredder's queue).
          for (auto& m : row[x.subject_type == "member" ? "members" : "uboNodes"]) {
            if (core::StringOr(m, "id") != x.subject_id) continue;
            m["nameSealed"] = nullptr;
            m["forgottenAt"] = at;
          }
          view.Put(KyV::Shred(te, id, x.subject_id), core::DumpJson({{"subjectType", x.subject_type},
                                                                  {"forgottenAt", at},
                                                                  {"arcoRequestId", core::StringOrNull(x.arco_request_id)}}));
        } else if constexpr (std::is_same_v<T, kc::SubjectKeysDestroyed>) {
          auto queued = view.Get(KyV::Shred(te, id, x.subject_id));
          const core::Json q = core::ParseJsonOrDiscarded(queued.ok() ? queued->value_or("{}") : "{}");
          view.Delete(KyV::Shred(te, id, x.subject_id));
          // What the certificate states, as a person's forget does (docs/kyb.md#erasure).
          view.Put(KyV::Deletion(te, x.subject_id),
                   core::DumpJson({{"object", "kyb.deletion_certificate"},
                                   {"subjectType", x.subject_type},
                                   {"subjectId", x.subject_id},
                                   {"companyId", id},
                                   {"tenantId", env.tenant_id},
                                   {"environment", env.environment},
                                   {"arcoRequestId", q.value("arcoRequestId", core::Json(nullptr))},
                                   {"forgottenAt", q.value("forgottenAt", core::Json(nullptr))},
                                   {"purgedAt", at},
                                   {"keysDestroyed", x.key_names.size()},
                                   {"method", "crypto-shredding: the data key of the subject was destroyed; its name, "
                                              "sealed under it in the log and in backups, no longer opens"}}));
        } else if constexpr (std::is_same_v<T, kc::RiskAssessed>) {
          row["status"] = x.status;
          row["riskLevel"] = x.level;
          row["riskScore"] = x.score;
          row["verifiedAt"] = at;
          PutCheck(row, "risk", x.level == "low" ? "passed" : x.level == "medium" ? "needs_review" : "failed", x.run,
                   at, {{"score", x.score}, {"level", x.level}, {"formula", x.formula}, {"factors", x.factors}});
          view.Delete(KyV::Due(te, id));
        }
      },
      ev);
  view.Put(key, core::DumpJson(row));
  return core::Status::Ok();
}

}  // namespace svc::projections
