// Reads of the persons read model shared by routes and tools (projections/persons/persons_queries.h).
#include <doctest/doctest.h>

#include "projections/persons/persons_queries.h"
#include "projections/persons/persons_view.h"
#include "tests/support/views_fixture.h"

namespace projections_persons_persons_queries_test {

using namespace svc;
using PV = projections::PersonsView;

TEST_CASE("persons queries: a page of records by id, the rows as stored, with the total of those that exist") {
  testing::ViewsFixture views;
  std::vector<std::pair<std::string, std::string>> rows;
  for (const char* id : {"per_a", "per_b", "per_c", "per_d"}) {
    rows.push_back({PV::Abs(PV::Record("ten_1/test", id)), std::string("{\"id\":\"") + id + "\"}"});
  }
  rows.push_back({PV::Abs(PV::Record("ten_1/live", "per_e")), "{\"id\":\"per_e\"}"});  // another environment
  views.Put(rows);
  const std::vector<std::string> ids = {"per_a", "per_b", "per_c", "per_d", "per_e", "per_gone"};

  auto first = projections::PagePersons(views.store(), "ten_1/test", ids, "", 2);
  REQUIRE(first.ok());
  CHECK(first->data == "{\"id\":\"per_a\"},{\"id\":\"per_b\"}");
  CHECK(first->has_more);
  CHECK(first->last == "per_b");
  CHECK(first->total == 4);  // only the records this environment holds
  auto second = projections::PagePersons(views.store(), "ten_1/test", ids, first->last, 2);
  REQUIRE(second.ok());
  CHECK(second->data == "{\"id\":\"per_c\"},{\"id\":\"per_d\"}");
  CHECK_FALSE(second->has_more);
  CHECK(second->last == "per_d");
  auto none = projections::PagePersons(views.store(), "ten_1/test", {}, "", 20);
  REQUIRE(none.ok());
  CHECK(none->data.empty());
  CHECK(none->total == 0);
}

TEST_CASE("persons queries: a person's duplicates are the others holding its CURP or email index keys") {
  testing::ViewsFixture views;
  const std::string te = "ten_1/test";
  // per_a: CURP key k1 and two email keys (current and old); per_b shares the CURP, per_c both
  // email keys, per_d nothing, per_x shares a key but has no record (left out).
  std::vector<std::pair<std::string, std::string>> rows = {
      {PV::Abs(PV::Sealed(te, "per_a")),
       R"({"curp":{"index":["k1"]},"email":{"index":["k2","k3"]},"phone":{"index":["k4"]}})"}};
  for (auto [key, id] : std::vector<std::pair<const char*, const char*>>{
           {"k1", "per_a"}, {"k2", "per_a"}, {"k3", "per_a"}, {"k1", "per_b"}, {"k2", "per_c"},
           {"k3", "per_c"}, {"k4", "per_d"}, {"k1", "per_x"}}) {
    rows.push_back({PV::Abs(PV::BlindIndex(te, key, id)), ""});
  }
  for (const char* id : {"per_a", "per_b", "per_c", "per_d"}) {
    rows.push_back({PV::Abs(PV::Record(te, id)), std::string(R"({"id":")") + id + R"(","status":"active"})"});
  }
  views.Put(rows);

  auto found = projections::FindDuplicates(views.store(), te, "per_a");
  REQUIRE(found.ok());
  REQUIRE(found->size() == 2);
  CHECK((*found)[0].person_id == "per_b");
  CHECK((*found)[0].matched_on == std::vector<std::string>{"curp"});
  CHECK((*found)[0].record["status"] == "active");
  CHECK((*found)[1].person_id == "per_c");
  CHECK((*found)[1].matched_on == std::vector<std::string>{"email"});  // two keys, one field

  auto alone = projections::FindDuplicates(views.store(), te, "per_d");  // nothing sealed: none
  REQUIRE(alone.ok());
  CHECK(alone->empty());
}

}  // namespace projections_persons_persons_queries_test
