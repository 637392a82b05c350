// A process manager acts for the tenants whose partition its node's writer decides
// (pipeline/manager_runtime.h): every tenant in one process, and in a cluster only the partitions
// taken over, until they are released.
#include <doctest/doctest.h>

#include "commands/writer.h"
#include "eventstore/envelope.h"
#include "pipeline/manager_runtime.h"
#include "tests/support/runtime_fixture.h"

namespace pipeline_manager_runtime_test {

using namespace svc;

TEST_CASE("manager runtime: a manager acts for the tenants of the partitions its writer decides") {
  testing::RuntimeFixture f;
  f.Open();
  // Two tenants of different partitions.
  std::string t0, t1;
  for (int i = 0; t0.empty() || t1.empty(); ++i) {
    std::string t = f.ids.NewIdString(core::IdKind::kTenant);
    if (eventstore::PartitionForTenant(t, 4) == 0 && t0.empty()) t0 = t;
    if (eventstore::PartitionForTenant(t, 4) == 1 && t1.empty()) t1 = t;
  }
  pipeline::ManagerRuntime none;  // no writer: a tool's manager, acting for everyone
  CHECK(none.Owns(t0));

  pipeline::ManagerRuntime single;
  single.writer = &f.rt->writer();  // one process decides every partition
  CHECK(single.Owns(t0));
  CHECK(single.Owns(t1));

  // A cluster's writer: nothing until a partition is taken over, then only that partition.
  core::ThreadPool pool(1);
  commands::Writer::Options wo;
  wo.log = &f.rt->log();
  wo.store = &f.rt->store();
  wo.ids = &f.ids;
  wo.pool = &pool;
  commands::Writer w(wo);
  pipeline::ManagerRuntime member;
  member.writer = &w;
  CHECK_FALSE(member.Owns(t0));
  CHECK_FALSE(member.Owns(t1));
  REQUIRE(w.TakeOver(0).ok());
  CHECK(member.Owns(t0));
  CHECK_FALSE(member.Owns(t1));
  CHECK(w.Deciding() == std::vector<uint32_t>{0});
  w.Release(0);
  CHECK_FALSE(member.Owns(t0));
  CHECK(w.Deciding().empty());
}

}  // namespace pipeline_manager_runtime_test
