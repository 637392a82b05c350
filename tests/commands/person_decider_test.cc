// The person aggregate, given / when / then (tests/support/decider_spec.h).
#include <doctest/doctest.h>

#include "commands/persons/person_decider.h"
#include "tests/support/decider_spec.h"

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::persons;
using svc::testing::Code;
using svc::testing::Data;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

SealedPii Sealed(std::string s, std::vector<std::string> index = {}) { return {std::move(s), std::move(index)}; }

CreatePerson Create() {
  CreatePerson c;
  c.created.application_id = "app_00000000000000000000000000000001";
  c.created.external_ref = "user-42";
  c.created.pii = {{"curp", Sealed("c2VhbGVkLWN1cnA=", {std::string(64, 'a')})},
                   {"fullName", Sealed("c2VhbGVkLW5hbWU=", {std::string(64, 'b'), std::string(64, 'c')})}};
  c.created.source = {"api", "", ""};
  return c;
}

DeciderSpec<PersonDecider> Created() {
  DeciderSpec<PersonDecider> spec;
  REQUIRE(spec.When(Create()).ok());
  return spec;
}

}  // namespace

TEST_CASE("person: created with its first revision; events hold sealed values and index keys only") {
  DeciderSpec<PersonDecider> spec;
  auto d = spec.When(Create());
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"persons.person_created"});
  core::Json data = Data(d->events[0]);
  CHECK(data["pii"]["curp"]["sealed"] == "c2VhbGVkLWN1cnA=");
  CHECK(data["pii"]["fullName"]["index"].size() == 2);
  CHECK(data["externalRef"] == "user-42");
  CHECK(data["metadataSealed"].is_null());
  CHECK(spec.state.status == "active");
  CHECK(spec.state.pii_version == 1);
  CHECK(spec.state.fields.size() == 2);
  CHECK(spec.state.fields.at("curp") == 1);
  CHECK(Code(spec.When(Create()).status()) == "CONFLICT");
  spec.CheckSnapshot();
}

TEST_CASE("person: a PII change is a new version with its provenance; metadata alone is not") {
  auto spec = Created();
  RevisePerson r;
  r.set = {{"email", Sealed("c2VhbGVkLWVtYWls", {std::string(64, 'd')})}};
  r.cleared = {"fullName", "phone"};  // phone holds nothing: not recorded
  r.source = {"verification", "vrf_00000000000000000000000000000001", "document_ocr"};
  auto d = spec.When(r);
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"persons.person_revised"});
  core::Json data = Data(d->events[0]);
  CHECK(data["piiVersion"] == 2);
  CHECK(data["cleared"] == core::Json::array({"fullName"}));
  CHECK(data["source"]["sessionId"] == "vrf_00000000000000000000000000000001");
  CHECK(spec.state.pii_version == 2);
  CHECK(spec.state.fields.count("fullName") == 0);
  CHECK(spec.state.fields.at("email") == 2);
  CHECK(spec.state.fields.at("curp") == 1);

  RevisePerson meta;
  meta.metadata_sealed = "bWV0YQ==";
  meta.source = {"api", "", ""};
  auto m = spec.When(meta);
  REQUIRE(m.ok());
  CHECK(Data(m->events[0])["piiVersion"] == 2);
  CHECK(Data(m->events[0])["metadataChanged"] == true);
  CHECK(spec.When(RevisePerson{}).value().events.empty());  // nothing to record
  spec.CheckSnapshot();
}

TEST_CASE("person: unknown, other-environment, unsealed or contradictory changes are refused") {
  DeciderSpec<PersonDecider> none;
  CHECK(Code(none.When(RevisePerson{}).status()) == "PERSON_NOT_FOUND");
  auto spec = Created();
  spec.ctx.environment = "live";
  CHECK(Code(spec.When(RevisePerson{}).status()) == "PERSON_NOT_FOUND");
  spec.ctx.environment = "test";
  RevisePerson bad;
  bad.set = {{"password", Sealed("eA==")}};
  CHECK(Code(spec.When(bad).status()) == "UNKNOWN_PII_FIELD");
  bad.set = {{"email", Sealed("")}};
  CHECK(Code(spec.When(bad).status()) == "VALIDATION_ERROR");
  bad.set = {{"email", Sealed("eA==")}};
  bad.cleared = {"email"};
  CHECK(Code(spec.When(bad).status()) == "VALIDATION_ERROR");
  CreatePerson unknown = Create();
  unknown.created.pii["password"] = Sealed("eA==");
  CHECK(Code(DeciderSpec<PersonDecider>().When(unknown).status()) == "UNKNOWN_PII_FIELD");
  CHECK(IsPiiFieldName("vigencia"));
  CHECK_FALSE(IsPiiFieldName("Curp"));
}

TEST_CASE("person: consents are recorded and revoked once; the first revocation stands") {
  auto spec = Created();
  ConsentGranted c;
  c.consent_id = "cns_00000000000000000000000000000001";
  c.purpose = "credit_assessment";
  c.mechanism = "autenticacion";
  c.policy_version = "2026-01";
  auto d = spec.When(PersonCommand(GrantConsent{c}));
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"persons.consent_granted"});
  CHECK(Code(spec.When(PersonCommand(GrantConsent{c})).status()) == "CONFLICT");  // the same id twice
  auto revoke = spec.When(PersonCommand(RevokeConsent{c.consent_id}));
  REQUIRE(revoke.ok());
  CHECK(Types(*revoke) == std::vector<std::string>{"persons.consent_revoked"});
  CHECK(revoke->result["revoked"] == true);
  auto again = spec.When(PersonCommand(RevokeConsent{c.consent_id}));
  REQUIRE(again.ok());
  CHECK(again->events.empty());
  CHECK(again->result["revoked"] == false);
  CHECK(Code(spec.When(PersonCommand(RevokeConsent{"cns_00000000000000000000000000000009"})).status()) ==
        "CONSENT_NOT_FOUND");
  spec.CheckSnapshot();
}

TEST_CASE("person: a new grant for an application replaces the one in force; revocation is idempotent") {
  auto spec = Created();
  GrantCreated g;
  g.grant_id = "grt_00000000000000000000000000000001";
  g.application_id = "app_00000000000000000000000000000002";
  g.allowed_fields = {"curp"};
  g.allowed_purposes = {"identity_verification"};
  g.default_redaction = "masked";
  auto first = spec.When(PersonCommand(CreateGrant{g}));
  REQUIRE(first.ok());
  CHECK(Data(first->events[0])["replaces"].is_null());
  GrantCreated other = g;
  other.grant_id = "grt_00000000000000000000000000000002";
  other.application_id = "app_00000000000000000000000000000003";
  REQUIRE(spec.When(PersonCommand(CreateGrant{other})).ok());  // another application: replaces nothing
  GrantCreated second = g;
  second.grant_id = "grt_00000000000000000000000000000003";
  auto replaced = spec.When(PersonCommand(CreateGrant{second}));
  REQUIRE(replaced.ok());
  CHECK(Data(replaced->events[0])["replaces"] == g.grant_id);
  CHECK(spec.state.grants.at(g.grant_id).revoked);
  CHECK_FALSE(spec.state.grants.at(other.grant_id).revoked);
  CHECK(spec.When(PersonCommand(RevokeGrant{g.grant_id}))->events.empty());  // already replaced
  CHECK(spec.When(PersonCommand(RevokeGrant{second.grant_id}))->events.size() == 1);
  CHECK(Code(spec.When(PersonCommand(RevokeGrant{"grt_00000000000000000000000000000009"})).status()) == "GRANT_NOT_FOUND");
  GrantCreated bad = g;
  bad.grant_id = "grt_00000000000000000000000000000004";
  bad.allowed_fields = {"shoeSize"};
  CHECK(Code(spec.When(PersonCommand(CreateGrant{bad})).status()) == "UNKNOWN_PII_FIELD");
  spec.CheckSnapshot();
  DeciderSpec<PersonDecider> nobody;
  CHECK(Code(nobody.When(PersonCommand(RevokeGrant{g.grant_id})).status()) == "PERSON_NOT_FOUND");
}

TEST_CASE("person: legal holds renew while in force, release whatever is in force, and apply in any state") {
  auto spec = Created();
  LegalHoldRecorded h{"lgh_00000000000000000000000000000001", "set", "", "oficio 1", "inquiry", 0};
  auto set = spec.When(PersonCommand(RecordLegalHold{h}));
  REQUIRE(set.ok());
  CHECK(Data(set->events[0])["action"] == "set");
  CHECK(spec.state.HoldInForce("", spec.ctx.now.micros));
  h.hold_id = "lgh_00000000000000000000000000000002";
  h.expires_micros = spec.ctx.now.micros + 1000;
  auto renew = spec.When(PersonCommand(RecordLegalHold{h}));
  REQUIRE(renew.ok());
  CHECK(Data(renew->events[0])["action"] == "renew");
  CHECK_FALSE(spec.state.HoldInForce("", spec.ctx.now.micros + 1000));  // until its time
  // Past its time a new hold is a new set, not a renewal.
  spec.ctx.now = core::Timestamp{spec.ctx.now.micros + 2000};
  h.hold_id = "lgh_00000000000000000000000000000003";
  h.expires_micros = 0;
  CHECK(Data(spec.When(PersonCommand(RecordLegalHold{h}))->events[0])["action"] == "set");
  // A capture's hold is its own.
  LegalHoldRecorded asset{"lgh_00000000000000000000000000000004", "set", "med_00000000000000000000000000000001", "b", "r", 0};
  REQUIRE(spec.When(PersonCommand(RecordLegalHold{asset})).ok());
  CHECK(spec.state.HoldInForce("med_00000000000000000000000000000001", spec.ctx.now.micros));
  LegalHoldRecorded release{"lgh_00000000000000000000000000000005", "release", "", "", "closed", 0};
  REQUIRE(spec.When(PersonCommand(RecordLegalHold{release})).ok());
  CHECK_FALSE(spec.state.HoldInForce("", spec.ctx.now.micros));
  CHECK(spec.state.HoldInForce("med_00000000000000000000000000000001", spec.ctx.now.micros));
  release.hold_id = "lgh_00000000000000000000000000000006";
  CHECK(spec.When(PersonCommand(RecordLegalHold{release}))->events.size() == 1);  // recorded anyway
  LegalHoldRecorded odd = release;
  odd.action = "suspend";
  CHECK(Code(spec.When(PersonCommand(RecordLegalHold{odd})).status()) == "VALIDATION_ERROR");
  spec.CheckSnapshot();
}

TEST_CASE("person: forget blocks at once, purges when due and not held, then records the keys' destruction") {
  auto spec = Created();
  const int64_t day = 86'400'000'000;
  CHECK(Code(spec.When(PersonCommand(RequestForget{"erase", "", day})).status()) == "MODE_INVALID");
  // Nothing is due yet: the purger's command is refused, and so is the confirmation.
  CHECK(Code(spec.When(PersonCommand(PurgePerson{})).status()) == "INVALID_STATE_TRANSITION");
  CHECK(Code(spec.When(PersonCommand(ConfirmKeysDestroyed{})).status()) == "INVALID_STATE_TRANSITION");
  auto block = spec.When(PersonCommand(RequestForget{"block", "ARCO 1", 30 * day}));
  REQUIRE(block.ok());
  CHECK(Types(*block) == std::vector<std::string>{"persons.forget_requested"});
  CHECK(block->result["purgeDueMicros"] == spec.ctx.now.micros + 30 * day);
  // A second block does not push the purge later; a purge brings it to now.
  auto again = spec.When(PersonCommand(RequestForget{"block", "", 60 * day}));
  REQUIRE(again.ok());
  CHECK(again->events.empty());
  CHECK(again->result["purgeDueMicros"] == spec.ctx.now.micros + 30 * day);
  // Out of reach: no writes, consents or grants while the forget is pending.
  CHECK(Code(spec.When(PersonCommand(RevisePerson{{{"email", Sealed("c2VhbGVk")}}, {}, std::nullopt, {"api", "", ""}, std::nullopt}))
                 .status()) == "PERSON_FORGET_PENDING");
  CHECK(Code(spec.When(PersonCommand(PurgePerson{})).status()) == "INVALID_STATE_TRANSITION");
  // A hold in force freezes the purge, and a new forget.
  LegalHoldRecorded h{"lgh_00000000000000000000000000000001", "set", "", "oficio 1", "inquiry", 0};
  REQUIRE(spec.When(PersonCommand(RecordLegalHold{h})).ok());
  CHECK(Code(spec.When(PersonCommand(RequestForget{"purge", "", 0})).status()) == "PERSON_LEGAL_HOLD");
  spec.ctx.now = core::Timestamp{spec.ctx.now.micros + 31 * day};
  CHECK(Code(spec.When(PersonCommand(PurgePerson{})).status()) == "PERSON_LEGAL_HOLD");
  LegalHoldRecorded release{"lgh_00000000000000000000000000000002", "release", "", "", "closed", 0};
  REQUIRE(spec.When(PersonCommand(RecordLegalHold{release})).ok());
  auto purged = spec.When(PersonCommand(PurgePerson{{"vrf_00000000000000000000000000000001"}}));
  REQUIRE(purged.ok());
  CHECK(Types(*purged) == std::vector<std::string>{"persons.person_purged"});
  CHECK(Data(purged->events[0])["sessionIds"][0] == "vrf_00000000000000000000000000000001");
  CHECK(spec.state.status == "redacted");
  CHECK(spec.When(PersonCommand(PurgePerson{}))->events.empty());  // once
  CHECK(Code(spec.When(PersonCommand(RequestForget{"purge", "", 0})).status()) == "PERSON_PURGED");
  auto keys = spec.When(PersonCommand(ConfirmKeysDestroyed{{"person/t/test/p"}}));
  REQUIRE(keys.ok());
  CHECK(Types(*keys) == std::vector<std::string>{"persons.keys_destroyed"});
  CHECK(spec.When(PersonCommand(ConfirmKeysDestroyed{{"person/t/test/p"}}))->events.empty());
  spec.CheckSnapshot();
}

TEST_CASE("person: forget with mode purge is due at once") {
  auto spec = Created();
  auto purge = spec.When(PersonCommand(RequestForget{"purge", "", 86'400'000'000}));
  REQUIRE(purge.ok());
  CHECK(purge->result["purgeDueMicros"] == spec.ctx.now.micros);
  CHECK(spec.When(PersonCommand(PurgePerson{}))->events.size() == 1);
  DeciderSpec<PersonDecider> nobody;
  CHECK(Code(nobody.When(PersonCommand(RequestForget{"purge", "", 0})).status()) == "PERSON_NOT_FOUND");
}

TEST_CASE("person: consolidation steps are each decided once, on the survivor and on the source") {
  auto survivor = Created();
  auto source = Created();
  const std::string cid = "csl_00000000000000000000000000000001";
  ConsolidationRequested q{cid, {"per_00000000000000000000000000000002"}, {{"email", "per_00000000000000000000000000000002"}}};
  auto requested = survivor.When(PersonCommand(RequestConsolidation{q}));
  REQUIRE(requested.ok());
  CHECK(requested->result["consolidationId"] == cid);
  CHECK(Code(survivor.When(PersonCommand(RequestConsolidation{q})).status()) == "CONFLICT");
  // While it absorbs others, the survivor can be neither forgotten nor merged itself.
  CHECK(Code(survivor.When(PersonCommand(RequestForget{"purge", "", 0})).status()) == "INVALID_STATE_TRANSITION");
  CHECK(Code(survivor.When(PersonCommand(StartMerge{"csl_00000000000000000000000000000009", "per_x"})).status()) ==
        "INVALID_STATE_TRANSITION");

  // The source: frozen once; writes and forget refused; merged once.
  auto started = source.When(PersonCommand(StartMerge{cid, "per_00000000000000000000000000000001"}));
  REQUIRE(started.ok());
  CHECK(Types(*started) == std::vector<std::string>{"persons.merge_started"});
  CHECK(source.When(PersonCommand(StartMerge{cid, "per_00000000000000000000000000000001"}))->events.empty());
  CHECK(Code(source.When(PersonCommand(StartMerge{"csl_00000000000000000000000000000002", "per_y"})).status()) ==
        "PERSON_ALREADY_MERGED");
  CHECK(Code(source.When(PersonCommand(RequestForget{"purge", "", 0})).status()) == "PERSON_ALREADY_MERGED");
  CHECK(Code(source.When(PersonCommand(CompleteMerge{"csl_00000000000000000000000000000002", "per_y"})).status()) ==
        "INVALID_STATE_TRANSITION");

  // The survivor absorbs: a revision and the record, in one decision; a second decides nothing.
  RevisePerson absorb;
  absorb.set = {{"email", Sealed("c2VhbGVkLWVtYWls", {std::string(64, 'e')})}};
  absorb.source = {"consolidation", "", "per_00000000000000000000000000000002"};
  absorb.absorbing = RevisePerson::Absorbing{cid, "per_00000000000000000000000000000002", ""};
  auto absorbed = survivor.When(PersonCommand(absorb));
  REQUIRE(absorbed.ok());
  CHECK(Types(*absorbed) == std::vector<std::string>{"persons.person_revised", "persons.source_absorbed"});
  CHECK(Data(absorbed->events[1])["fields"] == core::Json::array({"email"}));
  CHECK(survivor.state.pii_version == 2);
  CHECK(survivor.When(PersonCommand(absorb))->events.empty());
  CHECK(survivor.state.pii_version == 2);

  auto merged = source.When(PersonCommand(CompleteMerge{cid, "per_00000000000000000000000000000001"}));
  REQUIRE(merged.ok());
  CHECK(Types(*merged) == std::vector<std::string>{"persons.merged"});
  CHECK(source.state.status == "merged");
  CHECK(source.When(PersonCommand(CompleteMerge{cid, "per_00000000000000000000000000000001"}))->events.empty());
  CHECK(source.When(PersonCommand(StartMerge{cid, "per_00000000000000000000000000000001"}))->events.empty());

  CHECK(survivor.When(PersonCommand(CompleteConsolidation{cid}))->events.size() == 1);
  CHECK(survivor.When(PersonCommand(CompleteConsolidation{cid}))->events.empty());
  CHECK(survivor.state.consolidating.empty());
  survivor.CheckSnapshot();
  source.CheckSnapshot();
  // A survivor that is not active cannot take a consolidation.
  CHECK(Code(source.When(PersonCommand(RequestConsolidation{q})).status()) == "SURVIVOR_NOT_ACTIVE");
}

TEST_CASE("person: a source that can no longer be merged is recorded as failed, without a revision") {
  auto survivor = Created();
  const std::string cid = "csl_00000000000000000000000000000001";
  REQUIRE(survivor.When(PersonCommand(RequestConsolidation{{cid, {"per_00000000000000000000000000000002"}, {}}})).ok());
  RevisePerson failed;
  failed.absorbing = RevisePerson::Absorbing{cid, "per_00000000000000000000000000000002", "PERSON_PURGED"};
  auto d = survivor.When(PersonCommand(failed));
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"persons.source_absorbed"});
  CHECK(Data(d->events[0])["error"] == "PERSON_PURGED");
  CHECK(survivor.state.pii_version == 1);
  failed.absorbing->consolidation_id = "csl_00000000000000000000000000000005";
  CHECK(Code(survivor.When(PersonCommand(failed)).status()) == "INVALID_STATE_TRANSITION");
}

TEST_CASE("person: a consolidation reads its sources in the write model, each must still hold its data") {
  auto survivor = Created();
  std::map<std::string, std::any> others;
  const PersonState nobody;
  std::vector<std::unique_ptr<std::any>> keep;  // the initial states the reader hands out
  StateReader read = [&](std::string_view, std::string_view id) -> core::Result<AggregateView> {
    auto it = others.find(std::string(id));
    if (it != others.end()) return AggregateView{&it->second, 1};
    keep.push_back(std::make_unique<std::any>(nobody));
    return AggregateView{keep.back().get(), 0};
  };
  auto source = [](auto change) {
    PersonState s = Created().state;
    change(s);
    return std::any(s);
  };
  const std::string src = "per_00000000000000000000000000000002";
  auto decide = [&](const std::string& id) {
    ConsolidationRequested q{"csl_00000000000000000000000000000001", {id}, {}};
    return PersonDecider::Decide(survivor.state, PersonCommand(RequestConsolidation{q}), read, survivor.ctx);
  };
  CHECK(Code(decide(src).status()) == "PERSON_NOT_FOUND");  // never existed
  others[src] = source([](PersonState& s) { s.environment = "live"; });
  CHECK(Code(decide(src).status()) == "PERSON_NOT_FOUND");  // another environment's
  others[src] = source([](PersonState& s) { s.merge_consolidation = "csl_00000000000000000000000000000009"; });
  CHECK(Code(decide(src).status()) == "PERSON_ALREADY_MERGED");
  others[src] = source([](PersonState& s) { s.status = "merged"; });
  CHECK(Code(decide(src).status()) == "PERSON_ALREADY_MERGED");
  others[src] = source([](PersonState& s) { s.status = "redacted"; });
  CHECK(Code(decide(src).status()) == "PERSON_PURGED");
  others[src] = source([](PersonState& s) { s.forget_mode = "block"; });
  CHECK(Code(decide(src).status()) == "PERSON_FORGET_PENDING");
  others[src] = source([](PersonState&) {});
  auto ok = decide(src);
  REQUIRE(ok.ok());
  CHECK(Types(*ok) == std::vector<std::string>{"persons.consolidation_requested"});
}
