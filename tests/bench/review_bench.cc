// Benchmark seeding (not a test): the review queue at scale. Makes a data directory with a tenant,
// a review:* key and CASES open review cases, recorded through the real write side (one
// review.case_opened per case, durable) and projected, so that scripts/bench.d/review.sh can serve
// it with `svc serve` and measure the queue page and claims with wrk.
//   svc_bench_review DATA_DIR CASES
// Prints one JSON line: {"key": "...", "tenantId": "...", "cases": n, "seedSeconds": s}; writes the
// case ids, one per line, to DATA_DIR/../case-ids.txt, and 64 more review:* keys (64 reviewers
// for the contention run) to DATA_DIR/../reviewer-keys.txt.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>

#include "api/http/http_client.h"
#include "api/http/runtime.h"
#include "api/server/modules.h"
#include "commands/review/case_decider.h"
#include "core/crypto.h"
#include "core/json.h"
#include "core/log.h"
#include "tests/support/svc_process.h"

using namespace svc;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: svc_bench_review DATA_DIR CASES\n");
    return 2;
  }
  if (!core::InitCrypto().ok()) return 1;
  core::SetLogLevel(core::LogLevel::kWarn);
  const std::string data = argv[1];
  const int cases = std::atoi(argv[2]);
  std::filesystem::remove_all(data);
  std::string tenant, key;
  {
    // The tenant and its key, made by a real server through its admin socket.
    testing::SvcServer server(data, {"--dev-keys-in-data-dir", "--face-engine", "model-free"});
    server.Start();
    std::string service_key;
    std::ifstream(data + "/service.key") >> service_key;
    auto admin = [&](const std::string& path, const core::Json& body) {
      auto r = api::HttpCall(server.admin_target(), "POST", path, {{"Authorization", "Bearer " + service_key}},
                             core::DumpJson(body));
      if (!r.ok() || r->status != 201) throw std::runtime_error(r.ok() ? r->body : r.status().ToString());
      return core::ParseJsonOrDiscarded(r->body);
    };
    tenant = admin("/admin/tenants", {{"name", "Review bench"}})["id"];
    key = admin("/admin/tenants/" + tenant + "/keys", {{"environment", "test"}, {"scopes", {"review:*"}}})["secret"];
    std::ofstream keys(std::filesystem::path(data).parent_path() / "reviewer-keys.txt");
    for (int i = 0; i < 64; ++i) {
      keys << admin("/admin/tenants/" + tenant + "/keys", {{"environment", "test"}, {"scopes", {"review:*"}}})["secret"]
                  .get<std::string>()
           << "\n";
    }
    server.Stop();
  }
  // The cases, through the write side of the same data directory (what the verification pipeline
  // does for each review verdict), many commands in flight.
  api::RuntimeOptions ro;
  ro.modules = api::AllModules();
  ro.data_dir = data;
  ro.keys.dev_keys_in_data_dir = true;
  ro.keys.read_existing_dev_keys = true;
  auto rt = api::Runtime::Open(ro);
  if (!rt.ok()) {
    std::fprintf(stderr, "%s\n", rt.status().ToString().c_str());
    return 1;
  }
  const auto started = Clock::now();
  std::ofstream ids(std::filesystem::path(data).parent_path() / "case-ids.txt");
  std::mutex mu;
  std::condition_variable cv;
  int in_flight = 0, done = 0, failed = 0;
  const char* priorities[] = {"low", "medium", "medium", "high", "critical"};
  for (int i = 0; i < cases; ++i) {
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return in_flight < 512; });
      ++in_flight;
    }
    const std::string id = (*rt)->ids().NewIdString(core::IdKind::kCase);
    ids << id << "\n";
    commands::review::CaseOpened opened;
    opened.session_id = (*rt)->ids().NewIdString(core::IdKind::kVerification);
    opened.tracking_id = (*rt)->ids().NewIdString(core::IdKind::kTracking);
    opened.reason = "bench";
    opened.reason_codes = {"FACE_MATCH_INCONCLUSIVE"};
    opened.priority = priorities[i % 5];
    auto ctx = commands::SystemContext((*rt)->clock().Now(), &(*rt)->ids(), "bench", "test");
    (*rt)->writer().Execute(
        commands::MakeCommand<commands::review::CaseDecider>(tenant, id,
                                                             commands::review::CaseCommand(commands::review::OpenCase{opened}),
                                                             ctx),
        [&](core::Result<commands::CommandOutcome> r) {
          std::lock_guard lock(mu);
          --in_flight;
          ++done;
          if (!r.ok()) ++failed;
          cv.notify_all();
        });
  }
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done == cases; });
  }
  if (failed > 0) {
    std::fprintf(stderr, "%d case openings failed\n", failed);
    return 1;
  }
  if (auto st = (*rt)->CatchUpProjections(); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 1;
  }
  (*rt)->Shutdown();
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  std::cout << core::DumpJson({{"key", key}, {"tenantId", tenant}, {"cases", cases}, {"seedSeconds", seconds}}) << std::endl;
  return 0;
}
