// The event catalogue (commands/event_catalogue.h): every type the codecs' golden file holds, the
// schemas derived from the field lists, and the public form that leaves sealed values out. The
// contract as a whole is checked by tools nobody here wrote in tests/events/contract.mjs.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "api/http/asyncapi.h"
#include "commands/event_catalogue.h"
#include "core/json_schema.h"
#include "projections/state_records.h"

namespace commands_event_catalogue_test {

using namespace svc;
using namespace svc::commands;

namespace {

std::vector<std::pair<std::string, std::string>> Golden() {
  std::ifstream in(std::string(SVC_TEST_SOURCE_DIR) + "/commands/event_codecs.golden");
  std::vector<std::pair<std::string, std::string>> out;
  std::string line;
  while (std::getline(in, line)) {
    auto space = line.find(' ');
    if (space != std::string::npos) out.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  return out;
}

struct Inner {
  std::string a;
  static constexpr auto Fields() { return std::tuple{core::Field("a", &Inner::a)}; }
};
struct Sample {
  std::string plain;
  std::string nullable;
  std::string omitted;
  int64_t count = 0;
  std::optional<std::string> maybe;
  std::vector<Inner> inners;
  std::map<std::string, Inner> by_name;
  core::Json object;
  static constexpr auto Fields() {
    using T = Sample;
    return std::tuple{core::Field("plain", &T::plain),
                      core::Field("nullable", &T::nullable, core::Empty::kNull),
                      core::Field("omitted", &T::omitted, core::Empty::kOmit),
                      core::Field("count", &T::count),
                      core::Field("maybe", &T::maybe),
                      core::Field("inners", &T::inners),
                      core::Field("byName", &T::by_name),
                      core::Field("object", &T::object, core::Shape::kObjectOrNull)};
  }
};

}  // namespace

TEST_CASE("event catalogue: a schema follows the field list's types and empty rules") {
  const core::Json s = core::FieldsSchema<Sample>();
  CHECK(s["type"] == "object");
  CHECK(s["required"] == core::Json::array({"plain", "nullable", "count", "maybe", "inners", "byName", "object"}));
  CHECK(s["properties"]["plain"] == core::Json{{"type", "string"}});
  CHECK(s["properties"]["nullable"] == core::Json{{"type", {"string", "null"}}});
  CHECK(s["properties"]["omitted"] == core::Json{{"type", "string"}});
  CHECK(s["properties"]["count"] == core::Json{{"type", "integer"}});
  CHECK(s["properties"]["maybe"] == core::Json{{"type", {"string", "null"}}});
  CHECK(s["properties"]["inners"]["items"]["properties"]["a"] == core::Json{{"type", "string"}});
  CHECK(s["properties"]["byName"]["additionalProperties"]["required"] == core::Json::array({"a"}));
  CHECK(s["properties"]["object"] == core::Json{{"type", {"object", "null"}}});
}

TEST_CASE("event catalogue: every type of the codecs' golden file, once, with an area and a schema") {
  const auto golden = Golden();
  REQUIRE(golden.size() > 100);
  std::set<std::string> types;
  for (const auto& [type, data] : golden) types.insert(type);
  for (const auto& t : types) {
    const EventTypeInfo* info = FindEventType(t);
    REQUIRE_MESSAGE(info != nullptr, t);
    CHECK(!info->area.empty());
    CHECK(!info->aggregate_types.empty());
    CHECK(info->data_schema["type"] == "object");
  }
  std::set<std::string> seen;
  for (const auto& info : EventCatalogue()) CHECK_MESSAGE(seen.insert(info.type).second, info.type);
  CHECK(seen.size() >= types.size());
  CHECK(UnknownListedTypes().empty());
  // Two aggregates write persons.pii_accessed (a reveal's budget, an export).
  CHECK(FindEventType("persons.pii_accessed")->aggregate_types.size() == 2);
  CHECK(FindEventType("claims.claim_taken")->audience == Audience::kInternal);
  CHECK(FindEventType("persons.person_purged")->erasure);
  CHECK(FindEventType("verification.media_purged")->erasure);
  CHECK_FALSE(FindEventType("verification.session_created")->erasure);
}

TEST_CASE("event catalogue: the public form keeps which fields exist, never a sealed value or a blind index") {
  for (const auto& [type, text] : Golden()) {
    const core::Json data = core::Json::parse(text);
    const std::string pub = PublicData(data).dump();
    CHECK_MESSAGE(pub.find("Sealed\"") == std::string::npos, type << ": " << pub);
    CHECK_MESSAGE(pub.find("\"sealed\"") == std::string::npos, type << ": " << pub);
    CHECK_MESSAGE(pub.find("\"index\"") == std::string::npos, type << ": " << pub);
    for (std::string_view m : kUnpublishedMembers) {
      CHECK_MESSAGE(pub.find("\"" + std::string(m) + "\"") == std::string::npos, type << ": " << pub);
    }
  }
  const core::Json person = {{"applicationId", "app_1"},
                             {"metadataSealed", "bWV0YQ=="},
                             {"pii", {{"curp", {{"sealed", "c2VhbGVk"}, {"index", {"aa"}}}}}}};
  CHECK(PublicData(person) == core::Json{{"applicationId", "app_1"}, {"pii", {{"curp", core::Json::object()}}}});
  const auto* created = FindEventType("persons.person_created");
  REQUIRE(created != nullptr);
  CHECK_FALSE(created->public_schema["properties"].contains("metadataSealed"));
  CHECK(created->data_schema["properties"].contains("metadataSealed"));
}

TEST_CASE("event catalogue: the AsyncAPI document has a channel per area and a message per public type") {
  const core::Json doc = api::AsyncApiDocument("https://verify.example");
  CHECK(doc["asyncapi"] == "3.0.0");
  for (const auto& area : EventAreas()) {
    REQUIRE(doc["channels"].contains(area));
    CHECK(doc["channels"][area]["address"] == "{prefix}.{environment}." + area);
  }
  size_t public_types = 0;
  for (const auto& info : EventCatalogue()) {
    if (info.audience == Audience::kInternal) {
      CHECK(std::find(doc["x-svc-internal-types"].begin(), doc["x-svc-internal-types"].end(), info.type) !=
            doc["x-svc-internal-types"].end());
      continue;
    }
    ++public_types;
    std::string id = info.type;
    std::replace(id.begin(), id.end(), '.', '_');
    REQUIRE_MESSAGE(doc["components"]["messages"].contains(id), info.type);
    CHECK(doc["components"]["messages"][id]["x-svc-dataschema"] ==
          "https://verify.example/v1/asyncapi.json#/components/schemas/" + info.type + ".v1");
    CHECK(doc["components"]["schemas"].contains(info.type + ".v1"));
  }
  // And a message per state topic, on its compacted channel (projections/state_records.h).
  for (const auto& st : projections::StateTopics()) {
    std::string id = st.type;
    std::replace(id.begin(), id.end(), '.', '_');
    REQUIRE_MESSAGE(doc["components"]["messages"].contains(id), st.type);
    CHECK(doc["components"]["schemas"].contains(st.type + ".v1"));
    const core::Json& channel = doc["channels"][st.area + "_state"];
    CHECK(channel["address"] == "{prefix}.{environment}." + st.area + ".state");
    CHECK(channel["x-svc-kind"] == "state");
    CHECK(channel["bindings"]["kafka"]["topicConfiguration"]["cleanup.policy"] == core::Json::array({"compact"}));
  }
  CHECK(doc["components"]["messages"].size() == public_types + projections::StateTopics().size());
  CHECK(EventSchemaUri("https://verify.example/", "persons.person_created", 2) ==
        "https://verify.example/v1/asyncapi.json#/components/schemas/persons.person_created.v2");
}

}  // namespace commands_event_catalogue_test
