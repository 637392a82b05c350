// A company's creation without HTTP (pipeline/kyb/company_writes.h): the RFC's claim taken
// first, a second company with the RFC refused naming the first.
#include <doctest/doctest.h>

#include <future>

#include "pipeline/kyb/company_writes.h"
#include "tests/support/runtime_fixture.h"

namespace pipeline_kyb_company_writes_test {

using namespace svc;
namespace pk = svc::pipeline::kyb;

namespace {

core::Result<commands::CommandOutcome> Create(testing::RuntimeFixture& f, const pk::NewCompany& c) {
  std::promise<core::Result<commands::CommandOutcome>> done;
  pk::CreateCompany(f.rt->writer(), pk::KybKeys::From(f.rt->seal_key()), c, f.Ctx(),
                    [&done](core::Result<commands::CommandOutcome> r) { done.set_value(std::move(r)); });
  return done.get_future().get();
}

}  // namespace

TEST_CASE("company writes: an RFC is held by one company of the tenant and environment") {
  testing::RuntimeFixture f;
  f.Open();
  pk::NewCompany c;
  c.tenant = f.NewTenant();
  c.environment = "test";
  c.id = f.ids.NewIdString(core::IdKind::kCompany);
  c.legal_name = "Comercializadora del Norte";
  c.country = "MX";
  c.rfc = "CNO010101AB1";
  c.rfc_kind = "moral";
  c.subject_kind = "legal_entity";
  auto first = Create(f, c);
  REQUIRE(first.ok());
  CHECK_FALSE(first->positions.empty());
  const std::string first_id = c.id;

  c.id = f.ids.NewIdString(core::IdKind::kCompany);
  auto second = Create(f, c);
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().api_code() == "RFC_CONFLICT");
  REQUIRE(second.status().extensions().size() == 1);
  CHECK(second.status().extensions()[0] == std::pair<std::string, std::string>{"conflictingCompanyId", first_id});

  // Another environment's companies are another space; a company without an RFC takes no claim.
  c.environment = "live";
  CHECK(Create(f, c).ok());
  c.environment = "test";
  c.rfc.clear();
  c.rfc_kind.clear();
  c.id = f.ids.NewIdString(core::IdKind::kCompany);
  CHECK(Create(f, c).ok());
  c.id = f.ids.NewIdString(core::IdKind::kCompany);
  CHECK(Create(f, c).ok());
}

}  // namespace pipeline_kyb_company_writes_test
