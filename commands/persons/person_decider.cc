#include "commands/persons/person_decider.h"

#include <algorithm>

#include "commands/claims/claim_events.h"
#include "commands/event_codec.h"
#include "core/crypto.h"

namespace svc::commands::persons {

namespace {

NewEvent Make(const PersonEvent& e) { return NewEventOf(e); }

core::Status CheckFieldNames(const std::map<std::string, SealedPii>& set,
                             const std::vector<std::string>& cleared) {
  for (const auto& [name, value] : set) {
    if (!IsPiiFieldName(name)) return core::InvalidArgument("unknown PII field " + name, "UNKNOWN_PII_FIELD");
    if (value.sealed.empty()) return core::InvalidArgument(name + " arrived unsealed", "VALIDATION_ERROR");
  }
  for (const auto& name : cleared) {
    if (!IsPiiFieldName(name)) return core::InvalidArgument("unknown PII field " + name, "UNKNOWN_PII_FIELD");
    if (set.count(name) != 0) return core::InvalidArgument(name + " is both set and cleared", "VALIDATION_ERROR");
  }
  return core::Status::Ok();
}

}  // namespace

bool IsPiiFieldName(std::string_view name) {
  return std::find(std::begin(kPiiFieldNames), std::end(kPiiFieldNames), name) !=
         std::end(kPiiFieldNames);
}

core::Result<Decision> PersonDecider::Decide(const PersonState& s, const PersonCommand& command,
                                             const StateReader& read, const CommandContext& ctx) {
  if (const auto* rc = std::get_if<RequestConsolidation>(&command)) {
    for (const auto& id : rc->request.source_ids) {
      SVC_ASSIGN_OR_RETURN(AggregateView view, read(kName, id));
      const PersonState& src = StateOf<PersonDecider>(view);
      if (!src.exists || src.environment != ctx.environment) {
        return core::NotFound("no such person: " + id, "PERSON_NOT_FOUND");
      }
      if (src.status == "merged" || !src.merge_consolidation.empty()) {
        return core::FailedPrecondition(id + " is merged (or being merged) into another person",
                                        "PERSON_ALREADY_MERGED");
      }
      if (src.status == "redacted") return core::FailedPrecondition(id + " was erased", "PERSON_PURGED");
      if (!src.forget_mode.empty()) {
        return core::FailedPrecondition(id + " asked to be forgotten", "PERSON_FORGET_PENDING");
      }
    }
  }
  return Decide(s, command, ctx);
}

core::Result<Decision> PersonDecider::Decide(const PersonState& s, const PersonCommand& command,
                                             const CommandContext& ctx) {
  Decision d;
  if (const auto* c = std::get_if<CreatePerson>(&command)) {
    if (s.exists) return core::AlreadyExists("the person exists", "CONFLICT");
    SVC_RETURN_IF_ERROR(CheckFieldNames(c->created.pii, {}));
    d.events.push_back(Make(c->created));
    return d;
  }
  if (!s.exists || s.environment != ctx.environment) {
    return core::NotFound("no such person", "PERSON_NOT_FOUND");
  }
  // Revocations take effect whatever became of the person: they only ever narrow what may be read.
  if (const auto* rc = std::get_if<RevokeConsent>(&command)) {
    auto it = s.consents.find(rc->consent_id);
    if (it == s.consents.end()) return core::NotFound("no such consent of this person", "CONSENT_NOT_FOUND");
    d.result = {{"revoked", !it->second}};
    if (!it->second) d.events.push_back(Make(ConsentRevoked{rc->consent_id}));
    return d;
  }
  if (const auto* rg = std::get_if<RevokeGrant>(&command)) {
    auto it = s.grants.find(rg->grant_id);
    if (it == s.grants.end()) return core::NotFound("no such grant on this person", "GRANT_NOT_FOUND");
    d.result = {{"revoked", !it->second.revoked}};
    if (!it->second.revoked) d.events.push_back(Make(GrantRevoked{rg->grant_id}));
    return d;
  }
  // Holds apply in any state ("legal-hold set | any"): they freeze deletions, they reveal nothing.
  if (const auto* h = std::get_if<RecordLegalHold>(&command)) {
    LegalHoldRecorded e = h->hold;
    if (e.action != "set" && e.action != "release") return core::InvalidArgument("a hold is set or released", "VALIDATION_ERROR");
    if (e.action == "set" && s.HoldInForce(e.asset_id, ctx.now.micros)) e.action = "renew";
    d.events.push_back(Make(e));
    d.result = {{"action", e.action}};
    return d;
  }
  if (const auto* pp = std::get_if<PurgePerson>(&command)) {
    if (s.status == "redacted") return d;  // done already
    if (s.forget_mode.empty() || s.purge_due_micros > ctx.now.micros) {
      return core::FailedPrecondition("no purge is due for this person", "INVALID_STATE_TRANSITION");
    }
    if (s.AnyHoldInForce(ctx.now.micros)) {
      return core::FailedPrecondition("a legal hold is in force", "PERSON_LEGAL_HOLD");
    }
    d.events.push_back(Make(PersonPurged{pp->session_ids}));
    return d;
  }
  if (const auto* kd = std::get_if<ConfirmKeysDestroyed>(&command)) {
    if (s.status != "redacted") return core::FailedPrecondition("the person was not purged", "INVALID_STATE_TRANSITION");
    if (!s.keys_destroyed) d.events.push_back(Make(KeysDestroyed{kd->key_names}));
    return d;
  }
  // Consolidation: each step is idempotent, so the consolidator may repeat any after a crash.
  if (const auto* cc = std::get_if<CompleteConsolidation>(&command)) {
    if (s.consolidating.count(cc->consolidation_id) != 0) d.events.push_back(Make(ConsolidationCompleted{cc->consolidation_id}));
    return d;
  }
  if (const auto* cm = std::get_if<CompleteMerge>(&command)) {
    if (s.status == "merged" && s.merge_consolidation == cm->consolidation_id) return d;
    if (s.merge_consolidation != cm->consolidation_id) {
      return core::FailedPrecondition("the person is not being merged by this consolidation", "INVALID_STATE_TRANSITION");
    }
    d.events.push_back(Make(PersonMerged{cm->consolidation_id, cm->survivor_id}));
    return d;
  }
  if (const auto* sm = std::get_if<StartMerge>(&command)) {
    if (!s.merge_consolidation.empty() && s.merge_consolidation == sm->consolidation_id) return d;
  }
  if (const auto* rv = std::get_if<RevisePerson>(&command); rv != nullptr && rv->absorbing.has_value()) {
    const auto& ab = *rv->absorbing;
    if (s.absorbed.count(ab.consolidation_id + "/" + ab.source_id) != 0) return d;  // once
    if (s.consolidating.count(ab.consolidation_id) == 0) {
      return core::FailedPrecondition("no such consolidation under way", "INVALID_STATE_TRANSITION");
    }
    if (!ab.error.empty()) {
      d.events.push_back(Make(SourceAbsorbed{ab.consolidation_id, ab.source_id, {}, ab.error}));
      return d;
    }
  }
  if (const auto* rc = std::get_if<RequestConsolidation>(&command)) {
    if (s.status != "active" || !s.forget_mode.empty() || !s.merge_consolidation.empty()) {
      return core::FailedPrecondition("the survivor must be active (not merged, erased, forgotten or being merged)",
                                      "SURVIVOR_NOT_ACTIVE");
    }
    const auto& q = rc->request;
    if (s.consolidating.count(q.consolidation_id) != 0) return core::AlreadyExists("the consolidation exists", "CONFLICT");
    d.events.push_back(Make(q));
    d.result = {{"consolidationId", q.consolidation_id}};
    return d;
  }
  if (s.status == "redacted") return core::FailedPrecondition("the person was erased", "PERSON_PURGED");
  if (s.status == "merged") {
    return core::FailedPrecondition("the person was merged into another", "PERSON_ALREADY_MERGED");
  }
  if (!s.merge_consolidation.empty()) {
    return core::FailedPrecondition("the person is being merged into another", "PERSON_ALREADY_MERGED");
  }
  if (const auto* f = std::get_if<RequestForget>(&command)) {
    if (!s.consolidating.empty()) {
      return core::FailedPrecondition("a consolidation into this person is under way; forget it once it is done",
                                      "INVALID_STATE_TRANSITION");
    }
    if (f->mode != "block" && f->mode != "purge") return core::InvalidArgument("mode is block or purge", "MODE_INVALID");
    if (s.AnyHoldInForce(ctx.now.micros)) {
      return core::FailedPrecondition("a legal hold is in force: nothing of the person can be deleted", "PERSON_LEGAL_HOLD");
    }
    const int64_t due = f->mode == "purge" ? ctx.now.micros : ctx.now.micros + f->grace_micros;
    if (!s.forget_mode.empty() && s.purge_due_micros <= due) {
      d.result = {{"mode", s.forget_mode}, {"purgeDueMicros", s.purge_due_micros}};  // already as soon or sooner
      return d;
    }
    d.events.push_back(Make(ForgetRequested{f->mode, "", due, f->arco_request_id, f->reason_sealed}));
    d.result = {{"mode", f->mode}, {"purgeDueMicros", due}};
    return d;
  }
  if (!s.forget_mode.empty()) {
    return core::FailedPrecondition("the person asked to be forgotten", "PERSON_FORGET_PENDING");
  }
  if (const auto* sm = std::get_if<StartMerge>(&command)) {
    if (!s.consolidating.empty()) {
      return core::FailedPrecondition("the person is absorbing other persons; merge it once that is done",
                                      "INVALID_STATE_TRANSITION");
    }
    d.events.push_back(Make(MergeStarted{sm->consolidation_id, sm->survivor_id}));
    return d;
  }
  if (const auto* ro = std::get_if<RecordOpposition>(&command)) {
    d.events.push_back(Make(ro->opposition));
    for (const auto& id : ro->revoke) {
      auto it = s.consents.find(id);
      if (it != s.consents.end() && !it->second) d.events.push_back(Make(ConsentRevoked{id}));
    }
    d.result = {{"oppositionId", ro->opposition.opposition_id}};
    return d;
  }
  if (const auto* gc = std::get_if<GrantConsent>(&command)) {
    if (s.consents.count(gc->consent.consent_id) != 0) return core::AlreadyExists("the consent exists", "CONFLICT");
    d.events.push_back(Make(gc->consent));
    return d;
  }
  if (const auto* cg = std::get_if<CreateGrant>(&command)) {
    if (s.grants.count(cg->grant.grant_id) != 0) return core::AlreadyExists("the grant exists", "CONFLICT");
    for (const auto& f : cg->grant.allowed_fields) {
      if (!IsPiiFieldName(f)) return core::InvalidArgument("unknown PII field " + f, "UNKNOWN_PII_FIELD");
    }
    GrantCreated g = cg->grant;
    g.replaces.clear();
    for (const auto& [id, ref] : s.grants) {
      if (!ref.revoked && ref.application_id == g.application_id) g.replaces = id;
    }
    d.events.push_back(Make(g));
    d.result = {{"replaces", g.replaces.empty() ? core::Json(nullptr) : core::Json(g.replaces)}};
    return d;
  }
  const auto& r = std::get<RevisePerson>(command);
  if (r.expected_pii_version != 0 && r.expected_pii_version != s.pii_version) {
    return core::Aborted("the person's data changed while the revision was on its way; retry", "CONFLICT");
  }
  SVC_RETURN_IF_ERROR(CheckFieldNames(r.set, r.cleared));
  PersonRevised e;
  e.set = r.set;
  // Clearing a field that holds nothing changes nothing.
  for (const auto& name : r.cleared) {
    if (s.fields.count(name) != 0) e.cleared.push_back(name);
  }
  const bool pii_changes = !e.set.empty() || !e.cleared.empty();
  e.pii_version = s.pii_version + (pii_changes ? 1 : 0);
  e.metadata_changed = r.metadata_sealed.has_value();
  e.metadata_sealed = r.metadata_sealed.value_or("");
  e.source = r.source;
  e.arco_request_id = r.arco_request_id;
  if (r.absorbing.has_value()) {
    SourceAbsorbed a{r.absorbing->consolidation_id, r.absorbing->source_id, {}, ""};
    for (const auto& [field, value] : e.set) a.fields.push_back(field);
    if (pii_changes) d.events.push_back(Make(e));
    d.events.push_back(Make(a));
    d.result = {{"piiVersion", e.pii_version}, {"fields", a.fields}};
    return d;
  }
  if (!pii_changes && !e.metadata_changed) return d;  // nothing to record
  d.events.push_back(Make(e));
  d.result = {{"piiVersion", e.pii_version}};
  return d;
}

void PersonDecider::EvolveDecoded(PersonState& s, const PersonEvent& event, core::Timestamp at,
                                  std::string_view environment) {
  s.updated_micros = at.micros;
  if (const auto* c = std::get_if<PersonCreated>(&event)) {
    s.exists = true;
    s.environment = std::string(environment);
    s.status = "active";
    s.application_id = c->application_id;
    s.external_ref = c->external_ref;
    s.pii_version = 1;
    s.created_micros = at.micros;
    for (const auto& [name, value] : c->pii) s.fields[name] = 1;
    if (auto it = c->pii.find("curp"); it != c->pii.end() && !it->second.index.empty()) s.curp_key = it->second.index[0];
    return;
  }
  if (const auto* c = std::get_if<ConsentGranted>(&event)) {
    s.consents[c->consent_id] = false;
    return;
  }
  if (const auto* c = std::get_if<ConsentRevoked>(&event)) {
    s.consents[c->consent_id] = true;
    return;
  }
  if (const auto* g = std::get_if<GrantCreated>(&event)) {
    if (!g->replaces.empty()) s.grants[g->replaces].revoked = true;
    s.grants[g->grant_id] = {g->application_id, false};
    return;
  }
  if (const auto* g = std::get_if<GrantRevoked>(&event)) {
    s.grants[g->grant_id].revoked = true;
    return;
  }
  if (const auto* q = std::get_if<ConsolidationRequested>(&event)) {
    s.consolidating[q->consolidation_id] = q->source_ids;
    return;
  }
  if (const auto* m = std::get_if<MergeStarted>(&event)) {
    s.merge_consolidation = m->consolidation_id;
    return;
  }
  if (const auto* a = std::get_if<SourceAbsorbed>(&event)) {
    s.absorbed.insert(a->consolidation_id + "/" + a->source_id);
    return;
  }
  if (const auto* m = std::get_if<PersonMerged>(&event)) {
    s.status = "merged";
    s.merged_into = m->survivor_id;
    return;
  }
  if (const auto* c = std::get_if<ConsolidationCompleted>(&event)) {
    s.consolidating.erase(c->consolidation_id);
    return;
  }
  if (const auto* f = std::get_if<ForgetRequested>(&event)) {
    s.forget_mode = f->mode;
    s.purge_due_micros = f->purge_due_micros;
    return;
  }
  if (std::holds_alternative<PersonPurged>(event)) {
    s.status = "redacted";
    s.fields.clear();
    s.curp_key.clear();
    return;
  }
  if (std::holds_alternative<KeysDestroyed>(event)) {
    s.keys_destroyed = true;
    return;
  }
  if (const auto* h = std::get_if<LegalHoldRecorded>(&event)) {
    if (h->action == "release") {
      s.holds.erase(h->asset_id);
    } else {
      s.holds[h->asset_id] = h->expires_micros;
    }
    return;
  }
  if (std::holds_alternative<OppositionRecorded>(event)) return;  // the read model keeps it; no rule here reads it
  const auto& r = std::get<PersonRevised>(event);
  s.pii_version = r.pii_version;
  for (const auto& [name, value] : r.set) s.fields[name] = r.pii_version;
  for (const auto& name : r.cleared) s.fields.erase(name);
  if (auto it = r.set.find("curp"); it != r.set.end()) s.curp_key = it->second.index.empty() ? "" : it->second.index[0];
  if (std::find(r.cleared.begin(), r.cleared.end(), "curp") != r.cleared.end()) s.curp_key.clear();
}

std::string CurpClaimId(std::string_view environment, std::string_view curp_key) {
  return claims::ClaimId("curp", environment, curp_key);
}

std::string ExternalRefClaimId(std::string_view environment, std::string_view application_id,
                               std::string_view external_ref) {
  // The reference is the integrator's own id, kept in clear on the person; the claim's id is a
  // hash of it all the same (an aggregate id shows in logs and metrics).
  return claims::ClaimId("external_ref", environment,
                         core::Sha256Hex(std::string(application_id) + "|" + std::string(external_ref)));
}

bool HoldsCurp(const PersonState& s, std::string_view curp_key) {
  return s.exists && s.status == "active" && s.merge_consolidation.empty() && !curp_key.empty() && s.curp_key == curp_key;
}

bool HoldsExternalRef(const PersonState& s, std::string_view application_id, std::string_view external_ref) {
  return s.exists && s.status != "redacted" && s.application_id == application_id && s.external_ref == external_ref;
}

core::Status PersonDecider::Evolve(PersonState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(PersonEvent event, Decode(e));
  EvolveDecoded(s, event, e.occurred_at, e.environment);
  return core::Status::Ok();
}

core::Json PersonDecider::ResultOf(const std::vector<eventstore::EventEnvelope>& events, const PersonState& after) {
  // What each decision told (Decide's d.result), told again from its events; the writer answers a
  // keyed command with all of it.
  core::Json out = core::Json::object();
  const eventstore::EventEnvelope* written = nullptr;
  for (const auto& e : events) {
    auto decoded = Decode(e);
    if (!decoded.ok()) continue;
    const PersonEvent& ev = *decoded;
    if (std::holds_alternative<PersonCreated>(ev) || std::holds_alternative<PersonRevised>(ev)) {
      written = &e;
      out["piiVersion"] = after.pii_version;
    } else if (const auto* f = std::get_if<ForgetRequested>(&ev)) {
      out["mode"] = f->mode;
      out["purgeDueMicros"] = f->purge_due_micros;
    } else if (const auto* q = std::get_if<ConsolidationRequested>(&ev)) {
      out["consolidationId"] = q->consolidation_id;
    } else if (std::holds_alternative<ConsentRevoked>(ev) || std::holds_alternative<GrantRevoked>(ev)) {
      out["revoked"] = true;
    } else if (const auto* h = std::get_if<LegalHoldRecorded>(&ev)) {
      out["action"] = h->action;
    } else if (const auto* o = std::get_if<OppositionRecorded>(&ev)) {
      out["oppositionId"] = o->opposition_id;
    } else if (const auto* g = std::get_if<GrantCreated>(&ev)) {
      out["replaces"] = g->replaces.empty() ? core::Json(nullptr) : core::Json(g->replaces);
    } else if (const auto* a = std::get_if<SourceAbsorbed>(&ev)) {
      out["fields"] = a->fields;
      out["piiVersion"] = after.pii_version;
    }
  }
  if (written != nullptr) {
    // The person as this write left it: what PersonWriteResponse shows (the names of the fields
    // that hold a value, never a value), so that a retry with the same Idempotency-Key is told
    // the first answer whatever was written to the person since (issue 67).
    core::Json fields = core::Json::array();
    for (const auto& [name, version] : after.fields) fields.push_back(name);
    out["written"] = {{"personId", written->aggregate_id},
                      {"environment", after.environment},
                      {"status", after.status},
                      {"piiVersion", after.pii_version},
                      {"createdAtMicros", after.created_micros},
                      {"updatedAtMicros", written->occurred_at.micros},
                      {"fields", std::move(fields)}};
  }
  if (out.empty()) return nullptr;
  return out;
}

}  // namespace svc::commands::persons
