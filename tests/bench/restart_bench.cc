// The loading half of the restart benchmark (scripts/bench.d/restart.sh): fills a data directory
// with EVENTS person creations (one event each) through the real runtime, its write side and its
// read models running as in a server, then ends the process without stopping anything, as a
// kill -9 would: the read models' and the write model's last batches (written without RocksDB's
// write-ahead log) are lost and must be re-applied from the log at the next start, which the
// script times until /readyz answers 200.
//   svc_bench_restart DATA_DIR EVENTS [BROKERS]   (BROKERS: the Kafka log on those brokers)
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "api/http/runtime.h"
#include "api/server/modules.h"
#include "api/server/admin.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/persons/person_writes.h"

using namespace svc;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc < 3 || !core::InitCrypto().ok()) {
    std::fprintf(stderr, "usage: svc_bench_restart DATA_DIR EVENTS [BROKERS]\n");
    return 2;
  }
  core::SetLogLevel(core::LogLevel::kWarn);
  const std::string dir = argv[1];
  const int64_t events = std::atoll(argv[2]);
  api::RuntimeOptions ro;
  ro.modules = api::AllModules();
  ro.data_dir = dir;
  ro.keys.dev_keys_in_data_dir = true;
  ro.durability = eventstore::Durability::kOs;  // loading; the log is on disk before each answer all the same
  ro.threads = 2;
  if (argc > 3) {
    ro.log_backend = "kafka";
    ro.kafka_brokers = argv[3];
  }
  auto rt_or = api::Runtime::Open(ro);
  if (!rt_or.ok()) {
    std::fprintf(stderr, "%s\n", rt_or.status().ToString().c_str());
    return 1;
  }
  auto rt = std::move(rt_or).value();
  rt->StartProjections();
  auto tenant = api::AdminTenantCreate(*rt, "Restart bench", {"system", "bench"});
  if (!tenant.ok()) return 1;
  const std::string tenant_id = (*tenant)["id"];
  const std::string app = (*tenant)["defaultApplicationId"];

  // 64 callers, one creation in flight each.
  std::atomic<int64_t> issued{0}, done{0};
  std::mutex mu;
  std::condition_variable cv;
  std::function<void()> next = [&] {
    const int64_t n = issued.fetch_add(1);
    if (n >= events) {
      std::lock_guard lock(mu);
      cv.notify_all();
      return;
    }
    commands::CommandContext ctx = commands::SystemContext(rt->clock().Now(), &rt->ids(), "bench", "test");
    const std::string person = rt->ids().NewIdString(core::IdKind::kPerson);
    pipeline::persons::PiiWrite w;
    w.source = {"api", "", ""};
    pipeline::persons::CreatePersonCommandAsync(
        rt->key_store(), {tenant_id, "test", person}, app, "bench-" + std::to_string(n), w, ctx,
        [&](core::Result<commands::Command> cmd) {
          if (!cmd.ok()) std::exit(1);
          rt->writer().Execute(std::move(*cmd), [&](core::Result<commands::CommandOutcome> r) {
            if (!r.ok()) {
              std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
              std::exit(1);
            }
            done.fetch_add(1);
            next();
          });
        });
  };
  const auto t0 = Clock::now();
  for (int c = 0; c < 64; ++c) next();
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done.load() >= events; });
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("restart: loaded %lld person creations (%s log) in %.1fs (%.0f/s)\n", static_cast<long long>(events),
              rt->log().BackendName().c_str(), secs, events / secs);
  std::fflush(stdout);
  _exit(0);  // no shutdown: what a kill -9 leaves
}
