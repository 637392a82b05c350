// Writes into the vault seal each value for the revision the aggregate gives it, inside the
// command's decide step (pipeline/persons/person_writes.h): two revisions prepared at once still
// seal for consecutive versions, and the async create hands over a command once the person's key
// is durable.
#include <doctest/doctest.h>

#include <future>

#include "commands/persons/person_decider.h"
#include "core/crypto.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/persons/person_writes.h"
#include "pipeline/persons/vault_keys.h"
#include "tests/support/temp_dir.h"

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

}  // namespace

TEST_CASE("person writes: values are sealed for the version the aggregate gives, not the one read before") {
  testing::TempDir dir;
  eventstore::KvStore::Options o;
  o.path = dir.Sub("db");
  o.column_families = {"keystore"};
  auto store = eventstore::KvStore::Open(o);
  REQUIRE(store.ok());
  eventstore::KeyStore keys(store->get(), core::RandomBytes(32));
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
  for (const auto& e : created->events) {
    eventstore::EventEnvelope env;
    env.type = e.type;
    env.data = e.data;
    env.environment = "test";
    env.occurred_at = Ctx().now;
    REQUIRE(ps::PersonDecider::Evolve(state, env).ok());
  }
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
