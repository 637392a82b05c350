#include "pipeline/persons/person_writes.h"

#include "commands/claims/claim_decider.h"
#include "commands/persons/person_decider.h"
#include "core/crypto.h"
#include "pipeline/persons/pii.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/view_rows.h"

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
                             commands::CommandContext ctx, bool fresh = true) {
  // A new person's values are sealed for version 1 here, so the command is data: it can travel to
  // the writer of the person's partition on another node of a cluster.
  ps::CreatePerson cp;
  cp.created.application_id = application_id;
  cp.created.external_ref = external_ref;
  cp.created.metadata_sealed = p.metadata_sealed.value_or("");
  cp.created.pii = SealAll(p, who, write, 1);
  cp.created.source = write.source;
  commands::Command c = commands::MakeCommand<ps::PersonDecider>(who.tenant, who.person, ps::PersonCommand(std::move(cp)),
                                                                 std::move(ctx));
  c.fresh_id = fresh;
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
                              std::function<void(core::Result<commands::Command>)> done, bool fresh) {
  keys.GetOrCreateAsync(PersonKeyName(who.tenant, who.environment, who.person),
                        [&keys, who, application_id, external_ref, write, ctx = std::move(ctx),
                         done = std::move(done), fresh](core::Result<std::string> person_key) mutable {
                          if (!person_key.ok()) return done(person_key.status());
                          auto p = Prepare(keys, who, write, std::move(*person_key));
                          if (!p.ok()) return done(p.status());
                          done(CreateWith(std::move(*p), who, application_id, external_ref, write, std::move(ctx), fresh));
                        },
                        fresh);
}

core::Result<commands::Command> RevisePersonCommand(eventstore::KeyStore& keys, const PersonRef& who,
                                                    const PiiWrite& write,
                                                    commands::CommandContext ctx,
                                                    std::optional<int64_t> known_version) {
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
  if (known_version.has_value()) {
    // To travel (a cluster), the values are sealed now for the version after the one the read
    // model shows; the writer decides it only while the person is still at that version.
    ps::RevisePerson r;
    r.set = SealAll(p, who, write, static_cast<int>(*known_version + 1));
    r.cleared = write.cleared;
    r.metadata_sealed = p.metadata_sealed;
    r.source = write.source;
    r.arco_request_id = write.arco_request_id;
    r.expected_pii_version = *known_version;
    auto wire = std::make_shared<const core::Json>(commands::CommandCodec<ps::PersonCommand>::Encode(ps::PersonCommand(r)));
    c.encode = [wire] { return *wire; };
  }
  c.decide = [p = std::move(p), who, write](const std::any& state,
                                            const commands::CommandContext& context) -> core::Result<commands::Decision> {
    const auto& s = std::any_cast<const ps::PersonState&>(state);
    ps::RevisePerson r;
    r.set = SealAll(p, who, write, s.pii_version + 1);
    r.cleared = write.cleared;
    r.metadata_sealed = p.metadata_sealed;
    r.source = write.source;
    r.arco_request_id = write.arco_request_id;
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

namespace {
std::string ConsentEvidenceAad(const PersonRef& who, const std::string& consent_id) {
  return "consent-evidence|" + who.tenant + "|" + who.environment + "|" + who.person + "|" + consent_id;
}
}  // namespace

core::Result<commands::Command> GrantConsentCommand(eventstore::KeyStore& keys, const PersonRef& who,
                                                   commands::persons::ConsentGranted consent,
                                                   const core::Json* evidence, commands::CommandContext ctx) {
  if (evidence != nullptr) {
    SVC_ASSIGN_OR_RETURN(auto key, keys.Get(PersonKeyName(who.tenant, who.environment, who.person)));
    if (!key.has_value()) return core::FailedPrecondition("the person's data was erased", "PERSON_PURGED");
    consent.evidence_sealed =
        core::Base64Encode(core::AeadSeal(*key, core::DumpJson(*evidence), ConsentEvidenceAad(who, consent.consent_id)));
    core::SecureZero(*key);
  }
  return commands::MakeCommand<ps::PersonDecider>(who.tenant, who.person, ps::PersonCommand(ps::GrantConsent{consent}),
                                                  std::move(ctx));
}

core::Result<core::Json> ConsentsWithEvidence(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                              const PersonRef& who) {
  using PV = projections::PersonsView;
  const std::string te = projections::TenantEnv(who.tenant, who.environment);
  core::Json out = core::Json::array();
  std::optional<std::string> key;
  const std::string index = PV::Abs(PV::ConsentIndex(te, who.person));
  auto it = views.NewIterator(views.Cf(projections::kViewsCf), index, eventstore::PrefixEnd(index));
  for (it->Seek(index); it->Valid(); it->Next()) {
    const std::string consent_id(projections::SessionsView::IdOfOrder(it->key().substr(index.size())));
    SVC_ASSIGN_OR_RETURN(auto item, projections::ReadRow(views, PV::Abs(PV::Consent(te, who.person, consent_id))));
    if (!item.has_value()) continue;
    core::Json c = *item;
    c["evidence"] = nullptr;
    SVC_ASSIGN_OR_RETURN(auto sealed, views.Get(views.Cf(projections::kViewsCf),
                                                PV::Abs(PV::ConsentEvidence(te, who.person, consent_id))));
    if (sealed.has_value()) {
      if (!key.has_value()) {
        SVC_ASSIGN_OR_RETURN(key, keys.Get(PersonKeyName(who.tenant, who.environment, who.person)));
        if (!key.has_value()) return core::FailedPrecondition("the person's data was erased", "PERSON_PURGED");
      }
      SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(*sealed));
      SVC_ASSIGN_OR_RETURN(std::string plain, core::AeadOpen(*key, raw, ConsentEvidenceAad(who, consent_id)));
      c["evidence"] = core::ParseJsonOrDiscarded(plain);
      core::SecureZero(plain);
    }
    out.push_back(std::move(c));
  }
  SVC_RETURN_IF_ERROR(it->status());
  if (key.has_value()) core::SecureZero(*key);
  return out;
}

namespace {

namespace cl = commands::claims;

// One run of the person write use case (person_writes.h): the claims, in order, then the
// person's command; each step continues from the writer's answer to the one before.
class WriteRun : public std::enable_shared_from_this<WriteRun> {
 public:
  WriteRun(const PersonWriteDeps& deps, PersonWriteInput in, std::function<void(core::Result<PersonWriteResult>)> done)
      : deps_(deps), in_(std::move(in)), done_(std::move(done)) {}

  void Start() {
    if (auto curp = in_.write.values.find("curp"); curp != in_.write.values.end()) {
      auto index_key = IndexKey(*deps_.keys, in_.who.tenant, in_.who.environment);
      if (!index_key.ok()) return Finish(index_key.status());
      auto keys = BlindKeys(*index_key, "curp", curp->second);
      if (!keys.empty()) curp_key_ = keys[0];
    }
    target_ = in_.who.person;
    if (target_.empty()) {
      target_ = deps_.ids->NewIdString(core::IdKind::kPerson);
      create_ = true;
      minted_ = true;
    }
    if (!in_.ctx.idempotency_key.empty()) return Probe();
    Claims();
  }

 private:
  // A request with an Idempotency-Key asks first whether the key was answered (the writer looks
  // the key up before it decides anything; the probe itself decides nothing and appends nothing):
  // a retry is told the first answer without taking its claims again, which another request may
  // have taken since (the CURP the first request wrote may have moved on). Issue 67.
  void Probe() {
    auto cmd = commands::MakeCommand<commands::persons::PersonDecider>(
        in_.who.tenant, target_, commands::persons::PersonCommand(commands::persons::RevisePerson{}), in_.ctx);
    deps_.writer->Execute(std::move(cmd), [self = shared_from_this()](core::Result<commands::CommandOutcome> out) {
      if (out.ok() && out->replayed) {
        PersonWriteResult r;
        r.person_id = out->aggregate_id;
        r.created = out->aggregate_version == 1;
        r.outcome = std::move(*out);
        return self->Finish(std::move(r));
      }
      const std::string_view code = out.ok() ? std::string_view() : out.status().api_code();
      if (code == "IDEMPOTENCY_KEY_REUSED" || code == "IDEMPOTENCY_KEY_IN_PROGRESS") return self->Finish(out.status());
      // A probe that was not decided (its writer out of reach, the partition moving: 503, a
      // timeout) has not looked the key up: whether it was answered is unknown, and going on would
      // decide anew what may have been answered (found by tests/cluster/history.py: a retry on a
      // node whose probe got 503 answered CURP_CONFLICT after a first 200). The caller retries.
      if (!out.ok() && (out.status().code() == core::StatusCode::kUnavailable ||
                        out.status().code() == core::StatusCode::kDeadlineExceeded ||
                        out.status().code() == core::StatusCode::kCancelled)) {
        return self->Finish(out.status());
      }
      self->Claims();  // not answered yet (the probe's own refusal, PERSON_NOT_FOUND for a new person, says nothing)
    });
  }

  void Claims() {
    if (!create_) return TakeCurp();
    if (in_.external_ref.empty()) return TakeCurp();
    cl::TakeClaim take;
    take.holds = {std::string(cl::HoldsRule::kPersonExternalRef), in_.application_id, in_.external_ref};
    Take("external_ref", commands::persons::ExternalRefClaimId(in_.who.environment, in_.application_id, in_.external_ref),
         std::move(take), [self = shared_from_this()](const std::string& holder, bool taken) {
           if (!taken) {  // the upsert: the person that has the reference is revised
             self->target_ = holder;
             self->create_ = false;
             self->upsert_ = true;
           } else {
             self->required_.push_back({self->ext_claim_, "CONFLICT", ""});
           }
           self->TakeCurp();
         });
  }

  // Takes `claim_id` for target_ (with a key derived from the request's Idempotency-Key, so a
  // replay finds the original's holder); then `next(holder, taken)`.
  void Take(const char* kind, std::string claim_id, cl::TakeClaim take,
            std::function<void(const std::string&, bool)> next, bool keyed = true) {
    take.holder = target_;
    take.holder_type = std::string(commands::persons::kPersonAggregate);
    if (std::string_view(kind) == "external_ref") ext_claim_ = claim_id;
    commands::CommandContext ctx = in_.ctx;
    if (!keyed || ctx.idempotency_key.empty()) {
      ctx.idempotency_key.clear();
      ctx.request_fingerprint.clear();
    } else {
      ctx.idempotency_key += std::string("#claim:") + kind;
    }
    auto cmd = commands::MakeReadingCommand<cl::ClaimDecider>(in_.who.tenant, claim_id, cl::ClaimCommand(take), std::move(ctx));
    deps_.writer->Execute(
        std::move(cmd), [self = shared_from_this(), kind, claim_id, take, next = std::move(next)](
                            core::Result<commands::CommandOutcome> out) mutable {
          if (!out.ok()) return self->Finish(out.status());
          auto answer = cl::ReadTake(out->result);
          if (!answer.ok()) return self->Finish(answer.status());
          const std::string holder = answer->holder;
          const bool taken = answer->taken;
          if (out->replayed && taken) {
            // The original request took it for the person it made: take it again for that
            // person (a claim released since, when that request failed, is taken anew).
            if (self->target_ != holder) self->minted_ = false;
            self->target_ = holder;
            return self->Take(kind, claim_id, std::move(take), std::move(next), /*keyed=*/false);
          }
          if (taken && !answer->already_held) self->taken_.emplace_back(claim_id, take.holder);
          next(holder, taken);
        });
  }

  void TakeCurp() {
    if (curp_key_.empty()) return Write();
    const std::string claim_id = commands::persons::CurpClaimId(in_.who.environment, curp_key_);
    cl::TakeClaim take;
    take.holds = {std::string(cl::HoldsRule::kPersonCurp), curp_key_, ""};
    if (in_.curp_clash == CurpClash::kRefuse || (in_.curp_clash == CurpClash::kWriteHolder && !create_)) {
      take.conflict_code = "CURP_CONFLICT";
      take.conflict_member = "conflictingPersonId";
    }
    Take("curp", claim_id, std::move(take), [self = shared_from_this(), claim_id](const std::string& holder, bool taken) {
      if (taken) {
        self->required_.push_back({claim_id, "CURP_CONFLICT", "conflictingPersonId"});
      } else if (self->in_.curp_clash == CurpClash::kWriteHolder && self->create_) {
        self->target_ = holder;  // the CURP's holder gets the data
        self->create_ = false;
      } else {  // kLeaveOut: the rest is written
        self->in_.write.values.erase("curp");
      }
      self->Write();
    });
  }

  void Write() {
    const PersonRef who{in_.who.tenant, in_.who.environment, target_};
    auto run = [self = shared_from_this()](core::Result<commands::Command> cmd) {
      if (!cmd.ok() && self->WaitForHolder(cmd.status())) return;
      if (!cmd.ok()) return self->Finish(self->InProgress(cmd.status()));
      cl::RequireClaims(*cmd, self->required_);
      self->deps_.writer->Execute(std::move(*cmd), [self](core::Result<commands::CommandOutcome> out) {
        if (!out.ok() && self->WaitForHolder(out.status())) return;
        if (!out.ok()) return self->Finish(self->InProgress(out.status()));
        PersonWriteResult r;
        r.person_id = out->aggregate_id.empty() ? self->target_ : out->aggregate_id;
        r.created = self->create_ || (out->replayed && out->aggregate_version == 1);
        r.outcome = std::move(*out);
        self->Finish(std::move(r));
      });
    };
    if (create_) {
      return CreatePersonCommandAsync(*deps_.keys, who, in_.application_id, in_.external_ref, in_.write, in_.ctx, run,
                                      minted_);
    }
    // The version this node's read model shows, so that the revision can travel to the writer
    // of the person's partition on another node (a cluster).
    std::optional<int64_t> known;
    if (deps_.pii_version) known = deps_.pii_version(who);
    run(RevisePersonCommand(*deps_.keys, who, in_.write, in_.ctx, known));
  }

  // The upsert's person does not exist (yet): its create is in progress, or died after its claim
  // (then the claim is free once its time is out).
  bool BeingMade(const core::Status& st) const { return upsert_ && st.api_code() == "PERSON_NOT_FOUND"; }
  // The reference's holder is another request's person, still being made (its claim is taken,
  // its create not yet decided): the upsert is tried again a little later, for up to
  // kMaxWaitMs, so that the loser of two creates of one new externalRef updates the winner's
  // person where it used to answer 409 (issue 67). The winner's create follows its claims within
  // milliseconds; a holder that died after its claim is not waited out (its claim's time is 60 s).
  static constexpr int64_t kMaxWaitMs = 2000;
  bool WaitForHolder(const core::Status& st) {
    if (!BeingMade(st) || !deps_.after || waited_ms_ >= kMaxWaitMs) return false;
    const int64_t delay = std::min<int64_t>(int64_t{2} << std::min(waits_, 7), kMaxWaitMs - waited_ms_);
    ++waits_;
    waited_ms_ += delay;
    deps_.after(std::chrono::milliseconds(delay), [self = shared_from_this()] { self->Write(); });
    return true;
  }
  core::Status InProgress(core::Status st) const {
    if (!BeingMade(st)) return st;
    return core::AlreadyExists("a create with this externalRef is in progress; retry to update the person it makes",
                               "CONFLICT");
  }

  void Finish(core::Result<PersonWriteResult> r) {
    for (auto& [field, value] : in_.write.values) core::SecureZero(value);
    if (!r.ok()) {
      // The claims taken for a person that was not written are given back at once (else they
      // would wait out their time: a retry would find them held).
      for (const auto& [claim, holder] : taken_) {
        auto cmd = commands::MakeReadingCommand<cl::ClaimDecider>(in_.who.tenant, claim,
                                                                  cl::ClaimCommand(cl::ReleaseClaim{holder}), ReleaseContext());
        deps_.writer->Execute(std::move(cmd), [](core::Result<commands::CommandOutcome>) {});
      }
    }
    done_(std::move(r));
  }

  commands::CommandContext ReleaseContext() const {
    commands::CommandContext ctx = in_.ctx;
    ctx.idempotency_key.clear();
    ctx.request_fingerprint.clear();
    return ctx;
  }

  PersonWriteDeps deps_;
  PersonWriteInput in_;
  std::function<void(core::Result<PersonWriteResult>)> done_;
  std::string target_;
  bool create_ = false;
  bool minted_ = false;  // target_ was minted by this run (no key can exist under it)
  bool upsert_ = false;
  int waits_ = 0;          // waits for the reference's holder to be made
  int64_t waited_ms_ = 0;
  std::string curp_key_;
  std::string ext_claim_;
  std::vector<std::pair<std::string, std::string>> taken_;  // claim, holder: taken by this run
  std::vector<cl::RequiredClaim> required_;
};

}  // namespace

void WritePerson(const PersonWriteDeps& deps, PersonWriteInput input,
                 std::function<void(core::Result<PersonWriteResult>)> done) {
  std::make_shared<WriteRun>(deps, std::move(input), std::move(done))->Start();
}

}  // namespace svc::pipeline::persons
