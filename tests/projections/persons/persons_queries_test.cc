// Reads of the persons read model shared by routes and tools (projections/persons/persons_queries.h).
#include <doctest/doctest.h>

#include "projections/persons/persons_queries.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "tests/support/temp_dir.h"

using namespace svc;
using PV = projections::PersonsView;

TEST_CASE("persons queries: a page of records by id, the rows as stored, with the total of those that exist") {
  testing::TempDir dir;
  auto store = eventstore::KvStore::Open({dir.Sub("views"), {std::string(projections::kViewsCf)}});
  REQUIRE(store.ok());
  const int cf = (*store)->Cf(projections::kViewsCf);
  eventstore::KvStore::Batch b;
  for (const char* id : {"per_a", "per_b", "per_c", "per_d"}) {
    b.Put(cf, PV::Abs(PV::Record("ten_1/test", id)), std::string("{\"id\":\"") + id + "\"}");
  }
  b.Put(cf, PV::Abs(PV::Record("ten_1/live", "per_e")), "{\"id\":\"per_e\"}");  // another environment
  REQUIRE((*store)->Write(b, false).ok());
  const std::vector<std::string> ids = {"per_a", "per_b", "per_c", "per_d", "per_e", "per_gone"};

  auto first = projections::PagePersons(**store, "ten_1/test", ids, "", 2);
  REQUIRE(first.ok());
  CHECK(first->data == "{\"id\":\"per_a\"},{\"id\":\"per_b\"}");
  CHECK(first->has_more);
  CHECK(first->last == "per_b");
  CHECK(first->total == 4);  // only the records this environment holds
  auto second = projections::PagePersons(**store, "ten_1/test", ids, first->last, 2);
  REQUIRE(second.ok());
  CHECK(second->data == "{\"id\":\"per_c\"},{\"id\":\"per_d\"}");
  CHECK_FALSE(second->has_more);
  CHECK(second->last == "per_d");
  auto none = projections::PagePersons(**store, "ten_1/test", {}, "", 20);
  REQUIRE(none.ok());
  CHECK(none->data.empty());
  CHECK(none->total == 0);
}
