#include "projections/persons/persons_projector.h"

#include <functional>

#include "commands/persons/client_token.h"
#include "commands/persons/import_job.h"
#include "commands/persons/export_job.h"
#include "commands/persons/person_events.h"
#include "commands/verification/session_events.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/json_fields.h"
#include "core/json_text.h"

#include <algorithm>

namespace svc::projections {

namespace ps = commands::persons;
namespace vs = commands::verification;
using PsV = PersonsView;

namespace {

// A field's provenance: {version, source, sessionId, detail, setAt}.
void WriteSource(core::JsonText& out, const ps::PiiSource& s, int version, const std::string& at) {
  out.BeginObject();
  out.Key("version");
  out.Int(version);
  out.Key("source");
  out.String(s.kind);
  out.Key("sessionId");
  out.StringOrNull(s.session_id);
  out.Key("detail");
  out.StringOrNull(s.detail);
  out.Key("setAt");
  out.String(at);
  out.EndObject();
}

core::Json Source(const ps::PiiSource& s, int version, const std::string& at) {
  core::JsonText t;
  WriteSource(t, s, version, at);
  return core::ParseJsonOrDiscarded(t.text());
}

// A field's entry in the sealed row: {sealed, version, index}.
void WriteSealed(core::JsonText& out, const ps::SealedPii& value, int version) {
  out.BeginObject();
  out.Key("sealed");
  out.String(value.sealed);
  out.Key("version");
  out.Int(version);
  out.Key("index");
  out.BeginArray();
  for (const auto& k : value.index) out.String(k);
  out.EndArray();
  out.EndObject();
}

using Summary = PersonVerificationSummary;

Summary SummaryOf(const core::Json& rec) {
  Summary s;
  if (auto it = rec.find("verificationSummary"); it != rec.end()) core::DecodeFields(*it, s);
  return s;
}

// The holders of a CURP (ids, comma-separated; almost always one): `id` added or removed.
core::Status Holders(ViewWriter& view, const std::string& te, const std::string& blind_key, const std::string& id,
                     bool add) {
  const std::string key = PsV::CurpHolder(te, blind_key);
  SVC_ASSIGN_OR_RETURN(auto current, view.Get(key));
  std::vector<std::string> ids = PsV::SplitIds(current.value_or(""));
  std::erase(ids, id);
  if (add) ids.push_back(id);
  if (ids.empty()) {
    view.Delete(key);
  } else {
    view.Put(key, PsV::JoinIds(ids));
  }
  return core::Status::Ok();
}

// Removes a field from the person's sealed row (`sealed`, an object by field) and its blind-index
// entries (before a new value, or a clear).
core::Status DropField(ViewWriter& view, const std::string& te, const std::string& id, const std::string& field,
                       core::Json& sealed) {
  auto it = sealed.find(field);
  if (it == sealed.end()) return core::Status::Ok();
  const core::Json index = it->value("index", core::Json::array());
  // An index entry another field still holds stays (the name fields share their tokens: "Ana"
  // in fullName and givenName is one entry).
  auto held_elsewhere = [&](const core::Json& key) {
    for (auto f = sealed.begin(); f != sealed.end(); ++f) {
      if (f.key() == field || !f->is_object()) continue;
      for (const auto& other : f->value("index", core::Json::array())) {
        if (other == key) return true;
      }
    }
    return false;
  };
  for (const auto& k : index) {
    if (k.is_string() && !held_elsewhere(k)) view.Delete(PsV::BlindIndex(te, k.get<std::string>(), id));
  }
  if (field == "curp") {
    for (const auto& k : index) {
      if (k.is_string()) SVC_RETURN_IF_ERROR(Holders(view, te, k.get<std::string>(), id, false));
    }
  }
  sealed.erase(it);
  return core::Status::Ok();
}

core::Status PutField(ViewWriter& view, const std::string& te, const std::string& id, const std::string& field,
                      const ps::SealedPii& value, int version, core::Json& sealed) {
  // An entry another field already wrote in this row is not written again.
  for (const auto& k : value.index) {
    bool written = false;
    for (auto f = sealed.begin(); f != sealed.end() && !written; ++f) {
      if (f.key() == field || !f->is_object()) continue;
      for (const auto& other : f->value("index", core::Json::array())) written |= other == k;
    }
    if (!written) view.Put(PsV::BlindIndex(te, k, id), field);
  }
  core::JsonText t;
  WriteSealed(t, value, version);
  sealed[field] = core::ParseJsonOrDiscarded(t.text());
  if (field == "curp") {
    for (const auto& k : value.index) SVC_RETURN_IF_ERROR(Holders(view, te, k, id, true));
  }
  return core::Status::Ok();
}

}  // namespace

namespace {

core::Status ApplyClientToken(const eventstore::EventEnvelope& env, ViewWriter& view) {
  SVC_ASSIGN_OR_RETURN(ps::ClientTokenEvent event, ps::DecodeClientToken(env));
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  if (const auto* i = std::get_if<ps::ClientTokenIssued>(&event)) {
    core::Json row = {{"id", id},
                      {"object", "person.client_token"},
                      {"personId", i->person_id},
                      {"scope", "decrypt"},
                      {"fields", i->fields},
                      {"purpose", i->purpose.empty() ? core::Json(nullptr) : core::Json(i->purpose)},
                      {"createdAt", at},
                      {"expiresAt", core::FormatRfc3339(core::Timestamp{i->expires_micros})},
                      {"usedAt", nullptr},
                      {"revokedAt", nullptr}};
    view.Put(PsV::ClientToken(te, id), core::DumpJson(row));
    view.Put(PsV::ClientTokenRef(id), core::DumpJson({{"tenantId", env.tenant_id},
                                                               {"environment", env.environment},
                                                               {"applicationId", i->application_id}}));
    return core::Status::Ok();
  }
  SVC_ASSIGN_OR_RETURN(auto stored, view.Get(PsV::ClientToken(te, id)));
  if (!stored.has_value()) return core::DataLoss("client token event before its issue: " + id);
  core::Json row = core::ParseJsonOrDiscarded(*stored);
  row[std::holds_alternative<ps::ClientTokenUsed>(event) ? "usedAt" : "revokedAt"] = at;
  view.Put(PsV::ClientToken(te, id), core::DumpJson(row));
  return core::Status::Ok();
}

// Verification sessions, as far as the vault is concerned: a session created for a person is
// linked to it, and an approved session's verified data is due (vpending) until the person
// holds it.
core::Status ApplySession(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  SVC_ASSIGN_OR_RETURN(const vs::SessionEvent* decoded, vs::DecodeShared(re));
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& session = env.aggregate_id;
  if (const auto* c = std::get_if<vs::SessionCreated>(decoded)) {
    if (c->person_id.empty()) return core::Status::Ok();
    view.Put(PsV::Sessions(te, c->person_id) + PsV::Order(env.occurred_at.micros, session), session);
    view.Put(PsV::SessionPerson(te, session), c->person_id);
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(PsV::Record(te, c->person_id)));
    if (stored.has_value()) {
      core::Json r = core::ParseJsonOrDiscarded(*stored);
      Summary summary = SummaryOf(r);
      ++summary.session_count;
      r["verificationSummary"] = core::EncodeFields(summary);
      view.Put(PsV::Record(te, c->person_id), core::DumpJson(r));
    }
    return core::Status::Ok();
  }
  const auto* verdict = std::get_if<vs::VerdictReached>(decoded);
  if (verdict == nullptr || env.type != "verification.approved") return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(auto person, view.Get(PsV::SessionPerson(te, session)));
  view.Put(PsV::Pending(te, session),
           core::DumpJson({{"trackingId", verdict->tracking_id}, {"personId", person.value_or("")}}));
  return core::Status::Ok();
}

// A revision that carries a verification's data: the session is linked (if it made the person),
// no longer pending, and the summary and the face reference follow it.
core::Status Verified(const std::string& te, const std::string& id, const ps::PiiSource& source,
                      const std::vector<std::string>& fields, const eventstore::EventEnvelope& env,
                      Summary& summary, ViewWriter& view) {
  if (source.kind != "verification" || source.session_id.empty()) return core::Status::Ok();
  const std::string& session = source.session_id;
  SVC_ASSIGN_OR_RETURN(auto pending, view.Get(PsV::Pending(te, session)));
  SVC_ASSIGN_OR_RETURN(auto linked, view.Get(PsV::SessionPerson(te, session)));
  if (!linked.has_value()) {
    view.Put(PsV::Sessions(te, id) + PsV::Order(env.occurred_at.micros, session), session);
    view.Put(PsV::SessionPerson(te, session), id);
    ++summary.session_count;
  }
  const std::string at = core::FormatRfc3339(env.occurred_at);
  summary.status = "verified";
  summary.last_session_id = session;
  summary.last_verified_at = at;
  summary.verified_fields = fields;
  std::string tracking;
  if (pending.has_value()) tracking = core::StringOr(core::ParseJsonOrDiscarded(*pending), "trackingId");
  view.Put(PsV::Face(te, id), core::DumpJson({{"sessionId", session}, {"trackingId", tracking}, {"verifiedAt", at}}));
  view.Delete(PsV::Pending(te, session));
  return core::Status::Ok();
}

}  // namespace

namespace {

// Every value of a person leaves the read models (a purge, or a merge into a survivor that took
// them): sealed values, blind-index entries, CURP holdings, metadata, the face reference,
// provenance; every `…Provided` turns false.
core::Status DropAllData(ViewWriter& view, const std::string& te, const std::string& id, core::Json& r) {
  SVC_ASSIGN_OR_RETURN(auto stored_sealed, view.Get(PsV::Sealed(te, id)));
  core::Json sealed = core::ParseJsonOrDiscarded(stored_sealed.value_or("{}"));
  if (!sealed.is_object()) sealed = core::Json::object();
  std::vector<std::string> fields;
  for (auto it = sealed.begin(); it != sealed.end(); ++it) fields.push_back(it.key());
  for (const auto& field : fields) SVC_RETURN_IF_ERROR(DropField(view, te, id, field, sealed));
  view.Delete(PsV::Sealed(te, id));
  view.Delete(PsV::Metadata(te, id));
  view.Delete(PsV::Face(te, id));
  view.Put(PsV::Provenance(te, id), "{}");
  for (auto name : ps::kPiiFieldNames) r[std::string(name) + "Provided"] = false;
  return core::Status::Ok();
}

// Consolidation: the survivor's row of each consolidation (ConsolidationStatusResponse) and the
// consolidator's queue; a merged source keeps its record, `merged`, pointing to the survivor.
core::Status ApplyConsolidation(const eventstore::EventEnvelope& env, const ps::PersonEvent& event, ViewWriter& view) {
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  auto update_merge = [&](const std::string& survivor, const std::string& cid, const std::string& source,
                          const std::function<void(core::Json& merge, core::Json& row)>& change) -> core::Status {
    const std::string key = PsV::Consolidation(te, survivor, cid);
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(key));
    if (!stored.has_value()) return core::DataLoss("consolidation event before its request: " + cid);
    core::Json row = core::ParseJsonOrDiscarded(*stored);
    for (auto& m : row["merges"]) {
      if (core::StringOr(m, "sourcePersonId") == source) change(m, row);
    }
    view.Put(key, core::DumpJson(row));
    return core::Status::Ok();
  };
  if (const auto* q = std::get_if<ps::ConsolidationRequested>(&event)) {
    core::Json merges = core::Json::array();
    for (const auto& src : q->source_ids) {
      merges.push_back({{"sourcePersonId", src}, {"status", "pending"}, {"fieldsTaken", core::Json::array()},
                        {"mergedAt", nullptr}, {"error", nullptr}});
    }
    core::Json resolutions = core::Json::object();
    for (const auto& [field, person] : q->field_resolutions) resolutions[field] = person;
    view.Put(PsV::Consolidation(te, id, q->consolidation_id),
             core::DumpJson({{"object", "person.consolidation"},
                             {"consolidationId", q->consolidation_id},
                             {"survivorId", id},
                             {"status", "pending"},
                             {"createdAt", at},
                             {"completedAt", nullptr},
                             {"fieldResolutions", resolutions},
                             {"merges", merges}}));
    view.Put(PsV::Consolidating(te, id, q->consolidation_id),
             core::DumpJson({{"tenantId", env.tenant_id}, {"environment", env.environment}, {"survivorId", id},
                             {"consolidationId", q->consolidation_id}}));
    return core::Status::Ok();
  }
  if (const auto* m = std::get_if<ps::MergeStarted>(&event)) {
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(PsV::Record(te, id)));
    if (!stored.has_value()) return core::DataLoss("person event before its creation: " + id);
    core::Json r = core::ParseJsonOrDiscarded(*stored);
    r["mergingInto"] = m->survivor_id;
    view.Put(PsV::Record(te, id), core::DumpJson(r));
    return update_merge(m->survivor_id, m->consolidation_id, id, [](core::Json& merge, core::Json&) {
      merge["status"] = "merging";
    });
  }
  if (const auto* a = std::get_if<ps::SourceAbsorbed>(&event)) {
    return update_merge(id, a->consolidation_id, a->source_id, [&](core::Json& merge, core::Json&) {
      merge["fieldsTaken"] = a->fields;
      if (!a->error.empty()) {
        merge["status"] = "failed";
        merge["error"] = a->error;
      }
    });
  }
  if (const auto* m = std::get_if<ps::PersonMerged>(&event)) {
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(PsV::Record(te, id)));
    if (!stored.has_value()) return core::DataLoss("person event before its creation: " + id);
    core::Json r = core::ParseJsonOrDiscarded(*stored);
    SVC_RETURN_IF_ERROR(DropAllData(view, te, id, r));
    r.erase("mergingInto");
    r["status"] = "merged";
    r["mergedInto"] = m->survivor_id;
    r["updatedAt"] = at;
    view.Put(PsV::Record(te, id), core::DumpJson(r));
    return update_merge(m->survivor_id, m->consolidation_id, id, [&](core::Json& merge, core::Json&) {
      merge["status"] = "merged";
      merge["mergedAt"] = at;
    });
  }
  const auto& c = std::get<ps::ConsolidationCompleted>(event);
  const std::string key = PsV::Consolidation(te, id, c.consolidation_id);
  SVC_ASSIGN_OR_RETURN(auto stored, view.Get(key));
  if (!stored.has_value()) return core::DataLoss("consolidation event before its request: " + c.consolidation_id);
  core::Json row = core::ParseJsonOrDiscarded(*stored);
  row["status"] = "completed";
  row["completedAt"] = at;
  view.Put(key, core::DumpJson(row));
  view.Delete(PsV::Consolidating(te, id, c.consolidation_id));
  return core::Status::Ok();
}

// A bulk import job, as GET /v1/person-imports/{job_id} serves it.
core::Status ApplyImport(const eventstore::EventEnvelope& env, ViewWriter& view) {
  SVC_ASSIGN_OR_RETURN(ps::ImportEvent event, ps::DecodeImport(env));
  const auto& job = std::get<ps::ImportRecorded>(event);
  core::Json rows = core::Json::array();
  for (const auto& r : job.rows) rows.push_back(core::EncodeFields(r));
  view.Put(PsV::Import(TenantEnv(env.tenant_id, env.environment), env.aggregate_id),
           core::DumpJson({{"object", "person.import"},
                           {"id", env.aggregate_id},
                           {"status", "completed"},
                           {"createdAt", core::FormatRfc3339(env.occurred_at)},
                           {"total", job.total},
                           {"created", job.created},
                           {"updated", job.updated},
                           {"failed", job.failed},
                           {"rows", rows}}));
  return core::Status::Ok();
}

// A bulk export job, as GET /v1/persons/export-bulk/{job_id} serves it, and the exporter's queues:
// the request while the dump is not written, the dump's expiry once it is.
core::Status ApplyExport(const eventstore::EventEnvelope& env, ViewWriter& view) {
  SVC_ASSIGN_OR_RETURN(ps::ExportEvent event, ps::DecodeExport(env));
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  const std::string key = PsV::Export(te, id);
  if (const auto* r = std::get_if<ps::ExportRequested>(&event)) {
    view.Put(key, core::DumpJson({{"object", "person.export_bulk"},
                                  {"id", id},
                                  {"status", "queued"},
                                  {"createdAt", at},
                                  {"selection", r->person_ids.empty() ? "all" : "list"},
                                  {"requestedPersonCount", r->person_ids.empty() ? core::Json(nullptr)
                                                                                 : core::Json(r->person_ids.size())},
                                  {"fields", r->fields},
                                  {"purpose", r->purpose},
                                  // Sealed (opened where it is served); in clear in older events.
                                  {r->reason_sealed.empty() ? "reason" : "reasonSealed",
                                   r->reason_sealed.empty() ? r->reason : r->reason_sealed},
                                  {"recipientKeyId", r->recipient_key_id},
                                  {"auditedCount", 0},
                                  {"personCount", nullptr},
                                  {"skippedCount", nullptr},
                                  {"skipped", core::Json::array()},
                                  {"dump", nullptr},
                                  {"completedAt", nullptr},
                                  {"expiresAt", nullptr},
                                  {"expiredAt", nullptr},
                                  {"failure", nullptr}}));
    core::Json q = core::EncodeFields(*r);
    q["tenantId"] = env.tenant_id;
    q["environment"] = env.environment;
    q["jobId"] = id;
    view.Put(PsV::Exporting(te, id), core::DumpJson(q));
    return core::Status::Ok();
  }
  SVC_ASSIGN_OR_RETURN(auto stored, view.Get(key));
  if (!stored.has_value()) return core::DataLoss("export event before its request: " + id);
  core::Json row = core::ParseJsonOrDiscarded(*stored);
  if (std::holds_alternative<ps::PiiAccessed>(event)) {
    row["auditedCount"] = row.value("auditedCount", int64_t{0}) + 1;
  } else if (const auto* c = std::get_if<ps::ExportCompleted>(&event)) {
    core::Json skipped = core::Json::array();
    for (const auto& sk : c->skipped) skipped.push_back(core::EncodeFields(sk));
    row["status"] = "ready";
    row["completedAt"] = at;
    row["expiresAt"] = core::FormatRfc3339(core::Timestamp{c->expires_at_micros});
    row["personCount"] = c->person_count;
    row["skippedCount"] = c->skipped_count;
    row["skipped"] = std::move(skipped);
    row["dump"] = {{"format", "svc-export-bulk-1"}, {"sizeBytes", c->size_bytes}, {"sha256", c->sha256}};
    view.Delete(PsV::Exporting(te, id));
    view.Put(PsV::ExportReady(te, id), core::DumpJson({{"tenantId", env.tenant_id},
                                                    {"environment", env.environment},
                                                    {"jobId", id},
                                                    {"expiresAtMicros", c->expires_at_micros}}));
  } else if (const auto* f = std::get_if<ps::ExportFailed>(&event)) {
    row["status"] = "failed";
    row["completedAt"] = at;
    row["failure"] = {{"code", f->code}, {"message", f->message}};
    view.Delete(PsV::Exporting(te, id));
  } else {
    row["status"] = "expired";
    row["expiredAt"] = at;
    view.Delete(PsV::ExportReady(te, id));
  }
  view.Put(key, core::DumpJson(row));
  return core::Status::Ok();
}

// Forget: the request (the record says so, the purger's queue gets the person), the purge (every
// sealed value, blind-index entry, CURP holding, externalRef and the face reference leave; the
// record becomes `redacted`), the keys destroyed (the certificate's content).
core::Status ApplyForget(const eventstore::EventEnvelope& env, const ps::PersonEvent& event, ViewWriter& view) {
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  SVC_ASSIGN_OR_RETURN(auto stored, view.Get(PsV::Record(te, id)));
  if (!stored.has_value()) return core::DataLoss("person event before its creation: " + id);
  core::Json r = core::ParseJsonOrDiscarded(*stored);
  if (const auto* f = std::get_if<ps::ForgetRequested>(&event)) {
    // The queue's key is the millisecond the record shows, so the record alone names it.
    if (auto old = core::ParseRfc3339(core::StringOr(r, "purgeDueAt")); old.ok()) {
      view.Delete(PsV::PurgeDue(old->micros, env.tenant_id, env.environment, id));
    } else {
      r["forgetRequestedAt"] = at;
    }
    const core::Timestamp due{core::Timestamp{f->purge_due_micros}.millis() * 1000};
    r["forgetRequested"] = true;
    r["forgetMode"] = f->mode;
    r["purgeDueAt"] = core::FormatRfc3339(due);
    view.Put(PsV::PurgeDue(due.micros, env.tenant_id, env.environment, id), "");
    view.Put(PsV::Record(te, id), core::DumpJson(r));
    return core::Status::Ok();
  }
  if (const auto* p = std::get_if<ps::PersonPurged>(&event)) {
    SVC_RETURN_IF_ERROR(DropAllData(view, te, id, r));
    for (const auto& ref : r.value("externalRefs", core::Json::array())) {
      view.Delete(PsV::ExternalRef(te, core::StringOr(ref, "applicationId"), core::StringOr(ref, "externalRef")));
    }
    r["externalRefs"] = core::Json::array();
    r["status"] = "redacted";
    r["updatedAt"] = at;
    r["dataRemovedAt"] = at;
    if (auto due = core::ParseRfc3339(core::StringOr(r, "purgeDueAt")); due.ok()) {
      view.Delete(PsV::PurgeDue(due->micros, env.tenant_id, env.environment, id));
    }
    view.Put(PsV::Record(te, id), core::DumpJson(r));
    view.Put(PsV::Shred(te, id), core::DumpJson({{"sessionIds", p->session_ids}}));
    return core::Status::Ok();
  }
  const auto& k = std::get<ps::KeysDestroyed>(event);
  SVC_ASSIGN_OR_RETURN(auto shred, view.Get(PsV::Shred(te, id)));
  const core::Json sessions = core::ParseJsonOrDiscarded(shred.value_or("{}")).value("sessionIds", core::Json::array());
  view.Delete(PsV::Shred(te, id));
  // What the certificate states: who, where, how it was asked, and when the data became unreadable.
  view.Put(PsV::Deletion(te, id), core::DumpJson({{"object", "person.deletion_certificate"},
                                                {"personId", id},
                                                {"tenantId", env.tenant_id},
                                                {"environment", env.environment},
                                                {"mode", r.value("forgetMode", core::Json(nullptr))},
                                                {"forgetRequestedAt", r.value("forgetRequestedAt", core::Json(nullptr))},
                                                {"dataRemovedAt", r.value("dataRemovedAt", core::Json(nullptr))},
                                                {"purgedAt", at},
                                                {"keysDestroyed", k.key_names.size()},
                                                {"verificationSessions", sessions},
                                                {"method", "crypto-shredding: the data keys of the person and of "
                                                           "their verification sessions were destroyed; every value "
                                                           "sealed under them, in the log and in backups, no longer "
                                                           "opens"}}));
  return core::Status::Ok();
}

// Consents, grants and legal holds: the items as served, their newest-first indexes, the grant in
// force per application, the holds in force. A revocation keeps the first revokedAt (a second one records no event anyway).
core::Status ApplyRights(const eventstore::EventEnvelope& env, const ps::PersonEvent& event, ViewWriter& view) {
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  auto time_or_null = [](int64_t micros) {
    return micros == 0 ? core::Json(nullptr) : core::Json(core::FormatRfc3339(core::Timestamp{micros}));
  };
  auto or_null = [](const std::string& s) { return s.empty() ? core::Json(nullptr) : core::Json(s); };
  auto revoke = [&](const std::string& key) -> core::Status {
    SVC_ASSIGN_OR_RETURN(auto row, view.Get(key));
    if (!row.has_value()) return core::DataLoss("revocation of an unknown item: " + key);
    core::Json r = core::ParseJsonOrDiscarded(*row);
    if (r.value("revokedAt", core::Json()).is_null()) r["revokedAt"] = at;
    view.Put(key, core::DumpJson(r));
    return core::Status::Ok();
  };
  if (const auto* c = std::get_if<ps::ConsentGranted>(&event)) {
    core::Json item = {{"id", c->consent_id},           {"object", "person.consent"},
                       {"attestedBy", or_null(c->attested_by)}, {"createdAt", at},
                       {"expiresAt", time_or_null(c->expires_micros)}, {"grantedAt", at},
                       {"mechanism", c->mechanism},     {"policyVersion", c->policy_version},
                       {"purpose", c->purpose},         {"revokedAt", nullptr}};
    if (!c->efirma_challenge_id.empty()) item["efirmaChallengeId"] = c->efirma_challenge_id;
    view.Put(PsV::Consent(te, id, c->consent_id), core::DumpJson(item));
    if (!c->evidence_sealed.empty()) view.Put(PsV::ConsentEvidence(te, id, c->consent_id), c->evidence_sealed);
    view.Put(PsV::ConsentIndex(te, id) + PsV::NewestFirst(env.aggregate_version, c->consent_id), "");
    // A consent given after an opposition to its purpose lifts the opposition.
    SVC_ASSIGN_OR_RETURN(auto opposed, view.Get(PsV::Opposed(te, id, c->purpose)));
    if (opposed.has_value()) {
      view.Delete(PsV::Opposed(te, id, c->purpose));
      SVC_ASSIGN_OR_RETURN(auto opp, view.Get(PsV::Opposition(te, id, *opposed)));
      core::Json o = core::ParseJsonOrDiscarded(opp.value_or("{}"));
      o["liftedAt"] = at;
      o["liftedByConsentId"] = c->consent_id;
      view.Put(PsV::Opposition(te, id, *opposed), core::DumpJson(o));
    }
    return core::Status::Ok();
  }
  if (const auto* o = std::get_if<ps::OppositionRecorded>(&event)) {
    core::Json item = {{"id", o->opposition_id},
                       {"object", "person.opposition"},
                       {"purpose", o->purpose},
                       // The reason sealed under the person's key (served opened: api/persons), or in
                       // clear as events before it held it.
                       {o->reason_sealed.empty() ? "reason" : "reasonSealed",
                        o->reason_sealed.empty() ? or_null(o->reason) : core::Json(o->reason_sealed)},
                       {"arcoRequestId", or_null(o->arco_request_id)},
                       {"createdAt", at},
                       {"liftedAt", nullptr},
                       {"liftedByConsentId", nullptr}};
    view.Put(PsV::Opposition(te, id, o->opposition_id), core::DumpJson(item));
    view.Put(PsV::OppositionIndex(te, id) + PsV::NewestFirst(env.aggregate_version, o->opposition_id), "");
    view.Put(PsV::Opposed(te, id, o->purpose), o->opposition_id);
    return core::Status::Ok();
  }
  if (const auto* c = std::get_if<ps::ConsentRevoked>(&event)) return revoke(PsV::Consent(te, id, c->consent_id));
  if (const auto* g = std::get_if<ps::GrantCreated>(&event)) {
    if (!g->replaces.empty()) SVC_RETURN_IF_ERROR(revoke(PsV::Grant(te, id, g->replaces)));
    core::Json item = {{"id", g->grant_id},
                       {"object", "person.grant"},
                       {"allowedFields", g->allowed_fields},
                       {"allowedPurposes", g->allowed_purposes},
                       {"applicationId", g->application_id},
                       {"createdAt", at},
                       {"createdVia", "api"},
                       {"defaultRedaction", g->default_redaction},
                       {"expiresAt", time_or_null(g->expires_micros)},
                       {"revokedAt", nullptr}};
    view.Put(PsV::Grant(te, id, g->grant_id), core::DumpJson(item));
    view.Put(PsV::GrantIndex(te, id) + PsV::NewestFirst(env.aggregate_version, g->grant_id), "");
    view.Put(PsV::GrantOfApplication(te, id, g->application_id), g->grant_id);
    return core::Status::Ok();
  }
  if (const auto* h = std::get_if<ps::LegalHoldRecorded>(&event)) {
    core::Json item = {{"id", h->hold_id},
                       {"object", "person.legal_hold"},
                       {"action", h->action},
                       {"personId", id},
                       {"assetId", or_null(h->asset_id)},
                       {h->reason_sealed.empty() ? "reason" : "reasonSealed",
                        h->reason_sealed.empty() ? core::Json(h->reason) : core::Json(h->reason_sealed)},
                       {h->legal_basis_sealed.empty() ? "legalBasis" : "legalBasisSealed",
                        h->legal_basis_sealed.empty() ? or_null(h->legal_basis) : core::Json(h->legal_basis_sealed)},
                       {"createdAt", at},
                       {"expiresAt", h->action == "release" ? core::Json(nullptr) : time_or_null(h->expires_micros)}};
    view.Put(PsV::LegalHolds(te, id) + PsV::NewestFirst(env.aggregate_version, h->hold_id), core::DumpJson(item));
    if (h->action == "release") {
      view.Delete(PsV::Hold(te, id, h->asset_id));
    } else {
      view.Put(PsV::Hold(te, id, h->asset_id), std::to_string(h->expires_micros));
    }
    return core::Status::Ok();
  }
  if (std::holds_alternative<ps::ForgetRequested>(event) || std::holds_alternative<ps::PersonPurged>(event) ||
      std::holds_alternative<ps::KeysDestroyed>(event)) {
    return ApplyForget(env, event, view);
  }
  if (std::holds_alternative<ps::ConsolidationRequested>(event) || std::holds_alternative<ps::MergeStarted>(event) ||
      std::holds_alternative<ps::SourceAbsorbed>(event) || std::holds_alternative<ps::PersonMerged>(event) ||
      std::holds_alternative<ps::ConsolidationCompleted>(event)) {
    return ApplyConsolidation(env, event, view);
  }
  const auto& g = std::get<ps::GrantRevoked>(event);
  const std::string key = PsV::Grant(te, id, g.grant_id);
  SVC_RETURN_IF_ERROR(revoke(key));
  SVC_ASSIGN_OR_RETURN(auto row, view.Get(key));
  const std::string app = core::StringOr(core::ParseJsonOrDiscarded(row.value_or("{}")), "applicationId");
  SVC_ASSIGN_OR_RETURN(auto in_force, view.Get(PsV::GrantOfApplication(te, id, app)));
  if (in_force == g.grant_id) view.Delete(PsV::GrantOfApplication(te, id, app));
  return core::Status::Ok();
}

}  // namespace

core::Status PersonsProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type == ps::kClientTokenAggregate) return ApplyClientToken(env, view);
  if (env.aggregate_type == ps::kImportAggregate) return ApplyImport(env, view);
  if (env.aggregate_type == ps::kExportAggregate) return ApplyExport(env, view);
  if (env.aggregate_type == vs::kSessionAggregate) return ApplySession(re, view);
  if (env.aggregate_type != ps::kPersonAggregate) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(ps::PersonEvent event, ps::Decode(env));
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);

  if (const auto* c = std::get_if<ps::PersonCreated>(&event)) {
    // Every row of a new person is written as text: no tree to build, nothing to read back.
    std::vector<std::string> fields;
    for (const auto& [field, value] : c->pii) fields.push_back(field);
    Summary summary;
    SVC_RETURN_IF_ERROR(Verified(te, id, c->source, fields, env, summary, view));
    core::JsonText r;
    r.BeginObject();
    r.Key("id");
    r.String(id);
    r.Key("object");
    r.String("person");
    r.Key("createdAt");
    r.String(at);
    r.Key("updatedAt");
    r.String(at);
    r.Key("environment");
    r.String(env.environment);
    r.Key("piiVersion");
    r.Int(1);
    r.Key("status");
    r.String("active");
    for (auto name : ps::kPiiFieldNames) {
      r.Key(std::string(name) + "Provided");
      r.Bool(c->pii.count(std::string(name)) != 0);
    }
    r.Key("applicationId");
    r.String(c->application_id);
    r.Key("externalRefs");
    r.BeginArray();
    if (!c->external_ref.empty()) {
      r.BeginObject();
      r.Key("applicationId");
      r.String(c->application_id);
      r.Key("externalRef");
      r.String(c->external_ref);
      r.EndObject();
      view.Put(PsV::ExternalRef(te, c->application_id, c->external_ref), id);
    }
    r.EndArray();
    r.Key("forgetRequested");
    r.Bool(false);
    r.Key("verificationSummary");
    core::WriteFields(r, summary);
    r.EndObject();
    view.Put(PsV::Record(te, id), r.text());

    core::JsonText prov;
    core::JsonText sealed;
    prov.BeginObject();
    sealed.BeginObject();
    std::vector<std::string_view> indexed;  // blind-index entries written (names share tokens)
    for (const auto& [field, value] : c->pii) {
      prov.Key(field);
      WriteSource(prov, c->source, 1, at);
      sealed.Key(field);
      WriteSealed(sealed, value, 1);
      for (const auto& k : value.index) {
        if (std::find(indexed.begin(), indexed.end(), k) != indexed.end()) continue;
        indexed.push_back(k);
        view.Put(PsV::BlindIndex(te, k, id), field);
      }
      if (field == "curp") {
        for (const auto& k : value.index) SVC_RETURN_IF_ERROR(Holders(view, te, k, id, true));
      }
    }
    prov.EndObject();
    sealed.EndObject();
    view.Put(PsV::Provenance(te, id), prov.text());
    view.Put(PsV::Sealed(te, id), sealed.text());
    if (!c->metadata_sealed.empty()) view.Put(PsV::Metadata(te, id), c->metadata_sealed);
    // List order by the millisecond the record shows.
    std::string order = PsV::Order(env.occurred_at.millis() * 1000, id);
    view.Put(PsV::Index(te, PsV::All()) + order, "");
    view.Put(PsV::Index(te, PsV::ByApplication(c->application_id)) + order, "");
    return core::Status::Ok();
  }

  if (!std::holds_alternative<ps::PersonRevised>(event)) return ApplyRights(env, event, view);
  const auto& rv = std::get<ps::PersonRevised>(event);
  SVC_ASSIGN_OR_RETURN(auto stored, view.Get(PsV::Record(te, id)));
  if (!stored.has_value()) return core::DataLoss("person event before its creation: " + id);
  core::Json r = core::ParseJsonOrDiscarded(*stored);
  SVC_ASSIGN_OR_RETURN(auto stored_prov, view.Get(PsV::Provenance(te, id)));
  core::Json prov = core::ParseJsonOrDiscarded(stored_prov.value_or("{}"));
  SVC_ASSIGN_OR_RETURN(auto stored_sealed, view.Get(PsV::Sealed(te, id)));
  core::Json sealed = core::ParseJsonOrDiscarded(stored_sealed.value_or("{}"));
  if (!sealed.is_object()) sealed = core::Json::object();
  for (const auto& [field, value] : rv.set) {
    SVC_RETURN_IF_ERROR(DropField(view, te, id, field, sealed));
    SVC_RETURN_IF_ERROR(PutField(view, te, id, field, value, rv.pii_version, sealed));
    prov[field] = Source(rv.source, rv.pii_version, at);
    r[field + "Provided"] = true;
  }
  for (const auto& field : rv.cleared) {
    SVC_RETURN_IF_ERROR(DropField(view, te, id, field, sealed));
    prov.erase(field);
    r[field + "Provided"] = false;
  }
  if (!rv.set.empty() || !rv.cleared.empty()) view.Put(PsV::Sealed(te, id), core::DumpJson(sealed));
  if (rv.metadata_changed) {
    if (rv.metadata_sealed.empty()) {
      view.Delete(PsV::Metadata(te, id));
    } else {
      view.Put(PsV::Metadata(te, id), rv.metadata_sealed);
    }
  }
  r["piiVersion"] = rv.pii_version;
  r["updatedAt"] = at;
  std::vector<std::string> fields;
  for (const auto& [field, value] : rv.set) fields.push_back(field);
  Summary summary = SummaryOf(r);
  SVC_RETURN_IF_ERROR(Verified(te, id, rv.source, fields, env, summary, view));
  r["verificationSummary"] = core::EncodeFields(summary);
  view.Put(PsV::Record(te, id), core::DumpJson(r));
  view.Put(PsV::Provenance(te, id), core::DumpJson(prov));
  return core::Status::Ok();
}

}  // namespace svc::projections
