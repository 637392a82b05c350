// A portfolio run without HTTP (pipeline/kyb/portfolio_run.h): each subject's names found (a
// sealed name query opened, a person's fields through the caller, a company's row), the gone ones
// skipped, the screenings and hits recorded, and a hit met again not new.
#include <doctest/doctest.h>

#include "core/crypto.h"
#include "pipeline/kyb/portfolio_run.h"
#include "pipeline/kyb/screening_index.h"
#include "tests/support/runtime_fixture.h"

namespace pipeline_kyb_portfolio_run_test {

using namespace svc;
namespace pk = svc::pipeline::kyb;

namespace {

pk::ListsInForce Lists() {
  pk::LoadedList list;
  list.format = "ofac_sdn";
  list.content_hash = std::string(64, 'a');
  pk::ListEntry e;
  e.entry_id = "1001";
  e.kind = "person";
  e.name = "Juan Carlos Perez Lopez";
  list.entries.push_back(e);
  pk::ListsInForce lists;
  lists.index = std::make_shared<const pk::ScreeningIndex>(std::vector<pk::LoadedList>{list});
  lists.lists = core::Json::array({{{"source", "ofac_sdn"}, {"contentHash", list.content_hash}}});
  lists.source_of[list.content_hash] = "ofac_sdn";
  return lists;
}

}  // namespace

TEST_CASE("portfolio run: the screened names of a person and of a query") {
  auto p = pk::PersonScreenedName("per_1", {{"givenName", "Ana"}, {"surname", "Ruiz"}, {"curp", "RUAA800101MDFZNN09"}});
  CHECK(p.subject_key == "person:per_1");
  CHECK(p.query.name == "Ana Ruiz");
  CHECK(p.query.kind == "person");
  CHECK(p.query.identifiers == std::vector<std::string>{"RUAA800101MDFZNN09"});
  CHECK(pk::PersonScreenedName("per_2", core::Json::object()).query.name.empty());
  auto q = pk::QueryScreenedName({{"name", "Acme SA"}, {"kind", "company"}, {"idNumber", "AAA010101AAA"}}, "name:x");
  CHECK(q.subject_type == "name");
  CHECK(q.query.identifiers == std::vector<std::string>{"AAA010101AAA"});
}

TEST_CASE("portfolio run: every subject screened again, the gone ones skipped, a hit met again not new") {
  testing::RuntimeFixture f;
  f.Open();
  const std::string tenant = f.NewTenant();
  f.rt->StartProjections();
  const auto keys = pk::KybKeys::From(f.rt->seal_key());
  const std::string query = core::DumpJson(core::Json{{"name", "Juan Carlos Perez Lopez"}, {"kind", "person"}});
  const std::string key = "name:" + pk::QueryBlind(keys, tenant, "test", query);
  std::vector<core::Json> subjects = {
      {{"subjectType", "name"}, {"subjectKey", key},
       {"subjectSealed", pk::SealValue(keys, pk::KybAad(tenant, "test", key, "query"), query)}},
      {{"subjectType", "person"}, {"subjectId", "per_1"}, {"subjectKey", "person:per_1"}},
      {{"subjectType", "person"}, {"subjectId", "per_gone"}, {"subjectKey", "person:per_gone"}},
      {{"subjectType", "company"}, {"subjectId", "cmp_gone"}, {"subjectKey", "company:cmp_gone"}}};
  pk::PortfolioRunDeps deps{&f.rt->writer(), &f.rt->store(), &f.ids, keys, [&f] { return f.Ctx(); },
                            [](const std::string& person) -> core::Result<core::Json> {
                              if (person != "per_1") return core::FailedPrecondition("erased", "PERSON_PURGED");
                              return core::Json{{"fullName", "Maria Gomez Diaz"}};
                            }};
  const auto lists = Lists();
  auto first = pk::RunPortfolio(deps, tenant, "test", "watch", subjects, lists);
  REQUIRE(first.ok());
  CHECK(first->subjects == 4);
  CHECK(first->skipped == 2);
  CHECK(first->names_screened == 2);
  CHECK(first->hits == 1);  // the name, not Maria
  CHECK(first->new_hits.size() == 1);
  CHECK_FALSE(first->positions.empty());

  REQUIRE(f.rt->CatchUpProjections().ok());
  auto again = pk::RunPortfolio(deps, tenant, "test", "watch", subjects, lists);
  REQUIRE(again.ok());
  CHECK(again->hits == 1);
  CHECK(again->new_hits.empty());  // the same subject and entry: the same hit
}

}  // namespace pipeline_kyb_portfolio_run_test
