// Crash safety: kill -9 the server while it appends under load, restart it, and check that every
// acknowledged append is present exactly once and that nothing half-applied is visible.
#include <doctest/doctest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "api/http/http_client.h"
#include "api/http/runtime.h"
#include "core/json.h"
#include "eventstore/embedded_log.h"
#include "tests/support/stopped_data_dir.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace integration_crash_test {

using namespace svc;
using svc::testing::RunSvc;
using svc::testing::SvcServer;

TEST_CASE("crash safety: kill -9 under load loses no acknowledged append") {
  testing::TempDir dir;
  std::string data = dir.Sub("data");
  auto created = RunSvc({"admin", "tenant", "create", "--name", "Load", "--data-dir", data});
  REQUIRE(created.exit_code == 0);
  std::string tenant = core::ParseJsonOrDiscarded(created.out)["id"];

  SvcServer server(data);
  server.Start();
  std::string service_key;
  std::ifstream(data + "/service.key") >> service_key;
  std::map<std::string, std::string> auth = {{"Authorization", "Bearer " + service_key}};

  constexpr int kKillAfter = 300;
  std::mutex mu;
  std::set<std::string> acked;
  std::atomic<bool> killed{false};
  std::vector<std::thread> clients;
  for (int c = 0; c < 6; ++c) {
    clients.emplace_back([&] {
      while (!killed.load()) {
        auto r = api::HttpCall(server.admin_target(), "POST", "/admin/tenants/" + tenant + "/keys",
                               auth, R"({"scopes": ["persons:read"]})",
                               std::chrono::milliseconds(5000));
        if (!r.ok() || r->status != 201) continue;  // after the kill: refused or cut off
        std::lock_guard lock(mu);
        acked.insert(core::ParseJsonOrDiscarded(r->body)["id"].get<std::string>());
      }
    });
  }
  // Kill as soon as enough appends were acknowledged; clients are still sending.
  for (;;) {
    {
      std::lock_guard lock(mu);
      if (acked.size() >= kKillAfter) break;
    }
    std::this_thread::yield();
  }
  server.Kill();
  killed.store(true);
  for (auto& t : clients) t.join();
  MESSAGE("acknowledged before kill -9: " << acked.size());

  // Restart: every acknowledged key is there, once, in the read model.
  server.Start();
  auto list = api::HttpCall(server.admin_target(), "GET", "/admin/tenants/" + tenant + "/keys",
                            auth);
  REQUIRE(list.ok());
  core::Json rows = core::ParseJsonOrDiscarded(list->body)["data"];
  std::map<std::string, int> listed;
  for (const auto& row : rows) listed[row["id"].get<std::string>()]++;
  for (const auto& id : acked) CHECK_MESSAGE(listed[id] == 1, id);
  // The write model agrees: every listed key (acknowledged or not) can be revoked.
  for (const auto& [id, n] : listed) {
    CHECK(n == 1);
    auto r = api::HttpCall(server.admin_target(), "POST",
                           "/admin/tenants/" + tenant + "/keys/" + id + "/revoke", auth, "{}");
    REQUIRE(r.ok());
    CHECK_MESSAGE(r->status == 200, r->body);
  }
  server.Stop();

  // The log holds each key's creation exactly once, and the tenant's versions have no gap.
  {
    auto store = testing::OpenStoppedStore(data);
    std::map<std::string, int> created_count;
    int64_t version = 0;
    testing::ForEachLoggedEvent(store.get(), [&](const eventstore::EventEnvelope& e) {
      if (e.tenant_id != tenant) return;
      CHECK(e.aggregate_version == ++version);
      if (e.type == "tenancy.api_key_created") {
        created_count[core::ParseJsonOrDiscarded(e.data)["keyId"].get<std::string>()]++;
      }
    });
    CHECK(created_count.size() == listed.size());
    for (const auto& id : acked) CHECK(created_count[id] == 1);
  }
  // Read models equal a rebuild from the log.
  auto verify = RunSvc({"replay", "--verify", "--data-dir", data});
  CHECK_MESSAGE(verify.exit_code == 0, verify.out << verify.err);
}

}  // namespace integration_crash_test
