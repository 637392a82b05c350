#include "pipeline/persons/person_writes.h"

#include "commands/persons/person_decider.h"
#include "core/crypto.h"
#include "pipeline/persons/pii.h"
#include "pipeline/persons/vault_keys.h"

namespace svc::pipeline::persons {

namespace ps = commands::persons;

namespace {

struct Prepared {
  std::string person_key;
  std::map<std::string, std::vector<std::string>> index;  // blind keys per field
  std::optional<std::string> metadata_sealed;
};

core::Result<Prepared> Prepare(eventstore::KeyStore& keys, const PersonRef& who, const PiiWrite& w,
                               std::string person_key) {
  Prepared p;
  p.person_key = std::move(person_key);
  std::string index_key;
  for (const auto& [field, value] : w.values) {
    const PiiField* f = FindPiiField(field);
    if (f == nullptr) return core::InvalidArgument("unknown PII field " + field, "UNKNOWN_PII_FIELD");
    if (f->index == PiiIndex::kNone) continue;
    if (index_key.empty()) {
      SVC_ASSIGN_OR_RETURN(index_key, IndexKey(keys, who.tenant, who.environment));
    }
    p.index[field] = BlindKeys(index_key, field, value);
  }
  if (w.metadata.has_value()) {
    const core::Json& m = *w.metadata;
    p.metadata_sealed = (m.is_null() || m.empty()) ? std::string() : SealMetadata(p.person_key, who, m);
  }
  return p;
}

std::map<std::string, ps::SealedPii> SealAll(const Prepared& p, const PersonRef& who,
                                             const PiiWrite& w, int version) {
  std::map<std::string, ps::SealedPii> out;
  for (const auto& [field, value] : w.values) {
    ps::SealedPii s;
    s.sealed = SealPii(p.person_key, who.tenant, who.environment, who.person, field, version, value);
    if (auto it = p.index.find(field); it != p.index.end()) s.index = it->second;
    out[field] = std::move(s);
  }
  return out;
}

}  // namespace

std::vector<std::string> BlindKeys(std::string_view index_key, std::string_view field,
                                   std::string_view normalised) {
  std::vector<std::string> out;
  const PiiField* f = FindPiiField(field);
  if (f == nullptr || f->index == PiiIndex::kNone) return out;
  for (const auto& term : IndexTerms(field, normalised)) {
    std::string k = BlindIndex(index_key, IndexName(f->index), term);
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(std::move(k));
  }
  return out;
}

std::string MetadataAad(const PersonRef& who) {
  return "person-metadata|" + who.tenant + "|" + who.environment + "|" + who.person;
}

std::string SealMetadata(std::string_view person_key, const PersonRef& who, const core::Json& metadata) {
  return core::Base64Encode(core::AeadSeal(person_key, core::DumpJson(metadata), MetadataAad(who)));
}

core::Result<core::Json> OpenMetadata(std::string_view person_key, const PersonRef& who,
                                      std::string_view sealed) {
  auto raw = core::Base64Decode(sealed);
  if (!raw.ok()) return core::DataLoss("sealed metadata is not base64");
  auto text = core::AeadOpen(person_key, *raw, MetadataAad(who));
  if (!text.ok()) return core::DataLoss("sealed metadata does not open");
  return core::ParseJsonOrDiscarded(*text);
}

namespace {

commands::Command CreateWith(Prepared p, const PersonRef& who, const std::string& application_id,
                             const std::string& external_ref, const PiiWrite& write,
                             commands::CommandContext ctx) {
  commands::Command c;
  c.tenant_id = who.tenant;
  c.aggregate_type = std::string(ps::kPersonAggregate);
  c.aggregate_id = who.person;
  c.fresh_id = true;
  c.context = std::move(ctx);
  c.decide = [p = std::move(p), who, application_id, external_ref, write](
                 const std::any& state, const commands::CommandContext& context) -> core::Result<commands::Decision> {
    ps::CreatePerson cp;
    cp.created.application_id = application_id;
    cp.created.external_ref = external_ref;
    cp.created.metadata_sealed = p.metadata_sealed.value_or("");
    cp.created.pii = SealAll(p, who, write, 1);
    cp.created.source = write.source;
    return ps::PersonDecider::Decide(std::any_cast<const ps::PersonState&>(state), ps::PersonCommand(cp), context);
  };
  return c;
}

}  // namespace

core::Result<commands::Command> CreatePersonCommand(eventstore::KeyStore& keys, const PersonRef& who,
                                                    const std::string& application_id,
                                                    const std::string& external_ref,
                                                    const PiiWrite& write,
                                                    commands::CommandContext ctx) {
  SVC_ASSIGN_OR_RETURN(std::string person_key, keys.GetOrCreate(PersonKeyName(who.tenant, who.environment, who.person)));
  SVC_ASSIGN_OR_RETURN(Prepared p, Prepare(keys, who, write, std::move(person_key)));
  return CreateWith(std::move(p), who, application_id, external_ref, write, std::move(ctx));
}

void CreatePersonCommandAsync(eventstore::KeyStore& keys, const PersonRef& who, const std::string& application_id,
                              const std::string& external_ref, const PiiWrite& write, commands::CommandContext ctx,
                              std::function<void(core::Result<commands::Command>)> done) {
  keys.GetOrCreateAsync(PersonKeyName(who.tenant, who.environment, who.person),
                        [&keys, who, application_id, external_ref, write, ctx = std::move(ctx),
                         done = std::move(done)](core::Result<std::string> person_key) mutable {
                          if (!person_key.ok()) return done(person_key.status());
                          auto p = Prepare(keys, who, write, std::move(*person_key));
                          if (!p.ok()) return done(p.status());
                          done(CreateWith(std::move(*p), who, application_id, external_ref, write, std::move(ctx)));
                        },
                        /*fresh=*/true);
}

core::Result<commands::Command> RevisePersonCommand(eventstore::KeyStore& keys, const PersonRef& who,
                                                    const PiiWrite& write,
                                                    commands::CommandContext ctx) {
  // A person that does not exist has no key to create: the decider answers PERSON_NOT_FOUND
  // before anything is sealed, and GetOrCreate below would leave a key behind; check first.
  SVC_ASSIGN_OR_RETURN(auto existing, keys.Get(PersonKeyName(who.tenant, who.environment, who.person)));
  if (!existing.has_value()) return core::NotFound("no such person", "PERSON_NOT_FOUND");
  SVC_ASSIGN_OR_RETURN(Prepared p, Prepare(keys, who, write, std::move(*existing)));
  commands::Command c;
  c.tenant_id = who.tenant;
  c.aggregate_type = std::string(ps::kPersonAggregate);
  c.aggregate_id = who.person;
  c.context = std::move(ctx);
  c.decide = [p = std::move(p), who, write](const std::any& state,
                                            const commands::CommandContext& context) -> core::Result<commands::Decision> {
    const auto& s = std::any_cast<const ps::PersonState&>(state);
    ps::RevisePerson r;
    r.set = SealAll(p, who, write, s.pii_version + 1);
    r.cleared = write.cleared;
    r.metadata_sealed = p.metadata_sealed;
    r.source = write.source;
    return ps::PersonDecider::Decide(s, ps::PersonCommand(r), context);
  };
  return c;
}

core::Result<commands::Command> AbsorbSourceCommand(eventstore::KeyStore& keys, const PersonRef& who,
                                                    const std::string& consolidation_id,
                                                    const std::string& source_id,
                                                    const std::map<std::string, std::string>& source_values,
                                                    const std::map<std::string, std::string>& resolutions,
                                                    commands::CommandContext ctx) {
  SVC_ASSIGN_OR_RETURN(auto existing, keys.Get(PersonKeyName(who.tenant, who.environment, who.person)));
  if (!existing.has_value()) return core::NotFound("no such person", "PERSON_NOT_FOUND");
  PiiWrite all;
  all.values = source_values;
  SVC_ASSIGN_OR_RETURN(Prepared p, Prepare(keys, who, all, std::move(*existing)));
  commands::Command c;
  c.tenant_id = who.tenant;
  c.aggregate_type = std::string(ps::kPersonAggregate);
  c.aggregate_id = who.person;
  c.context = std::move(ctx);
  c.decide = [p = std::move(p), who, all = std::move(all), consolidation_id, source_id, resolutions](
                 const std::any& state, const commands::CommandContext& context) -> core::Result<commands::Decision> {
    const auto& s = std::any_cast<const ps::PersonState&>(state);
    PiiWrite taken;
    for (const auto& [field, value] : all.values) {
      auto r = resolutions.find(field);
      if (r != resolutions.end() ? r->second == source_id : s.fields.count(field) == 0) taken.values[field] = value;
    }
    ps::RevisePerson rv;
    rv.set = SealAll(p, who, taken, s.pii_version + 1);
    for (auto& [field, value] : taken.values) core::SecureZero(value);
    rv.source = {"consolidation", "", source_id};
    rv.absorbing = ps::RevisePerson::Absorbing{consolidation_id, source_id, ""};
    return ps::PersonDecider::Decide(s, ps::PersonCommand(rv), context);
  };
  return c;
}

}  // namespace svc::pipeline::persons
