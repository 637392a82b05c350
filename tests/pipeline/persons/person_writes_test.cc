// Writes into the vault seal each value for the revision the aggregate gives it, inside the
// command's decide step (pipeline/persons/person_writes.h): two revisions prepared at once still
// seal for consecutive versions, and the async create hands over a command once the person's key
// is durable.
#include <doctest/doctest.h>

#include <future>

#include "commands/claims/claim_decider.h"
#include "commands/persons/person_decider.h"
#include "core/crypto.h"
#include "core/delay_queue.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/persons/person_writes.h"
#include "pipeline/persons/vault_keys.h"
#include "tests/support/runtime_fixture.h"
#include "tests/support/key_store_fixture.h"
#include "tests/support/temp_dir.h"

namespace pipeline_persons_person_writes_test {

using namespace svc;
using namespace svc::pipeline::persons;
namespace ps = svc::commands::persons;

namespace {

commands::CommandContext Ctx() {
  commands::CommandContext c;
  c.now = core::Timestamp{1767225600LL * 1000000};
  c.environment = "test";
  return c;
}

PiiWrite Email(const std::string& value) {
  PiiWrite w;
  w.values["email"] = value;
  w.source = {"api", "", ""};
  return w;
}

// Evolves `state` by a decision's events, as the writer does once they are appended.
void Apply(ps::PersonState& state, const commands::Decision& d) {
  for (const auto& e : d.events) {
    eventstore::EventEnvelope env;
    env.type = e.type;
    env.data = e.data;
    env.environment = "test";
    env.occurred_at = Ctx().now;
    REQUIRE(ps::PersonDecider::Evolve(state, env).ok());
  }
}

}  // namespace

TEST_CASE("person writes: values are sealed for the version the aggregate gives, not the one read before") {
  testing::KeyStoreFixture ks;
  eventstore::KeyStore& keys = *ks.keys;
  const PersonRef who{"ten_1", "test", "per_1"};

  // The async create: the command arrives once the person's key is durable.
  std::promise<core::Result<commands::Command>> made;
  CreatePersonCommandAsync(keys, who, "app_1", "", Email("a@example.mx"), Ctx(),
                           [&](core::Result<commands::Command> c) { made.set_value(std::move(c)); });
  auto create = made.get_future().get();
  REQUIRE(create.ok());
  REQUIRE(keys.Get(PersonKeyName("ten_1", "test", "per_1"))->has_value());
  ps::PersonState state;
  auto created = create->decide(std::any(state), Ctx());
  REQUIRE(created.ok());
  Apply(state, *created);
  CHECK(state.pii_version == 1);

  // Two revisions prepared before either runs: each seals for the version current when it runs.
  auto r1 = RevisePersonCommand(keys, who, Email("b@example.mx"), Ctx());
  auto r2 = RevisePersonCommand(keys, who, Email("c@example.mx"), Ctx());
  REQUIRE(r1.ok());
  REQUIRE(r2.ok());
  const std::string key = **keys.Get(PersonKeyName("ten_1", "test", "per_1"));
  for (auto* cmd : {&*r1, &*r2}) {
    auto d = cmd->decide(std::any(state), Ctx());
    REQUIRE(d.ok());
    REQUIRE(d->events.size() == 1);
    core::Json data = core::ParseJsonOrDiscarded(d->events[0].data);
    const int version = data["piiVersion"];
    CHECK(version == state.pii_version + 1);
    auto opened = OpenPii(key, "ten_1", "test", "per_1", "email", version, data["set"]["email"]["sealed"].get<std::string>());
    REQUIRE(opened.ok());
    CHECK(OpenPii(key, "ten_1", "test", "per_1", "email", version - 1, data["set"]["email"]["sealed"].get<std::string>()).status().code() ==
          core::StatusCode::kDataLoss);
    eventstore::EventEnvelope env;
    env.type = d->events[0].type;
    env.data = d->events[0].data;
    env.environment = "test";
    env.occurred_at = Ctx().now;
    REQUIRE(ps::PersonDecider::Evolve(state, env).ok());
  }
  CHECK(state.pii_version == 3);
  // A revision of a person whose key does not exist is refused before anything is sealed.
  CHECK(RevisePersonCommand(keys, {"ten_1", "test", "per_2"}, Email("x@example.mx"), Ctx()).status().api_code() ==
        "PERSON_NOT_FOUND");
}

TEST_CASE("person writes: a create and a revision are data that travel to another node's writer; a revision "
          "sealed for a version the person has left is refused") {
  testing::KeyStoreFixture ks;
  eventstore::KeyStore& keys = *ks.keys;
  const PersonRef who{"ten_1", "test", "per_1"};
  commands::TypedAggregate<ps::PersonDecider> person;
  // What the writer on the other node does with a command's wire form (commands/command_codec.h).
  auto travel = [&](const commands::Command& c) -> commands::Command {
    REQUIRE(static_cast<bool>(c.encode));
    auto decoded = person.DecodeCommand(c.tenant_id, c.aggregate_id, c.encode(), false, Ctx());
    REQUIRE_MESSAGE(decoded.ok(), decoded.status().ToString());
    return std::move(decoded).value();
  };
  std::promise<core::Result<commands::Command>> made;
  CreatePersonCommandAsync(keys, who, "app_1", "", Email("a@example.mx"), Ctx(),
                           [&](core::Result<commands::Command> c) { made.set_value(std::move(c)); });
  auto create = made.get_future().get();
  REQUIRE(create.ok());
  ps::PersonState state;
  auto created = travel(*create).decide(std::any(state), Ctx());
  REQUIRE(created.ok());
  Apply(state, *created);
  CHECK(state.pii_version == 1);

  // Without the read model's version a revision cannot travel; with it, it seals for the next.
  CHECK_FALSE(static_cast<bool>(RevisePersonCommand(keys, who, Email("b@example.mx"), Ctx())->encode));
  auto revise = RevisePersonCommand(keys, who, Email("b@example.mx"), Ctx(), int64_t{1});
  REQUIRE(revise.ok());
  commands::Command travelled = travel(*revise);
  auto revised = travelled.decide(std::any(state), Ctx());
  REQUIRE(revised.ok());
  core::Json data = core::ParseJsonOrDiscarded(revised->events.at(0).data);
  CHECK(data["piiVersion"] == 2);
  const std::string key = **keys.Get(PersonKeyName("ten_1", "test", "per_1"));
  auto opened = OpenPii(key, "ten_1", "test", "per_1", "email", 2, data["set"]["email"]["sealed"].get<std::string>());
  REQUIRE(opened.ok());
  CHECK(*opened == "b@example.mx");
  Apply(state, *revised);
  // The same revision again (the person is at version 2 now): refused, nothing sealed for a wrong version.
  auto stale = travelled.decide(std::any(state), Ctx());
  CHECK(stale.status().api_code() == "CONFLICT");
}

// The person write use case (WritePerson) through the real writer, RocksDB and key store: the
// claims of a CURP and of an externalRef (docs/write-side.md#claims).
namespace {

struct UseCase {
  testing::RuntimeFixture f;
  std::string tenant;
  UseCase() {
    f.Open();
    tenant = f.NewTenant();
  }
  core::DelayQueue delays;
  PersonWriteDeps Deps() {
    PersonWriteDeps d{&f.rt->writer(), &f.rt->key_store(), &f.rt->ids(), {}, {}};
    d.after = [this](std::chrono::milliseconds delay, std::function<void()> task) { delays.After(delay, std::move(task)); };
    return d;
  }
  PersonWriteInput Input(const std::string& curp, const std::string& external_ref = "", const std::string& person = "") {
    PersonWriteInput in;
    in.who = {tenant, "test", person};
    in.application_id = "app_" + std::string(32, '1');
    in.external_ref = external_ref;
    if (!curp.empty()) in.write.values["curp"] = curp;
    in.write.values["email"] = "a@example.mx";
    in.write.source = {"api", "", ""};
    in.ctx = f.Ctx();
    return in;
  }
  core::Result<PersonWriteResult> Write(PersonWriteInput in) {
    std::promise<core::Result<PersonWriteResult>> p;
    WritePerson(Deps(), std::move(in), [&p](core::Result<PersonWriteResult> r) { p.set_value(std::move(r)); });
    return p.get_future().get();
  }
};

std::string Holder(const core::Status& st) {
  for (const auto& [k, v] : st.extensions()) {
    if (k == "conflictingPersonId") return v;
  }
  return "";
}

}  // namespace

// Issue 67: concurrent creates of one new externalRef. The losers find the reference's claim held
// by the winner's person before that person is made; they wait behind the winner's writes
// (PersonWriteDeps::after, a few milliseconds at a time) and update the winner's person, where
// they used to answer 409 CONFLICT.
TEST_CASE("person write use case: of 12 concurrent creates of one new externalRef one makes the person, the others update it") {
  UseCase u;
  std::vector<std::promise<core::Result<PersonWriteResult>>> promises(12);
  for (size_t i = 0; i < promises.size(); ++i) {
    PersonWriteInput in = u.Input("", "shared-ref");
    in.write.values["email"] = "user" + std::to_string(i) + "@example.mx";
    WritePerson(u.Deps(), std::move(in),
                [&promises, i](core::Result<PersonWriteResult> r) { promises[i].set_value(std::move(r)); });
  }
  std::string made;
  std::vector<std::string> updated;
  for (auto& p : promises) {
    auto r = p.get_future().get();
    REQUIRE_MESSAGE(r.ok(), r.status().ToString());
    if (r->created) {
      CHECK(made.empty());
      made = r->person_id;
    } else {
      updated.push_back(r->person_id);
    }
  }
  REQUIRE_FALSE(made.empty());
  CHECK(updated.size() == 11);
  for (const auto& id : updated) CHECK(id == made);
  // One person, written 12 times: piiVersion 12.
  auto state = u.f.rt->writer().DebugState(u.tenant, "person", made);
  REQUIRE(state.ok());
  CHECK(core::ParseJsonOrDiscarded(*state)["piiVersion"] == 12);
}

TEST_CASE("person write use case: of 12 concurrent creates of one CURP exactly one makes a person; the others name it") {
  UseCase u;
  std::vector<std::promise<core::Result<PersonWriteResult>>> promises(12);
  for (size_t i = 0; i < promises.size(); ++i) {
    WritePerson(u.Deps(), u.Input("PEPJ800101HDFRRN03", "user-" + std::to_string(i)),
                [&promises, i](core::Result<PersonWriteResult> r) { promises[i].set_value(std::move(r)); });
  }
  std::string made;
  std::vector<std::string> named;
  for (auto& p : promises) {
    auto r = p.get_future().get();
    if (r.ok()) {
      CHECK(made.empty());
      CHECK(r->created);
      made = r->person_id;
    } else {
      const core::Status st = r.status();
      CHECK(std::string(st.api_code()) == "CURP_CONFLICT");
      named.push_back(Holder(st));
    }
  }
  REQUIRE_FALSE(made.empty());
  CHECK(named.size() == 11);
  for (const auto& n : named) CHECK(n == made);
  // The refused creates gave their externalRef claims back: each reference is free again.
  auto again = u.Write(u.Input("", "user-1"));
  REQUIRE(again.ok());
  CHECK(again->created);
  // The holder's own write keeps its CURP; another person setting it is refused.
  auto patch = u.Write(u.Input("PEPJ800101HDFRRN03", "", made));
  REQUIRE(patch.ok());
  CHECK(patch->person_id == made);
  auto other = u.Write(u.Input("PEPJ800101HDFRRN03", "", again->person_id));
  REQUIRE_FALSE(other.ok());
  CHECK(Holder(other.status()) == made);
  // Once the holder's CURP changes, the old one is free.
  REQUIRE(u.Write(u.Input("LOMA900215MJCPRR05", "", made)).ok());
  auto freed = u.Write(u.Input("PEPJ800101HDFRRN03", "", again->person_id));
  REQUIRE(freed.ok());
  CHECK(freed->person_id == again->person_id);
}

TEST_CASE("person write use case: an externalRef's second create revises its person; a replay finds the original") {
  UseCase u;
  auto first = u.Write(u.Input("GARC750630HNLRDR06", "user-7"));
  REQUIRE(first.ok());
  CHECK(first->created);
  auto second = u.Write(u.Input("GARC750630HNLRDR06", "user-7"));
  REQUIRE(second.ok());
  CHECK_FALSE(second->created);
  CHECK(second->person_id == first->person_id);
  // With an Idempotency-Key, the same request again is the original's answer (another id is
  // minted for it, and dropped: the claims name the original's person).
  auto keyed = [&] { PersonWriteInput in = u.Input("LOMA900215MJCPRR05");
    in.ctx.idempotency_key = "idem-1";
    in.ctx.request_fingerprint = "fp-1";
    return in; };
  auto original = u.Write(keyed());
  REQUIRE(original.ok());
  auto replay = u.Write(keyed());
  REQUIRE(replay.ok());
  CHECK(replay->outcome.replayed);
  CHECK(replay->created);
  CHECK(replay->person_id == original->person_id);
}

TEST_CASE("person write use case: a crash between the claim and the create holds the CURP for 60 s, then frees it") {
  UseCase u;
  namespace cl = commands::claims;
  // The claim of a person that never came to exist (the process died before its create).
  const std::string ghost = "per_" + std::string(32, 'e');
  auto index_key = IndexKey(u.f.rt->key_store(), u.tenant, "test");
  REQUIRE(index_key.ok());
  const std::string claim = ps::CurpClaimId("test", BlindKeys(*index_key, "curp", "PEPJ800101HDFRRN03").at(0));
  cl::TakeClaim take;
  take.holder = ghost;
  take.holder_type = "person";
  take.holds = {std::string(cl::HoldsRule::kPersonCurp), "k", ""};
  REQUIRE(u.f.rt->writer()
              .ExecuteAndWait(commands::MakeReadingCommand<cl::ClaimDecider>(u.tenant, claim, cl::ClaimCommand(take), u.f.Ctx()))
              .ok());
  // The write model is durable: reopened (as after a kill -9), the claim is still the ghost's.
  u.f.Close();
  u.f.Open();
  auto refused = u.Write(u.Input("PEPJ800101HDFRRN03", "user-1"));
  REQUIRE_FALSE(refused.ok());
  CHECK(Holder(refused.status()) == ghost);
  u.f.clock.AdvanceSeconds(61);
  auto made = u.Write(u.Input("PEPJ800101HDFRRN03", "user-1"));
  REQUIRE(made.ok());
  CHECK(made->created);
  auto after = u.Write(u.Input("PEPJ800101HDFRRN03", "user-2"));
  REQUIRE_FALSE(after.ok());
  CHECK(Holder(after.status()) == made->person_id);
}

TEST_CASE("person writes: a consent's evidence is sealed under the person's key, bound to the consent; none without the key") {
  testing::KeyStoreFixture ks;
  eventstore::KeyStore& keys = *ks.keys;
  const PersonRef who{"ten_1", "test", "per_1"};
  ps::ConsentGranted c;
  c.consent_id = "cns_1";
  c.purpose = "identity_verification";
  const core::Json evidence = {{"signature", "abc"}};
  // No person key: the person was erased.
  auto refused = GrantConsentCommand(keys, who, c, &evidence, Ctx());
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(core::Status(refused.status()).api_code()) == "PERSON_PURGED");
  auto person_key = keys.GetOrCreate(PersonKeyName("ten_1", "test", "per_1"));
  REQUIRE(person_key.ok());
  auto cmd = GrantConsentCommand(keys, who, c, &evidence, Ctx());
  REQUIRE(cmd.ok());
  ps::PersonState state;
  state.exists = true;
  state.status = "active";
  state.environment = "test";
  auto decided = cmd->decide(std::any(state), Ctx());
  REQUIRE_MESSAGE(decided.ok(), decided.status().ToString());
  REQUIRE(decided->events.size() == 1);
  const core::Json data = core::ParseJsonOrDiscarded(decided->events[0].data);
  const std::string sealed = data.value("evidenceSealed", "");
  REQUIRE_FALSE(sealed.empty());
  CHECK(sealed.find("abc") == std::string::npos);
  auto raw = core::Base64Decode(sealed);
  REQUIRE(raw.ok());
  auto opened = core::AeadOpen(*person_key, *raw, "consent-evidence|ten_1|test|per_1|cns_1");
  REQUIRE(opened.ok());
  CHECK(core::ParseJsonOrDiscarded(*opened) == evidence);
  CHECK_FALSE(core::AeadOpen(*person_key, *raw, "consent-evidence|ten_1|test|per_1|cns_2").ok());
  // No evidence: nothing sealed, no key needed.
  auto plain = GrantConsentCommand(keys, {"ten_1", "test", "per_2"}, c, nullptr, Ctx());
  REQUIRE(plain.ok());
}

}  // namespace pipeline_persons_person_writes_test
