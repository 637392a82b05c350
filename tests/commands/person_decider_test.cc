// The person aggregate, given / when / then (tests/support/decider_spec.h).
#include <doctest/doctest.h>

#include "commands/persons/arco_request.h"
#include "commands/persons/person_decider.h"
#include "tests/support/decider_spec.h"

namespace commands_person_decider_test {

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
  LegalHoldRecorded h{"lgh_00000000000000000000000000000001", "set", "", "oficio 1", "inquiry", 0, "", ""};
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
  LegalHoldRecorded asset{"lgh_00000000000000000000000000000004", "set", "med_00000000000000000000000000000001", "b", "r", 0, "", ""};
  REQUIRE(spec.When(PersonCommand(RecordLegalHold{asset})).ok());
  CHECK(spec.state.HoldInForce("med_00000000000000000000000000000001", spec.ctx.now.micros));
  LegalHoldRecorded release{"lgh_00000000000000000000000000000005", "release", "", "", "closed", 0, "", ""};
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
  CHECK(Code(spec.When(PersonCommand(RequestForget{"erase", "", day, ""})).status()) == "MODE_INVALID");
  // Nothing is due yet: the purger's command is refused, and so is the confirmation.
  CHECK(Code(spec.When(PersonCommand(PurgePerson{})).status()) == "INVALID_STATE_TRANSITION");
  CHECK(Code(spec.When(PersonCommand(ConfirmKeysDestroyed{})).status()) == "INVALID_STATE_TRANSITION");
  auto block = spec.When(PersonCommand(RequestForget{"block", "ARCO 1", 30 * day, ""}));
  REQUIRE(block.ok());
  CHECK(Types(*block) == std::vector<std::string>{"persons.forget_requested"});
  CHECK(block->result["purgeDueMicros"] == spec.ctx.now.micros + 30 * day);
  // A second block does not push the purge later; a purge brings it to now.
  auto again = spec.When(PersonCommand(RequestForget{"block", "", 60 * day, ""}));
  REQUIRE(again.ok());
  CHECK(again->events.empty());
  CHECK(again->result["purgeDueMicros"] == spec.ctx.now.micros + 30 * day);
  // Out of reach: no writes, consents or grants while the forget is pending.
  CHECK(Code(spec.When(PersonCommand(RevisePerson{{{"email", Sealed("c2VhbGVk")}}, {}, std::nullopt, {"api", "", ""}, std::nullopt, 0, ""}))
                 .status()) == "PERSON_FORGET_PENDING");
  CHECK(Code(spec.When(PersonCommand(PurgePerson{})).status()) == "INVALID_STATE_TRANSITION");
  // A hold in force freezes the purge, and a new forget.
  LegalHoldRecorded h{"lgh_00000000000000000000000000000001", "set", "", "oficio 1", "inquiry", 0, "", ""};
  REQUIRE(spec.When(PersonCommand(RecordLegalHold{h})).ok());
  CHECK(Code(spec.When(PersonCommand(RequestForget{"purge", "", 0, ""})).status()) == "PERSON_LEGAL_HOLD");
  spec.ctx.now = core::Timestamp{spec.ctx.now.micros + 31 * day};
  CHECK(Code(spec.When(PersonCommand(PurgePerson{})).status()) == "PERSON_LEGAL_HOLD");
  LegalHoldRecorded release{"lgh_00000000000000000000000000000002", "release", "", "", "closed", 0, "", ""};
  REQUIRE(spec.When(PersonCommand(RecordLegalHold{release})).ok());
  auto purged = spec.When(PersonCommand(PurgePerson{{"vrf_00000000000000000000000000000001"}}));
  REQUIRE(purged.ok());
  CHECK(Types(*purged) == std::vector<std::string>{"persons.person_purged"});
  CHECK(Data(purged->events[0])["sessionIds"][0] == "vrf_00000000000000000000000000000001");
  CHECK(spec.state.status == "redacted");
  CHECK(spec.When(PersonCommand(PurgePerson{}))->events.empty());  // once
  CHECK(Code(spec.When(PersonCommand(RequestForget{"purge", "", 0, ""})).status()) == "PERSON_PURGED");
  auto keys = spec.When(PersonCommand(ConfirmKeysDestroyed{{"person/t/test/p"}}));
  REQUIRE(keys.ok());
  CHECK(Types(*keys) == std::vector<std::string>{"persons.keys_destroyed"});
  CHECK(spec.When(PersonCommand(ConfirmKeysDestroyed{{"person/t/test/p"}}))->events.empty());
  spec.CheckSnapshot();
}

TEST_CASE("person: forget with mode purge is due at once") {
  auto spec = Created();
  auto purge = spec.When(PersonCommand(RequestForget{"purge", "", 86'400'000'000, ""}));
  REQUIRE(purge.ok());
  CHECK(purge->result["purgeDueMicros"] == spec.ctx.now.micros);
  CHECK(spec.When(PersonCommand(PurgePerson{}))->events.size() == 1);
  DeciderSpec<PersonDecider> nobody;
  CHECK(Code(nobody.When(PersonCommand(RequestForget{"purge", "", 0, ""})).status()) == "PERSON_NOT_FOUND");
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
  CHECK(Code(survivor.When(PersonCommand(RequestForget{"purge", "", 0, ""})).status()) == "INVALID_STATE_TRANSITION");
  CHECK(Code(survivor.When(PersonCommand(StartMerge{"csl_00000000000000000000000000000009", "per_x"})).status()) ==
        "INVALID_STATE_TRANSITION");

  // The source: frozen once; writes and forget refused; merged once.
  auto started = source.When(PersonCommand(StartMerge{cid, "per_00000000000000000000000000000001"}));
  REQUIRE(started.ok());
  CHECK(Types(*started) == std::vector<std::string>{"persons.merge_started"});
  CHECK(source.When(PersonCommand(StartMerge{cid, "per_00000000000000000000000000000001"}))->events.empty());
  CHECK(Code(source.When(PersonCommand(StartMerge{"csl_00000000000000000000000000000002", "per_y"})).status()) ==
        "PERSON_ALREADY_MERGED");
  CHECK(Code(source.When(PersonCommand(RequestForget{"purge", "", 0, ""})).status()) == "PERSON_ALREADY_MERGED");
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

// ---- ARCO requests (commands/persons/arco_request.h) -----------------------------------------

namespace ps = svc::commands::persons;

namespace {

using svc::commands::persons::ArcoDecider;

// 2026-11-13 (a Friday) 10:00 Mexico City = 16:00 UTC.
constexpr int64_t kFri13 = 1794585600LL * 1000000;
constexpr int64_t kDay = 86'400'000'000;

ps::OpenArcoRequest ArcoOpen(const std::string& right = "access") {
  ps::OpenArcoRequest o;
  o.request.subject_type = "person";
  o.request.person_id = "per_00000000000000000000000000000001";
  o.request.right = right;
  o.request.requester = "subject";
  o.request.identity_method = "verification_session";
  o.request.identity_reference = "vrf_00000000000000000000000000000009";
  if (right == "opposition") o.request.purposes = {"credit_assessment"};
  return o;
}

ps::ArcoRecord RecordAfter(const svc::testing::DeciderSpec<ArcoDecider>& spec) { return spec.state.record; }

std::string Date(int64_t micros) { return svc::core::FormatRfc3339(svc::core::Timestamp{micros}).substr(0, 10); }

}  // namespace

TEST_CASE("arco decider: deadlines on Mexico's business days, across a weekend and a rest day") {
  svc::testing::DeciderSpec<ArcoDecider> spec;
  spec.ctx.now = svc::core::Timestamp{kFri13};
  auto d = spec.When(ArcoOpen());
  REQUIRE_MESSAGE(d.ok(), d.status().ToString());
  CHECK(svc::testing::Types(*d) == std::vector<std::string>{"arco.request_received"});
  ps::ArcoRecord r = RecordAfter(spec);
  CHECK(r.status == "received");
  CHECK(r.submitted_micros == kFri13);
  // 20 business days from Friday 13 November: Monday 16 is a rest day (the third Monday of
  // November), so the first day is Tuesday 17 and the last Monday 14 December, at the end of the
  // day in Mexico City (05:59:59.999 UTC on the 15th).
  CHECK(svc::core::FormatRfc3339(svc::core::Timestamp{r.response_due_micros}) == "2026-12-15T05:59:59.999Z");
  CHECK(Date(r.ask_information_by_micros) == "2026-11-24");  // 5 business days: 17…23 November, then the 23rd's end
  spec.CheckSnapshot();

  // Extended once: 40 business days from receipt (Christmas Day and New Year's Day are rest days).
  REQUIRE(spec.When(ps::ExtendArcoDeadline{}).ok());
  CHECK(Date(RecordAfter(spec).response_due_micros) == "2027-01-14");
  CHECK(svc::testing::Code(spec.When(ps::ExtendArcoDeadline{}).status()) == "ARCO_INVALID_TRANSITION");
  // Accepted on 1 December: made effective within 15 business days (to 22 December). (Dates below
  // are UTC: a Mexico City day ends at 05:59:59.999 UTC of the next.)
  spec.ctx.now = svc::core::Timestamp{kFri13 + 18 * kDay};
  REQUIRE(spec.When(ps::AcceptArcoRequest{}).ok());
  r = RecordAfter(spec);
  CHECK(r.status == "accepted");
  CHECK(svc::core::FormatRfc3339(svc::core::Timestamp{r.effect_due_micros}) == "2026-12-23T05:59:59.999Z");
  // An operator's extra day off moves the term.
  svc::testing::DeciderSpec<ArcoDecider> closed;
  closed.ctx.now = svc::core::Timestamp{kFri13};
  auto with_day_off = ArcoOpen();
  with_day_off.calendar.days_off = {"2026-11-17"};
  REQUIRE(closed.When(with_day_off).ok());
  CHECK(Date(closed.state.record.response_due_micros) == "2026-12-16");
}

TEST_CASE("arco decider: a request of the other environment does not exist for the caller (issue 68)") {
  // Before: a test key accepted, denied or withdrew a live request (and the reverse).
  using svc::testing::Code;
  svc::testing::DeciderSpec<ArcoDecider> spec;
  spec.ctx.now = svc::core::Timestamp{kFri13};
  spec.ctx.environment = "live";
  REQUIRE(spec.When(ArcoOpen()).ok());
  CHECK(spec.state.environment == "live");
  spec.ctx.environment = "test";
  for (const ps::ArcoCommand& move :
       {ps::ArcoCommand(ps::AcceptArcoRequest{}), ps::ArcoCommand(ps::WithdrawArcoRequest{}),
        ps::ArcoCommand(ps::DenyArcoRequest{"identity_not_accredited"}), ps::ArcoCommand(ps::ExtendArcoDeadline{}),
        ps::ArcoCommand(ps::RequestArcoInformation{}),
        ps::ArcoCommand(ps::ReceiveArcoInformation{}), ps::ArcoCommand(ps::LapseArcoRequest{})}) {
    CHECK(Code(spec.When(move).status()) == "ARCO_REQUEST_NOT_FOUND");
  }
  CHECK(Code(spec.When(ArcoOpen()).status()) == "CONFLICT");  // its id is taken all the same
  CHECK(RecordAfter(spec).status == "received");
  spec.ctx.environment = "live";
  REQUIRE(spec.When(ps::AcceptArcoRequest{}).ok());
  CHECK(RecordAfter(spec).status == "accepted");
  spec.CheckSnapshot();
}

TEST_CASE("arco decider: every transition and refusal") {
  using svc::testing::Code;
  svc::testing::DeciderSpec<ArcoDecider> spec;
  spec.ctx.now = svc::core::Timestamp{kFri13};
  CHECK(Code(spec.When(ps::AcceptArcoRequest{}).status()) == "ARCO_REQUEST_NOT_FOUND");
  auto no_subject = ArcoOpen();
  no_subject.request.person_id.clear();
  CHECK(Code(spec.When(no_subject).status()) == "ARCO_SUBJECT_REQUIRED");
  auto opposition = ArcoOpen("opposition");
  opposition.request.purposes.clear();
  CHECK(Code(spec.When(opposition).status()) == "VALIDATION_ERROR");
  REQUIRE(spec.When(ArcoOpen("rectification")).ok());
  CHECK(Code(spec.When(ArcoOpen()).status()) == "CONFLICT");
  // Information asked once, within 5 business days; the term counts again from its arrival.
  CHECK(Code(spec.When(ps::ReceiveArcoInformation{}).status()) == "ARCO_INVALID_TRANSITION");
  spec.ctx.now = svc::core::Timestamp{kFri13 + 3 * kDay};  // Monday 16, a rest day: still day 0
  REQUIRE(spec.When(ps::RequestArcoInformation{}).ok());
  CHECK(RecordAfter(spec).status == "awaiting_information");
  CHECK(Date(RecordAfter(spec).information_due_micros) == "2026-12-01");  // 10 business days from 16 November
  CHECK(Code(spec.When(ps::AcceptArcoRequest{}).status()) == "ARCO_INVALID_TRANSITION");
  CHECK(Code(spec.When(ps::ExtendArcoDeadline{}).status()) == "ARCO_INVALID_TRANSITION");
  auto lapse = spec.When(ps::LapseArcoRequest{});  // not due yet: nothing
  REQUIRE(lapse.ok());
  CHECK(lapse->events.empty());
  spec.ctx.now = svc::core::Timestamp{kFri13 + 5 * kDay};  // Wednesday 18
  REQUIRE(spec.When(ps::ReceiveArcoInformation{}).ok());
  CHECK(RecordAfter(spec).status == "received");
  CHECK(Date(RecordAfter(spec).response_due_micros) == "2026-12-17");  // 20 business days from the 18th
  CHECK(Code(spec.When(ps::RequestArcoInformation{}).status()) == "ARCO_INVALID_TRANSITION");  // once only
  // Fulfilled by the operation of its right, on its subject only.
  ps::FulfilArcoRequest wrong{"forget", "purge", "per_00000000000000000000000000000001", {}, false, ""};
  CHECK(Code(spec.When(wrong).status()) == "ARCO_INVALID_TRANSITION");
  ps::FulfilArcoRequest other{"rectification", "piiVersion 3", "per_00000000000000000000000000000002", {}, false, ""};
  CHECK(Code(spec.When(other).status()) == "CONFLICT");
  other.record_refusal = true;  // from the manager: recorded, the request unchanged
  auto refused = spec.When(other);
  REQUIRE(refused.ok());
  CHECK(svc::testing::Types(*refused) == std::vector<std::string>{"arco.fulfilment_refused"});
  CHECK(RecordAfter(spec).status == "received");
  ps::FulfilArcoRequest right{"rectification", "piiVersion 3", "per_00000000000000000000000000000001", {}, true,
                              "evt_00000000000000000000000000000042"};
  auto done = spec.When(right);
  REQUIRE(done.ok());
  CHECK(svc::testing::Types(*done) == std::vector<std::string>{"arco.request_completed"});
  {
    ps::ArcoRecord r = RecordAfter(spec);
    CHECK(r.status == "completed");
    CHECK(r.fulfilled_by == "rectification");
    CHECK(r.responded_micros == spec.ctx.now.micros);  // accepted and made effective at once
  }
  CHECK(spec.When(right)->events.empty());  // the same operation again: recorded already
  CHECK(Code(spec.When(ps::WithdrawArcoRequest{}).status()) == "ARCO_INVALID_TRANSITION");
  CHECK(Code(spec.When(ps::DenyArcoRequest{"data_not_held"}).status()) == "ARCO_INVALID_TRANSITION");
  spec.CheckSnapshot();

  // Denied with a ground of the law; withdrawn; lapsed.
  svc::testing::DeciderSpec<ArcoDecider> denied;
  denied.ctx.now = svc::core::Timestamp{kFri13};
  REQUIRE(denied.When(ArcoOpen("cancellation")).ok());
  CHECK(Code(denied.When(ps::DenyArcoRequest{"because"}).status()) == "VALIDATION_ERROR");
  REQUIRE(denied.When(ps::DenyArcoRequest{"legal_hold"}).ok());
  CHECK(denied.state.record.status == "denied");
  CHECK(denied.state.record.denial_reason == "legal_hold");
  svc::testing::DeciderSpec<ArcoDecider> withdrawn;
  withdrawn.ctx.now = svc::core::Timestamp{kFri13};
  REQUIRE(withdrawn.When(ArcoOpen()).ok());
  REQUIRE(withdrawn.When(ps::AcceptArcoRequest{}).ok());
  REQUIRE(withdrawn.When(ps::WithdrawArcoRequest{}).ok());
  CHECK(withdrawn.state.record.status == "withdrawn");
  svc::testing::DeciderSpec<ArcoDecider> lapsed;
  lapsed.ctx.now = svc::core::Timestamp{kFri13};
  REQUIRE(lapsed.When(ArcoOpen()).ok());
  REQUIRE(lapsed.When(ps::RequestArcoInformation{}).ok());
  lapsed.ctx.now = svc::core::Timestamp{lapsed.state.record.information_due_micros + 1};
  auto gone = lapsed.When(ps::LapseArcoRequest{});
  REQUIRE(gone.ok());
  CHECK(svc::testing::Types(*gone) == std::vector<std::string>{"arco.request_lapsed"});
  CHECK(lapsed.state.record.status == "lapsed");
  // Asking for information after 5 business days is refused.
  svc::testing::DeciderSpec<ArcoDecider> late;
  late.ctx.now = svc::core::Timestamp{kFri13};
  REQUIRE(late.When(ArcoOpen()).ok());
  late.ctx.now = svc::core::Timestamp{kFri13 + 12 * kDay};
  CHECK(Code(late.When(ps::RequestArcoInformation{}).status()) == "ARCO_INVALID_TRANSITION");
}

TEST_CASE("arco decider: a deadline is warned once, missed once, and only while it is the request's") {
  svc::testing::DeciderSpec<ArcoDecider> spec;
  spec.ctx.now = svc::core::Timestamp{kFri13};
  REQUIRE(spec.When(ArcoOpen()).ok());
  const int64_t due = spec.state.record.response_due_micros;
  auto w = spec.When(ps::WarnArcoDeadline{"response", due, false});
  REQUIRE(w.ok());
  CHECK(svc::testing::Types(*w) == std::vector<std::string>{"arco.deadline_approaching"});
  CHECK(svc::testing::Data(w->events[0])["deadline"] == "response");
  CHECK(spec.When(ps::WarnArcoDeadline{"response", due, false})->events.empty());  // once
  CHECK(spec.When(ps::WarnArcoDeadline{"response", due, true})->events.empty());   // not passed yet
  CHECK(spec.When(ps::WarnArcoDeadline{"effect", due, false})->events.empty());    // not its deadline
  spec.ctx.now = svc::core::Timestamp{due + 1};
  auto m = spec.When(ps::WarnArcoDeadline{"response", due, true});
  REQUIRE(m.ok());
  CHECK(svc::testing::Types(*m) == std::vector<std::string>{"arco.deadline_missed"});
  CHECK(spec.When(ps::WarnArcoDeadline{"response", due, true})->events.empty());
  REQUIRE(spec.When(ps::ExtendArcoDeadline{}).ok());  // extended: the old deadline is not its any more
  CHECK(spec.When(ps::WarnArcoDeadline{"response", due, true})->events.empty());
  spec.CheckSnapshot();
}

TEST_CASE("person decider: an opposition revokes the purpose's consents in force") {
  svc::testing::DeciderSpec<ps::PersonDecider> spec;
  ps::CreatePerson create;
  create.created.application_id = "app_00000000000000000000000000000001";
  REQUIRE(spec.When(create).ok());
  ps::ConsentGranted c;
  c.consent_id = "cns_00000000000000000000000000000001";
  c.purpose = "credit_assessment";
  c.mechanism = "autenticacion";
  c.policy_version = "2026-01";
  REQUIRE(spec.When(ps::GrantConsent{c}).ok());
  ps::OppositionRecorded o;
  o.opposition_id = "opp_00000000000000000000000000000001";
  o.purpose = "credit_assessment";
  o.arco_request_id = "arc_00000000000000000000000000000001";
  o.recorded_by = "key_00000000000000000000000000000001";
  auto d = spec.When(ps::RecordOpposition{o, {c.consent_id, "cns_00000000000000000000000000000009"}});
  REQUIRE_MESSAGE(d.ok(), d.status().ToString());
  CHECK(svc::testing::Types(*d) == std::vector<std::string>{"persons.opposition_recorded", "persons.consent_revoked"});
  CHECK(svc::testing::Data(d->events[0])["arcoRequestId"] == o.arco_request_id);
  spec.CheckSnapshot();
}

}  // namespace commands_person_decider_test
