// The persons' pseudonyms of the public topics (pipeline/events/pseudonyms.h) on a real key store
// in a temporary RocksDB: stable per person, distinct between persons and environments, drawn only
// while the person's data key exists, gone with their pseudonym key; every person id in a record
// (key, subject, payload, a key name that embeds one) replaced, nothing else touched.
#include <doctest/doctest.h>

#include "core/json.h"
#include "pipeline/events/publisher.h"
#include "pipeline/events/pseudonyms.h"
#include "pipeline/persons/vault_keys.h"
#include "tests/support/key_store_fixture.h"

namespace pipeline_events_pseudonyms_test {

using namespace svc;
using svc::pipeline::events::PersonPseudonyms;

namespace {

const std::string kT = "ten_00000000000000000000000000000001";
const std::string kP1 = "per_0123456789abcdef0123456789abcdef";
const std::string kP2 = "per_fedcba9876543210fedcba9876543210";

bool IsPseudonym(const std::string& s) {
  if (s.size() != 36 || s.rfind("psn_", 0) != 0) return false;
  return s.substr(4).find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

TEST_CASE("pseudonyms: one per person and environment, drawn while the data key exists, gone with its key") {
  testing::KeyStoreFixture f;
  PersonPseudonyms ps(f.keys.get());
  // No data key (never a person here, or erased before the publisher met them): no key is drawn.
  CHECK(*ps.Of(kT, "test", kP1) == "psn_erased");
  CHECK_FALSE(f.keys->Get(PersonPseudonyms::KeyName(kT, "test", kP1))->has_value());

  REQUIRE(f.keys->GetOrCreate(pipeline::persons::PersonKeyName(kT, "test", kP1)).ok());
  REQUIRE(f.keys->GetOrCreate(pipeline::persons::PersonKeyName(kT, "test", kP2)).ok());
  REQUIRE(f.keys->GetOrCreate(pipeline::persons::PersonKeyName(kT, "live", kP1)).ok());
  const std::string a = *ps.Of(kT, "test", kP1);
  CHECK(IsPseudonym(a));
  CHECK(a.find("0123456789abcdef") == std::string::npos);
  CHECK(*ps.Of(kT, "test", kP1) == a);
  CHECK(*ps.Of(kT, "test", kP2) != a);
  CHECK(*ps.Of(kT, "live", kP1) != a);
  // A new publisher (a restart) reads the same key: the same pseudonym.
  PersonPseudonyms again(f.keys.get());
  CHECK(*again.Of(kT, "test", kP1) == a);

  // The person forgotten: the data key goes first; the publisher still has the pseudonym key for
  // the erasure events it has not published yet.
  REQUIRE(f.keys->DestroyForGood({pipeline::persons::PersonKeyName(kT, "test", kP1)}).ok());
  CHECK(*again.Of(kT, "test", kP1) == a);
  // Its pseudonym key destroyed once `persons.keys_destroyed` is committed: nothing computes it.
  REQUIRE(again.Destroy({PersonPseudonyms::KeyName(kT, "test", kP1)}).ok());
  CHECK_FALSE(f.keys->Get(PersonPseudonyms::KeyName(kT, "test", kP1))->has_value());
  CHECK(*again.Of(kT, "test", kP1) == "psn_erased");
  CHECK_FALSE(f.keys->Get(PersonPseudonyms::KeyName(kT, "test", kP1))->has_value());  // not drawn again
  CHECK(IsPseudonym(*again.Of(kT, "test", kP2)));
}

TEST_CASE("pseudonyms: every person id in a text is replaced, and nothing that only looks like one") {
  testing::KeyStoreFixture f;
  REQUIRE(f.keys->GetOrCreate(pipeline::persons::PersonKeyName(kT, "test", kP1)).ok());
  REQUIRE(f.keys->GetOrCreate(pipeline::persons::PersonKeyName(kT, "test", kP2)).ok());
  PersonPseudonyms ps(f.keys.get());
  const std::string a = *ps.Of(kT, "test", kP1), b = *ps.Of(kT, "test", kP2);
  CHECK(*ps.Replace(kT, "test", kP1) == a);
  CHECK(*ps.Replace(kT, "test", "{\"personId\":\"" + kP1 + "\",\"keyNames\":[\"person/" + kT + "/test/" + kP2 + "\"]}") ==
        "{\"personId\":\"" + a + "\",\"keyNames\":[\"person/" + kT + "/test/" + b + "\"]}");
  CHECK(*ps.Replace(kT, "test", kP1 + "," + kP1) == a + "," + a);
  // Not a person id: a longer word, a short or long hex part, capitals, another prefix.
  const std::vector<std::string> not_ids = {"x" + kP1, kP1 + "0", kP1.substr(0, 35), "per_0123456789ABCDEF0123456789ABCDEF",
                                             "vrf_0123456789abcdef0123456789abcdef", "per_", ""};
  for (const auto& s : not_ids) {
    CHECK(*ps.Replace(kT, "test", s) == s);
  }
}

TEST_CASE("pseudonyms: a batch's persons resolved at once give the pseudonyms one at a time would") {
  testing::KeyStoreFixture f;
  for (const auto& p : {kP1, kP2}) REQUIRE(f.keys->GetOrCreate(pipeline::persons::PersonKeyName(kT, "test", p)).ok());
  PersonPseudonyms batch(f.keys.get());
  const std::string text = "{\"a\":\"" + kP1 + "\",\"b\":[\"" + kP2 + "\",\"" + kP1 + "\"]}";
  const std::string unknown = "per_00000000000000000000000000000077";  // no data key: nothing drawn
  REQUIRE(batch.Prefetch({{kT, "test", text}, {kT, "test", unknown}, {kT, "live", kP1}}).ok());
  CHECK(f.keys->Get(PersonPseudonyms::KeyName(kT, "test", kP1))->has_value());
  CHECK(f.keys->Get(PersonPseudonyms::KeyName(kT, "test", kP2))->has_value());
  CHECK_FALSE(f.keys->Get(PersonPseudonyms::KeyName(kT, "test", unknown))->has_value());
  CHECK_FALSE(f.keys->Get(PersonPseudonyms::KeyName(kT, "live", kP1))->has_value());  // no live data key
  PersonPseudonyms single(f.keys.get());
  CHECK(*batch.Replace(kT, "test", text) == *single.Replace(kT, "test", text));
  CHECK(*single.Of(kT, "test", unknown) == "psn_erased");
}

TEST_CASE("pseudonyms: a person's public record carries the pseudonym as key, subject and in its payload") {
  testing::KeyStoreFixture f;
  REQUIRE(f.keys->GetOrCreate(pipeline::persons::PersonKeyName(kT, "test", kP1)).ok());
  PersonPseudonyms ps(f.keys.get());
  eventstore::RecordedEvent re;
  re.position = {2, 17};
  re.event.id = "evt_00000000000000000000000000000009";
  re.event.type = "persons.keys_destroyed";
  re.event.tenant_id = kT;
  re.event.environment = "test";
  re.event.aggregate_type = "person";
  re.event.aggregate_id = kP1;
  re.event.aggregate_version = 7;
  re.event.data = core::Json{{"keyNames", {"person/" + kT + "/test/" + kP1}}}.dump();
  auto records = pipeline::events::PublicRecords(re, "svc", "https://verify.example", ps);
  REQUIRE(records.ok());
  REQUIRE(records->size() == 1);
  const auto& r = records->front();
  const std::string psn = *ps.Of(kT, "test", kP1);
  CHECK(r.topic == "svc.test.persons");
  CHECK(r.key == psn);
  CHECK(r.value.find(psn) != std::string::npos);
  std::string all = r.key + r.value;
  for (const auto& [name, value] : r.headers) {
    all += value;
    if (name == "ce_subject") CHECK(value == psn);
  }
  CHECK(all.find("per_") == std::string::npos);
}

}  // namespace pipeline_events_pseudonyms_test
