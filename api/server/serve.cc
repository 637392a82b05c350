// `svc serve`: opens the runtime with every module (modules.h), starts each module's services,
// serves the public API, the modules' pages and the admin socket, and stops in order on
// SIGINT/SIGTERM.

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <iostream>
#include <thread>

#include "api/http/http_server.h"
#include "api/http/openapi.h"
#include "api/http/credential_guard.h"
#include "api/http/public_api.h"
#include "api/http/recovery_gate.h"
#include "api/http/runtime.h"
#include "api/http/module.h"
#include "api/server/admin.h"
#include "api/server/cli.h"
#include "api/server/commands.h"
#include "api/server/modules.h"
#include "core/crypto.h"
#include "core/executor.h"
#include "core/log.h"
#include "pipeline/periodic.h"

namespace svc::api::cli {
namespace {

void DeclareServe(Flags& f) {
  DeclareCommon(f);
  f.Declare({"listen", "127.0.0.1:8080", "HTTP address (host:port; port 0 picks a free port)"});
  f.Declare({"roles", "all",
             "what this process runs: all, or some of api, writer, projector, pipeline, webhooks, timers "
             "(comma-separated); roles split over processes only on --log-backend kafka (docs/operations.md#roles)"});
  f.Declare({"node-id", "",
             "this node's name in GET /node and the logs (default: one made at the first start and kept in the "
             "data directory)"});
  f.Declare({"admin-socket", "", "unix socket of the admin listener (default <data-dir>/admin.sock)"});
  f.Declare({"port-file", "", "write the bound HTTP port to this file once listening (with --dev-bootstrap, once the development key is printed)"});
  f.Declare({"dev-bootstrap", "false",
             "on first start, create a development tenant and print its test secret key",
             true});
  f.Declare({"max-body-bytes", "1048576", "largest accepted request body"});
  f.Declare({"read-timeout-ms", "30000", "per-request read timeout and keep-alive idle timeout"});
  f.Declare({"header-timeout-ms", "10000",
             "a request's header must be whole this long after its first byte (at most --read-timeout-ms)"});
  f.Declare({"public-base-url", "",
             "external base URL (hosted verification links, media links, problem type links); default: "
             "http://<--listen host>:<bound port> (127.0.0.1 for a listen on every interface)"});
  f.Declare({"rate-reads", "100", "read requests per second per API key (burst: twice that); 0 = off"});
  f.Declare({"rate-writes", "50", "write requests per second per API key (burst: twice that); 0 = off"});
  f.Declare({"session-ttl-seconds", "86400", "verification sessions expire this long after creation"});
  f.Declare({"guard-requests-per-second", "20",
             "routes whose credential is no API key (sign-in, embedded and hosted init, media links, client "
             "tokens): requests per second per source address and route (burst: twice that); 0 = off "
             "(docs/operations.md#credential-guard)"});
  f.Declare({"guard-failures-per-minute", "20",
             "those routes: refused credentials per minute per source address and route before the source gets 429"});
  f.Declare({"guard-target-failures-per-minute", "10",
             "those routes: refused credentials per minute against one session or token before it gets 429"});
  f.Declare({"guard-key-failures-per-minute", "60",
             "API keys, applicant tokens and reviewer tokens: refused credentials per minute per source address "
             "before that source's requests with that kind of credential get 429 (a credential accepted from it "
             "lately still passes); 0 = off"});
  f.Declare({"client-ip-header", "",
             "behind a proxy: the header whose first address is the client's (e.g. X-Forwarded-For); empty: the "
             "peer address"});
  f.Declare({"debug-delay-projections-ms", "0",
             "tests only: the read models start this long after the listener opens (the recovery gate's window, "
             "made wide)"});
  f.Declare({"debug-clock-offset-seconds", "0",
             "TESTS ONLY: this node's wall clock reads the machine's plus this many seconds (a node whose clock "
             "is wrong; tests/cluster/history.py)"});
  f.Declare({"debug-hold-commands", "",
             "TESTS ONLY: aggregate types (comma-separated) whose commands the writer holds and never decides, "
             "so a kill -9 meets the steps before them durable and theirs not"});
  f.Declare({"flush-interval-seconds", "5",
             "flush RocksDB's memtables this often: the rows derived from the log that a kill -9 takes back, and a "
             "restart re-applies from the log, are at most this old (docs/operations.md#start-up); 0: only when full"});
  f.Declare({"recovery-wait-ms", "30000",
             "after a restart, how long a request waits for the read models to catch up with the log before "
             "it is answered 503 with Retry-After (docs/operations.md#start-up)"});
  f.Declare({"fake-clock", "false",
             "TESTS ONLY: start a clock at the current time that moves only when the admin socket "
             "says (POST /admin/clock {\"advanceSeconds\": N}); never in production",
             true});
  f.Declare({"fake-clock-at", "",
             "TESTS ONLY: with --fake-clock, the RFC 3339 time it starts at (default: now), for tests whose "
             "dates matter (business-day deadlines)"});
  for (const Module* m : AllModules()) {
    if (m->declare_flags != nullptr) m->declare_flags(f);
  }
}

// This node's name: --node-id, else the one kept in the data directory (made at the first start).
std::string NodeId(Runtime& rt, const Flags& f) {
  if (!f.Get("node-id").empty()) return f.Get("node-id");
  int meta = rt.store().Cf("default");
  auto kept = rt.store().Get(meta, "node/id");
  if (kept.ok() && kept->has_value()) return **kept;
  std::string id = "node-" + core::HexEncode(core::RandomBytes(4));
  eventstore::KvStore::Batch b;
  b.Put(meta, "node/id", id);
  rt.store().Write(b, true).IgnoreError();
  return id;
}

// GET /node: what this node is and runs: its roles, the log partitions whose commands it decides,
// its jobs, and whether it serves (docs/operations.md#roles).
struct NodeInfo {
  std::string id;
  const Roles* roles = nullptr;
  std::vector<std::string> jobs;
  // With --dev-bootstrap: false until the development tenant and key exist (and the read models
  // have them), so that /readyz does not say ready before the key it prints works (issue 67).
  std::shared_ptr<std::atomic<bool>> bootstrapped = std::make_shared<std::atomic<bool>>(true);
};

core::Json NodeJson(Runtime& rt, const NodeInfo& node, bool ready,
                    const std::vector<std::unique_ptr<AreaServices>>& areas) {
  core::Json owned = core::Json::array();
  for (uint32_t p : rt.writer().Deciding()) owned.push_back(p);
  core::Json roles = core::Json::array();
  for (const auto& r : node.roles->Names()) roles.push_back(r);
  core::Json jobs = core::Json::array();
  for (const auto& j : node.jobs) jobs.push_back(j);
  core::Json out{{"object", "node"},
                 {"id", node.id},
                 {"roles", std::move(roles)},
                 {"backend", rt.log().BackendName()},
                 {"partitions", {{"count", rt.log().PartitionCount()}, {"owned", std::move(owned)}}},
                 {"jobs", std::move(jobs)},
                 {"ready", ready}};
  for (const auto& area : areas) area->DescribeNode(out);
  return out;
}

HttpResponse Metrics(Runtime& rt) {
  // Projector lag = events in the log not yet applied, per projector.
  auto ends = rt.log().EndOffsets();
  for (const auto& r : rt.projections().runners()) {
    for (std::string_view name : r->Names()) {
      int64_t lag = 0;
      if (ends.ok()) {
        auto applied = r->AppliedOffsets(name);
        for (size_t p = 0; p < ends->size() && p < applied.size(); ++p) {
          lag += static_cast<int64_t>((*ends)[p]) - static_cast<int64_t>(applied[p]);
        }
      }
      rt.metrics()
          .GetGauge("svc_projection_lag_events", "Events in the log a projector has not applied",
                    "projector=\"" + std::string(name) + "\"")
          .Set(lag);
    }
  }
  // What a soak watches for growth (scripts/soak): the store's disk, memory and compaction debt,
  // summed over its column families, and the process's resident memory and open descriptors.
  auto store_gauge = [&rt](const char* metric, const char* help, const char* property) {
    const std::string v = rt.store().Property(property);
    rt.metrics().GetGauge(metric, help).Set(v.empty() ? 0 : std::strtoll(v.c_str(), nullptr, 10));
  };
  store_gauge("svc_rocksdb_live_sst_bytes", "Bytes of the store's live SST files", "rocksdb.live-sst-files-size");
  store_gauge("svc_rocksdb_pending_compaction_bytes", "Bytes RocksDB estimates compaction must rewrite (its debt)",
              "rocksdb.estimate-pending-compaction-bytes");
  // Flushes and compactions running now: a benchmark waits for 0 before it measures (the work a
  // burst leaves behind is not the load it measures: scripts/bench.d/open_loop.sh).
  rt.metrics()
      .GetGauge("svc_rocksdb_background_jobs", "Flushes and compactions RocksDB is running")
      .Set(std::strtoll(rt.store().Property("rocksdb.num-running-compactions").c_str(), nullptr, 10) +
           std::strtoll(rt.store().Property("rocksdb.num-running-flushes").c_str(), nullptr, 10));
  store_gauge("svc_rocksdb_memtable_bytes", "Bytes of the store's memtables", "rocksdb.cur-size-all-mem-tables");
  // Rows not yet in a table file: those written without a write-ahead log are what a kill -9
  // takes back (--flush-interval-seconds bounds how long they wait).
  const std::string active = rt.store().Property("rocksdb.num-entries-active-mem-table");
  const std::string immutable = rt.store().Property("rocksdb.num-entries-imm-mem-tables");
  rt.metrics()
      .GetGauge("svc_rocksdb_memtable_entries", "Rows in the store's memtables, not yet flushed to a table file")
      .Set(std::strtoll(active.c_str(), nullptr, 10) + std::strtoll(immutable.c_str(), nullptr, 10));
  // What the open table files' readers hold outside the block cache (their index and filter
  // blocks are in the cache since the soak showed them growing with the data, ~4 % of it).
  store_gauge("svc_rocksdb_table_readers_bytes", "Bytes RocksDB estimates its open table files' readers hold "
              "outside the block cache", "rocksdb.estimate-table-readers-mem");
  // The block cache, with the tables' index and filter blocks in it (--cache-mib bounds it).
  store_gauge("svc_rocksdb_block_cache_bytes", "Bytes in RocksDB's block cache (data, index and filter blocks)",
              "rocksdb.block-cache-usage");
  int64_t fds = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    ++fds;
  }
  rt.metrics().GetGauge("svc_process_open_fds", "Open file descriptors of this process").Set(fds);
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    long size = 0, resident = 0;
    if (std::fscanf(f, "%ld %ld", &size, &resident) == 2) {
      rt.metrics().GetGauge("svc_process_resident_bytes", "Resident memory of this process").Set(
          static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE));
    }
    std::fclose(f);
  }
  HttpResponse resp;
  resp.content_type = "text/plain; version=0.0.4";
  resp.body = rt.metrics().RenderPrometheus();
  return resp;
}

std::shared_ptr<Router> PublicRouter(Runtime& rt, PublicApi& public_api, RecoveryGate& gate,
                                     const std::vector<std::unique_ptr<AreaServices>>& areas, const NodeInfo& node) {
  auto router = std::make_shared<Router>();
  const bool api = node.roles->Has(Role::kApi), reads = node.roles->Has(Role::kProjector);
  if (api) {
    public_api.Register(*router, OpenApiDocument(public_api.routes(), public_api.options().public_base_url));
    for (const auto& area : areas) area->AddPages(*router, rt, public_api.options());
  }
  // Ready: nothing halted, and the read models (where this node builds them) caught up.
  auto ready = [&rt, &gate, reads, bootstrapped = node.bootstrapped]() -> std::optional<std::string> {
    if ((reads && rt.projections().AnyFailed()) || !rt.writer().Healthy()) {
      return "a projection or the write side has halted";
    }
    if (reads && !gate.IsOpen()) return "read models are still catching up with the log";
    if (!bootstrapped->load()) return "the development tenant and key are being made";
    return std::nullopt;
  };
  router->Add("GET", "/healthz", Sync([](HttpRequest&) {
                return JsonResponse(200, {{"status", "ok"}});
              }));
  router->Add("GET", "/readyz", Sync([ready](HttpRequest& req) {
                if (auto why = ready()) return Problem(req, "SERVICE_UNAVAILABLE", *why);
                return JsonResponse(200, {{"status", "ready"}});
              }));
  router->Add("GET", "/node", Sync([&rt, &node, &areas, ready](HttpRequest&) {
                return JsonResponse(200, NodeJson(rt, node, !ready().has_value(), areas));
              }));
  router->Add("GET", "/metrics", Sync([&rt](HttpRequest&) { return Metrics(rt); }));
  router->Add("GET", "/docs/errors", Sync([](HttpRequest&) {
                HttpResponse r;
                r.content_type = "text/markdown; charset=utf-8";
                r.body = ErrorCatalogueMarkdown();
                return r;
              }));
  return router;
}

void DevBootstrap(Runtime& rt) {
  int meta = rt.store().Cf("default");
  auto marker = rt.store().Get(meta, "dev/bootstrap-tenant");
  if (marker.ok() && marker->has_value()) {
    std::cout << "Development tenant: " << **marker
              << " (its key was shown when it was created; make another with "
                 "`svc admin key create --tenant "
              << **marker << " --env test`)" << std::endl;
    return;
  }
  eventstore::Actor actor{"system", "dev-bootstrap"};
  auto tenant = AdminTenantCreate(rt, "Development", actor);
  if (!tenant.ok()) {
    core::LogError("dev bootstrap failed", {{"error", tenant.status().ToString()}});
    return;
  }
  KeyCreateRequest k;
  k.tenant_id = (*tenant)["id"].get<std::string>();
  k.environment = "test";
  k.key_type = "secret";
  k.scopes = {"*"};
  k.name = "development";
  auto key = AdminKeyCreate(rt, k, actor);
  if (!key.ok()) {
    core::LogError("dev bootstrap failed", {{"error", key.status().ToString()}});
    return;
  }
  eventstore::KvStore::Batch b;
  b.Put(meta, "dev/bootstrap-tenant", k.tenant_id);
  rt.store().Write(b, true).IgnoreError();
  std::cout << "Development tenant created: " << k.tenant_id << "\n"
            << "Test secret key (shown once, keep it): " << (*key)["secret"].get<std::string>()
            << std::endl;
}

}  // namespace

int Serve(int argc, char** argv) {
  Flags f;
  DeclareServe(f);
  if (auto st = f.Parse(argc, argv, 2); !st.ok()) return Fail(st);
  if (f.HelpRequested()) {
    std::cout << f.Help("svc serve [flags]");
    return 0;
  }
  ApplyLogLevel(f);
  auto ro = RuntimeOptionsFrom(f);
  if (!ro.ok()) return Fail(ro.status());
  const std::string held_flag = f.Get("debug-hold-commands");
  for (std::string_view held = held_flag; !held.empty();) {
    const auto comma = held.find(',');
    ro->debug_hold_commands.emplace_back(held.substr(0, comma));
    held = comma == std::string_view::npos ? std::string_view() : held.substr(comma + 1);
  }
  if (!ro->debug_hold_commands.empty()) core::LogWarn("--debug-hold-commands: some commands are never decided; tests only");
  if (const std::string offset = f.Get("debug-clock-offset-seconds"); offset != "0") {
    int64_t seconds = 0;
    try {
      seconds = std::stoll(offset);
    } catch (...) {
      return Fail(core::InvalidArgument("--debug-clock-offset-seconds: a whole number of seconds"));
    }
    core::SystemClock::SetOffsetForTests(seconds * 1'000'000);
    core::LogWarn("--debug-clock-offset-seconds: this node's wall clock is set off on purpose; tests only",
                  {{"seconds", seconds}});
  }

  auto roles = Roles::Parse(f.GetAll("roles"), ro->log_backend, ro->kafka_writers);
  if (!roles.ok()) return Fail(roles.status());
  ro->write = roles->Has(Role::kWriter);
  if (f.GetBool("dev-bootstrap") && !roles->Has(Role::kWriter)) {
    return Fail(core::InvalidArgument("--dev-bootstrap creates a tenant: it needs the writer role"));
  }

  std::string listen = f.Get("listen");
  std::chrono::milliseconds recovery_wait{30000};
  std::chrono::milliseconds delay_projections{0};
  std::chrono::milliseconds flush_interval{0};
  CredentialGuardLimits guard_limits;
  for (char c : f.Get("client-ip-header")) {
    guard_limits.client_ip_header.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return Fail(core::InvalidArgument("--listen must be host:port"));
  HttpServer::Options ho;
  ho.host = listen.substr(0, colon);
  ApiContext po;
  try {
    ho.port = static_cast<uint16_t>(std::stoul(listen.substr(colon + 1)));
    ho.body_limit = std::stoul(f.Get("max-body-bytes"));
    ho.read_timeout = std::chrono::milliseconds(std::stoul(f.Get("read-timeout-ms")));
    ho.header_timeout = std::chrono::milliseconds(std::stoul(f.Get("header-timeout-ms")));
    po.limits.reads.per_second = std::stod(f.Get("rate-reads"));
    po.limits.reads.burst = po.limits.reads.per_second * 2;
    po.limits.writes.per_second = std::stod(f.Get("rate-writes"));
    po.limits.writes.burst = po.limits.writes.per_second * 2;
    po.limits.session_ttl_seconds = std::stoll(f.Get("session-ttl-seconds"));
    recovery_wait = std::chrono::milliseconds(std::stoul(f.Get("recovery-wait-ms")));
    flush_interval = std::chrono::seconds(std::stoul(f.Get("flush-interval-seconds")));
    delay_projections = std::chrono::milliseconds(std::stoul(f.Get("debug-delay-projections-ms")));
    guard_limits.requests_per_second = std::stod(f.Get("guard-requests-per-second"));
    guard_limits.requests_burst = guard_limits.requests_per_second * 2;
    guard_limits.source_failures_per_minute = std::stod(f.Get("guard-failures-per-minute"));
    guard_limits.target_failures_per_minute = std::stod(f.Get("guard-target-failures-per-minute"));
    guard_limits.key_failures_per_minute = std::stod(f.Get("guard-key-failures-per-minute"));
  } catch (...) {
    return Fail(core::InvalidArgument(
        "bad --listen port, --max-body-bytes, --read-timeout-ms, --header-timeout-ms, --rate-reads, --rate-writes, "
        "--session-ttl-seconds, --recovery-wait-ms, --flush-interval-seconds or a --guard-* value"));
  }
  ho.threads = ro->threads;
  po.limits.max_body_bytes = ho.body_limit;
  po.public_base_url = f.Get("public-base-url");
  while (!po.public_base_url.empty() && po.public_base_url.back() == '/') po.public_base_url.pop_back();
  if (po.public_base_url.empty()) {
    // From --listen: the port bound now (port 0 picks one), so the links name where svc answers.
    auto reserved = HttpServer::Reserve(ho.host, ho.port);
    if (!reserved.ok()) return Fail(reserved.status());
    ho.reserved_fd = *reserved;
    const bool any = ho.host == "0.0.0.0" || ho.host == "::";
    const std::string host = any ? "127.0.0.1" : ho.host.find(':') != std::string::npos ? "[" + ho.host + "]" : ho.host;
    po.public_base_url = "http://" + host + ":" + std::to_string(ho.port);
  }

  sigset_t sigs = BlockStopSignals();

  std::unique_ptr<core::FakeClock> fake_clock;
  if (f.GetBool("fake-clock")) {
    core::Timestamp start = core::SystemClock().Now();
    if (const std::string at = f.Get("fake-clock-at"); !at.empty()) {
      auto parsed = core::ParseRfc3339(at);
      if (!parsed.ok()) return Fail(core::InvalidArgument("--fake-clock-at must be an RFC 3339 time"));
      start = *parsed;
    }
    fake_clock = std::make_unique<core::FakeClock>(start);
    ro->clock = fake_clock.get();
    core::LogWarn("--fake-clock: time moves only through the admin socket; tests only");
  }
  auto rt_or = Runtime::Open(*ro);
  if (!rt_or.ok()) return Fail(rt_or.status());
  auto rt = std::move(rt_or).value();
  // Rows derived from the log are written without a WAL: a kill -9 takes back what the memtables
  // hold, and the restart re-applies it from the log (on Kafka, re-reading the topic: 25-43 s
  // when RocksDB flushed only full memtables, BENCHMARKS.md#soak-hour-kafka). Flushing every
  // --flush-interval-seconds bounds that. Stops before the runtime goes.
  std::unique_ptr<pipeline::PeriodicThread> periodic_flush;
  if (flush_interval.count() > 0) {
    periodic_flush = std::make_unique<pipeline::PeriodicThread>("memtable-flush", flush_interval, [&rt] {
      if (auto st = rt->store().Flush(); !st.ok()) core::LogWarn("periodic flush failed", {{"error", st.ToString()}});
    });
    periodic_flush->Start();
  }
  const bool reads = roles->Has(Role::kProjector);
  if (reads && delay_projections.count() <= 0) rt->StartProjections();
  NodeInfo node{NodeId(*rt, f), &*roles, {}};
  if (f.GetBool("dev-bootstrap")) node.bootstrapped->store(false);
  // A writer node of a cluster whose partition halts (its unit's transaction kept failing, its
  // store refused a commit) stops: the graceful stop leaves the writers' group, so another node
  // takes its partitions at once, where the node would otherwise keep them and answer 503 for
  // their tenants on every node until someone restarted it (issue 67). The exit code says so.
  std::atomic<bool> halted{false};
  if (ro->log_backend == "kafka" && ro->kafka_writers == "group" && roles->Has(Role::kWriter)) {
    rt->writer().OnHalt([&halted](uint32_t partition, const std::string& why) {
      halted.store(true);
      core::LogError("a partition this node writes halted after an event-log failure: stopping this node so that the "
                     "writers' group gives its partitions to another (restart it once the cause is fixed)",
                     {{"partition", partition}, {"error", why}});
      ::kill(::getpid(), SIGTERM);
    });
  }
  if (ro->log_backend == "kafka" && ro->kafka_writers == "group") {
    // Commands travel to their partition's writer; a writer's partitions arrive with the group's
    // first rebalance.
    if (auto st = rt->StartCluster(node.id, roles->Has(Role::kWriter)); !st.ok()) return Fail(st);
  }
  auto service_key = LoadServiceKey(ro->data_dir, ro->keys, /*create=*/true);
  if (!service_key.ok()) return Fail(service_key.status());

  // Every area's process managers, timers and adapters. Declared before the servers: the
  // listeners stop (and open streams end) before the areas do.
  core::ThreadPool work_pool(std::max<size_t>(2, ro->threads));
  // Before anything appends: the log's end now is what the read models must reach before a
  // request is answered (after a crash they re-apply their last batches).
  RecoveryGate gate(*rt, work_pool, recovery_wait);
  CredentialGuard guard(guard_limits, rt->clock(), rt->metrics(), core::DeriveSubkey(rt->seal_key(), "svc/credential-guard/v1"));
  po.credential_guard = &guard;
  po.work_pool = &work_pool;
  ServeSetup setup{*rt, f, po, ho, fake_clock.get(), work_pool, ro->threads, *roles, node.jobs, node.id};
  std::vector<std::unique_ptr<AreaServices>> areas;
  std::vector<const Module*> area_modules;  // areas[i] is area_modules[i]'s
  auto stop_areas = [&areas] {
    for (auto it = areas.rbegin(); it != areas.rend(); ++it) (*it)->Stop();
    areas.clear();
  };
  for (const Module* m : AllModules()) {
    if (m->services == nullptr) continue;
    areas.push_back(m->services());
    area_modules.push_back(m);
    if (auto st = areas.back()->Start(setup); !st.ok()) {
      stop_areas();
      return Fail(st);
    }
  }

  SetProblemTypeBase(po.public_base_url + "/docs/errors");
  std::vector<ApiRoute> routes;  // every area's, in the modules' order, once all have started
  for (size_t i = 0; i < areas.size(); ++i) {
    auto area_routes = AreaRoutes(*area_modules[i], *areas[i], rt.get(), po);
    if (!area_routes.ok()) {
      stop_areas();
      return Fail(area_routes.status());
    }
    for (auto& r : *area_routes) routes.push_back(std::move(r));
  }
  PublicApi public_api(*rt, po, std::move(routes));
  auto public_router = PublicRouter(*rt, public_api, gate, areas, node);
  if (reads) gate.Guard(*public_router);
  HttpServer server(ho, public_router, &rt->ids());
  if (auto st = server.Start(); !st.ok()) {
    stop_areas();
    return Fail(st);
  }

  auto admin_router = std::make_shared<Router>();
  AddAdminRoutes(*admin_router, *rt, *service_key);
  const std::string& sk = *service_key;
  if (fake_clock) {
    admin_router->Add("POST", "/admin/clock", AdminRoute(sk, [&](HttpRequest& req) -> core::Result<core::Json> {
      SVC_ASSIGN_OR_RETURN(core::Json body, AdminBody(req));
      int64_t seconds = core::IntOr(body, "advanceSeconds", -1);
      if (seconds < 0) return core::InvalidArgument("advanceSeconds must be a non-negative integer", "VALIDATION_ERROR");
      fake_clock->AdvanceSeconds(seconds);
      core::Json answer{{"now", core::FormatRfc3339(fake_clock->Now())}};
      for (auto& area : areas) {  // timers fire as the clock moves
        SVC_ASSIGN_OR_RETURN(auto fired, area->ClockAdvanced());
        answer.update(fired);
      }
      return answer;
    }));
  }
  for (auto& area : areas) area->AddAdminRoutes(*admin_router, sk);
  if (reads) gate.Guard(*admin_router);
  HttpServer::Options ao;
  ao.tcp = false;
  ao.unix_socket = f.Get("admin-socket").empty()
                       ? (std::filesystem::path(ro->data_dir) / "admin.sock").string()
                       : f.Get("admin-socket");
  ao.threads = 1;
  HttpServer admin(ao, admin_router, &rt->ids());
  if (auto st = admin.Start(); !st.ok()) {
    server.Stop();
    stop_areas();
    return Fail(st);
  }

  core::Json role_names = core::Json::array();
  for (const auto& r : roles->Names()) role_names.push_back(r);
  core::LogInfo("listening", {{"port", server.BoundPort()},
                              {"node", node.id},
                              {"roles", std::move(role_names)},
                              {"host", ho.host},
                              {"adminSocket", ao.unix_socket},
                              {"dataDir", ro->data_dir},
                              {"backend", rt->log().BackendName()}});
  std::thread delayed_projections;
  if (reads && delay_projections.count() > 0) {
    core::LogWarn("--debug-delay-projections-ms: the read models start late; tests only");
    delayed_projections = std::thread([&rt, delay_projections] {
      std::this_thread::sleep_for(delay_projections);  // fault injection, not synchronisation
      rt->StartProjections();
    });
  }
  // Before the port file: whoever waits for it (scripts, benchmarks) then finds the development
  // key already printed.
  if (f.GetBool("dev-bootstrap")) {
    DevBootstrap(*rt);
    node.bootstrapped->store(true);  // ready from now on (if the rest is)
  }
  if (std::string pf = f.Get("port-file"); !pf.empty()) {
    std::string tmp = pf + ".tmp";
    { std::ofstream(tmp) << server.BoundPort() << "\n"; }
    std::filesystem::rename(tmp, pf);
  }

  int sig = 0;
  sigwait(&sigs, &sig);
  if (delayed_projections.joinable()) delayed_projections.join();
  core::LogInfo("shutting down", {{"signal", sig}});
  server.Stop();
  admin.Stop();
  stop_areas();
  rt->Shutdown();
  core::LogInfo("stopped");
  return halted.load() ? 3 : 0;
}

}  // namespace svc::api::cli
