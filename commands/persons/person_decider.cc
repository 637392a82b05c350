#include "commands/persons/person_decider.h"

#include "commands/event_codec.h"

#include <algorithm>

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
                                             const CommandContext& ctx) {
  Decision d;
  if (const auto* c = std::get_if<CreatePerson>(&command)) {
    if (s.exists) return core::AlreadyExists("the person exists", "CONFLICT");
    SVC_RETURN_IF_ERROR(CheckFieldNames(c->created.pii, {}));
    d.events.push_back(Make(c->created));
    return d;
  }
  const auto& r = std::get<RevisePerson>(command);
  if (!s.exists || s.environment != ctx.environment) {
    return core::NotFound("no such person", "PERSON_NOT_FOUND");
  }
  if (s.status == "redacted") return core::FailedPrecondition("the person was erased", "PERSON_PURGED");
  if (s.status == "merged") {
    return core::FailedPrecondition("the person was merged into another", "PERSON_ALREADY_MERGED");
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
    return;
  }
  const auto& r = std::get<PersonRevised>(event);
  s.pii_version = r.pii_version;
  for (const auto& [name, value] : r.set) s.fields[name] = r.pii_version;
  for (const auto& name : r.cleared) s.fields.erase(name);
}

core::Status PersonDecider::Evolve(PersonState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(PersonEvent event, Decode(e));
  EvolveDecoded(s, event, e.occurred_at, e.environment);
  return core::Status::Ok();
}

core::Json PersonDecider::ToJson(const PersonState& s) { return core::EncodeFields(s); }

core::Result<PersonState> PersonDecider::FromJson(std::string_view text) {
  return DecodeSnapshot<PersonState>(text, "person");
}

}  // namespace svc::commands::persons
