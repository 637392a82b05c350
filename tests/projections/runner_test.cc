#include <doctest/doctest.h>

#include <future>
#include <thread>

#include "api/server/admin.h"
#include "api/server/replay.h"
#include "projections/runner.h"
#include "tests/support/runtime_fixture.h"

namespace projections_runner_test {

using namespace svc;
using namespace svc::commands::tenancy;
using svc::testing::RuntimeFixture;

namespace {
// Counts events per tenant; its version is settable to exercise rebuilds.
class CountingProjector final : public projections::Projector {
 public:
  explicit CountingProjector(std::string name = "counting") : name_(std::move(name)) {}
  int version = 1;
  int applied = 0;
  std::string_view Name() const override { return name_; }
  int Version() const override { return version; }
  core::Status Apply(const eventstore::RecordedEvent& e, projections::ViewWriter& view) override {
    ++applied;
    std::string key = "count/" + e.event.tenant_id;
    SVC_ASSIGN_OR_RETURN(auto row, view.Get(key));
    int n = row.has_value() ? std::stoi(*row) : 0;
    view.Put(key, std::to_string(n + 1));
    return core::Status::Ok();
  }

 private:
  std::string name_;
};
}  // namespace

TEST_CASE("projections: read-your-writes wait, then the row is there") {
  RuntimeFixture f;
  f.Open();
  f.rt->StartProjections();
  std::string t = f.NewTenant();
  auto r = f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "Web"},
                 f.Ctx());
  REQUIRE(r.ok());
  REQUIRE(f.rt->projections().WaitApplied(r->positions, std::chrono::seconds(10)));
  auto rows = api::AdminTenantList(*f.rt);
  REQUIRE(rows.ok());
  CHECK((*rows)["data"].size() == 1);
  CHECK(f.rt->projections().AllCaughtUpOnce());
}

TEST_CASE("projections: rows and checkpoints commit together; a new version rebuilds") {
  RuntimeFixture f;
  f.Open();
  std::string t1 = f.NewTenant("A"), t2 = f.NewTenant("B");
  CountingProjector counting;
  auto make = [&] {
    projections::ProjectionRunner::Options o;
    o.projector = &counting;
    o.log = &f.rt->log();
    o.store = &f.rt->store();
    o.batch_events = 1;  // one event per batch: checkpoints move event by event
    return std::make_unique<projections::ProjectionRunner>(o);
  };
  auto count_of = [&](const std::string& t) {
    auto v = f.rt->store().Get(f.rt->store().Cf(projections::kViewsCf), "counting/count/" + t);
    return v.ok() && v->has_value() ? std::stoi(**v) : 0;
  };
  {
    auto runner = make();
    REQUIRE(runner->Prepare().ok());
    REQUIRE(runner->RunUntilCaughtUp().ok());
  }
  CHECK(count_of(t1) == 2);  // tenant_created + application_created
  CHECK(counting.applied == 4);
  {
    // Same version: resumes from the checkpoint, applies nothing twice.
    auto runner = make();
    REQUIRE(runner->Prepare().ok());
    REQUIRE(runner->RunUntilCaughtUp().ok());
    CHECK(counting.applied == 4);
  }
  counting.version = 2;
  {
    auto runner = make();
    REQUIRE(runner->Prepare().ok());  // version changed: rows dropped, rebuilt from the log
    REQUIRE(runner->RunUntilCaughtUp().ok());
    CHECK(counting.applied == 8);
  }
  CHECK(count_of(t1) == 2);
  CHECK(count_of(t2) == 2);
}

TEST_CASE("projections: one runner feeds several projectors; one rebuilds while another resumes") {
  RuntimeFixture f;
  f.Open();
  std::string t1 = f.NewTenant("A"), t2 = f.NewTenant("B");
  CountingProjector resumes("resumes"), rebuilds("rebuilds");
  auto make = [&] {
    projections::ProjectionRunner::Options o;
    o.projectors = {&resumes, &rebuilds};
    o.log = &f.rt->log();
    o.store = &f.rt->store();
    o.batch_events = 3;
    return std::make_unique<projections::ProjectionRunner>(o);
  };
  auto count_of = [&](const std::string& p, const std::string& t) {
    auto v = f.rt->store().Get(f.rt->store().Cf(projections::kViewsCf), p + "/count/" + t);
    return v.ok() && v->has_value() ? std::stoi(**v) : 0;
  };
  {
    auto runner = make();
    REQUIRE(runner->Prepare().ok());
    REQUIRE(runner->RunUntilCaughtUp().ok());
  }
  CHECK(resumes.applied == 4);
  CHECK(rebuilds.applied == 4);
  std::string t3 = f.NewTenant("C");
  rebuilds.version = 2;
  {
    // One reader from the earliest checkpoint (the rebuilding projector's: the start); the
    // other projector skips what it has and applies only the new events.
    auto runner = make();
    REQUIRE(runner->Prepare().ok());
    REQUIRE(runner->RunUntilCaughtUp().ok());
    CHECK(runner->EventsApplied("resumes") == 2);
    CHECK(runner->EventsApplied("rebuilds") == 6);
    for (uint32_t p = 0; p < f.rt->log().PartitionCount(); ++p) {
      CHECK(runner->AppliedOffsets("resumes")[p] == runner->AppliedOffsets("rebuilds")[p]);
    }
  }
  CHECK(resumes.applied == 6);
  CHECK(rebuilds.applied == 10);
  for (const auto& t : {t1, t2, t3}) {
    CHECK(count_of("resumes", t) == 2);
    CHECK(count_of("rebuilds", t) == 2);
  }
}

TEST_CASE("replay determinism: a rebuild equals the live read model byte for byte") {
  RuntimeFixture f;
  f.Open();
  f.rt->StartProjections();  // live, applying in whatever batches arrive
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      std::string t = f.NewTenant("tenant-" + std::to_string(w));
      for (int i = 0; i < 25; ++i) {
        api::KeyCreateRequest k;
        k.tenant_id = t;
        k.scopes = {"persons:read", "verification:*"};
        auto key = api::AdminKeyCreate(*f.rt, k, {"system", "test"});
        REQUIRE(key.ok());
        if (i % 3 == 0) {
          REQUIRE(api::AdminKeyRevoke(*f.rt, t, (*key)["id"].get<std::string>(), "rotate",
                                      {"system", "test"})
                      .ok());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  auto verify = api::VerifyReplay(*f.rt, {});
  REQUIRE(verify.ok());
  CHECK((*verify)["identical"] == true);
  CHECK((*verify)["projectors"][0]["rows"].get<int>() == 4 + 4 + 100 + 100);
}

TEST_CASE("projections: a write waits only for the read models it names") {
  RuntimeFixture f;
  f.Open();  // the runtime's own projections are not started: only the two runners below run
  std::string t = f.NewTenant("A");
  CountingProjector fast("fast"), slow("slow");
  auto make = [&](projections::Projector* p) {
    projections::ProjectionRunner::Options o;
    o.projector = p;
    o.log = &f.rt->log();
    o.store = &f.rt->store();
    return std::make_unique<projections::ProjectionRunner>(o);
  };
  projections::ProjectionSet set;
  set.Add(make(&fast));
  set.Add(make(&slow));
  REQUIRE(set.PrepareAll().ok());
  REQUIRE(set.runners()[0]->RunUntilCaughtUp().ok());  // "slow" has applied nothing
  auto r = f.Run(t, CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "Web"}, f.Ctx());
  REQUIRE(r.ok());
  REQUIRE(set.runners()[0]->RunUntilCaughtUp().ok());

  CHECK(set.AllApplied(r->positions, {"fast"}));
  CHECK_FALSE(set.AllApplied(r->positions, {"slow"}));
  CHECK_FALSE(set.AllApplied(r->positions));  // no names: every projector
  CHECK(set.AllApplied(r->positions, {"not-a-projector-of-this-set"}));

  std::promise<bool> named, every;
  set.WhenApplied(r->positions, {"fast"}, std::chrono::seconds(10), [&](bool ok) { named.set_value(ok); });
  CHECK(named.get_future().get());  // answered at once, without waiting for "slow"
  set.WhenApplied(r->positions, std::chrono::milliseconds(1), [&](bool ok) { every.set_value(ok); });
  CHECK_FALSE(every.get_future().get());  // "slow" never ran: the deadline answers
}

TEST_CASE("projections: a view's scan sees the store and the batch's own writes, in key order") {
  testing::TempDir dir;
  eventstore::KvStore::Options so;
  so.path = dir.Sub("db");
  so.column_families = {"views"};
  auto store = eventstore::KvStore::Open(so);
  REQUIRE(store.ok());
  const int cf = (*store)->Cf("views");
  eventstore::KvStore::Batch b;
  for (const char* k : {"v/r/a", "v/r/c", "v/r/e", "v/r/g", "v/s/x"}) b.Put(cf, k, std::string("stored ") + k);
  REQUIRE((*store)->Write(b, true).ok());

  projections::ViewWriter view(store->get(), cf, "v/");
  view.Put("r/b", "pending b");   // new in this batch
  view.Put("r/c", "pending c");   // rewritten in this batch
  view.Delete("r/e");             // deleted in this batch
  view.Put("r/h", "pending h");
  view.Put("s/y", "outside");
  auto scan = [&](std::string_view from, std::string_view to) {
    std::vector<std::string> seen;
    REQUIRE(view.Scan(from, to, [&](std::string_view k, std::string_view v) {
                    seen.push_back(std::string(k) + "=" + std::string(v));
                    return true;
                  }).ok());
    return seen;
  };
  CHECK(scan("r/", "r0") == std::vector<std::string>{"r/a=stored v/r/a", "r/b=pending b", "r/c=pending c",
                                                       "r/g=stored v/r/g", "r/h=pending h"});
  CHECK(scan("r/c", "r/h") == std::vector<std::string>{"r/c=pending c", "r/g=stored v/r/g"});
  // A visitor may delete what it visits (a retention sweep does): nothing is visited twice and
  // later deletions are honoured.
  std::vector<std::string> visited;
  REQUIRE(view.Scan("r/", "r0", [&](std::string_view k, std::string_view) {
                visited.emplace_back(k);
                view.Delete(k);
                if (k == "r/a") view.Delete("r/g");
                return true;
              }).ok());
  CHECK(visited == std::vector<std::string>{"r/a", "r/b", "r/c", "r/h"});
  CHECK(scan("r/", "r0").empty());
  // Stopping early.
  int n = 0;
  REQUIRE(view.Scan("", "~", [&](std::string_view, std::string_view) { return ++n < 2; }).ok());
  CHECK(n == 2);
}

namespace {
// Writes one row, for the first event it sees, and none after: the shape of a projector most events
// of a runner do not concern.
class MostlySilentProjector final : public projections::Projector {
 public:
  int applied = 0;
  std::string_view Name() const override { return "silent"; }
  int Version() const override { return 1; }
  core::Status Apply(const eventstore::RecordedEvent&, projections::ViewWriter& view) override {
    if (applied++ == 0) view.Put("first", "seen");
    return core::Status::Ok();
  }
};
}  // namespace

TEST_CASE("projections: a member that writes no row saves its checkpoint lazily; a clean stop saves it") {
  RuntimeFixture f;
  f.Open();
  f.NewTenant("A");
  CountingProjector counting;
  MostlySilentProjector silent;
  auto make = [&] {
    projections::ProjectionRunner::Options o;
    o.projectors = {&counting, &silent};
    o.log = &f.rt->log();
    o.store = &f.rt->store();
    o.batch_events = 1;
    return std::make_unique<projections::ProjectionRunner>(o);
  };
  const int meta = f.rt->store().Cf(projections::kProjectionsCf);
  REQUIRE(meta >= 0);
  auto stored = [&](const std::string& name) {
    std::vector<uint64_t> out;
    for (uint32_t p = 0; p < f.rt->log().PartitionCount(); ++p) {
      std::string key = name + "/ckpt/";
      eventstore::PutFixed32BE(key, p);
      auto v = f.rt->store().Get(meta, key);
      out.push_back(v.ok() && v->has_value() ? eventstore::DecodeCheckpoint(**v).next_offset : 0);
    }
    return out;
  };
  auto runner = make();
  REQUIRE(runner->Prepare().ok());
  runner->Start();
  std::vector<eventstore::LogPosition> last;
  for (int i = 0; i < 5; ++i) {
    auto r = f.Run(f.NewTenant("T" + std::to_string(i)), CreateApplication{f.ids.NewIdString(core::IdKind::kApplication), "Web"}, f.Ctx());
    REQUIRE(r.ok());
    last = r->positions;
  }
  auto end = f.rt->log().EndOffsets();
  REQUIRE(end.ok());
  std::vector<eventstore::LogPosition> all;
  for (uint32_t p = 0; p < end->size(); ++p) {
    if ((*end)[p] > 0) all.push_back({p, (*end)[p] - 1});
  }
  REQUIRE(runner->WaitApplied(all, std::chrono::seconds(10)));
  CHECK(runner->AppliedOffsets("silent") == *end);
  // The row-writing member's checkpoint went with its rows; the silent one's waits (a crash now
  // would make it re-apply those events, which changed none of its rows).
  CHECK(stored("counting") == *end);
  CHECK(stored("silent") != *end);
  runner->Stop();
  CHECK(stored("silent") == *end);
  const int counted = counting.applied, silent_applied = silent.applied;
  auto again = make();
  REQUIRE(again->Prepare().ok());
  REQUIRE(again->RunUntilCaughtUp().ok());
  CHECK(counting.applied == counted);  // a clean restart re-applies nothing
  CHECK(silent.applied == silent_applied);
}

}  // namespace projections_runner_test
