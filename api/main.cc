// svc: the service binary.
//
//   svc serve            run the service (HTTP API, write side, projections)
//   svc admin ...        tenants and API keys (on a stopped data directory, or through the
//                        running server's admin socket)
//   svc replay           rebuild read models from the log; --verify proves byte identity
//
// Run `svc <command> --help` for the flags of each.

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "api/admin.h"
#include "api/flags.h"
#include "api/http_client.h"
#include "pipeline/webhooks/dispatcher.h"
#include "api/http_server.h"
#include "api/openapi.h"
#include "api/public_api.h"
#include "api/replay.h"
#include "api/runtime.h"
#include "pipeline/certificate.h"
#include "pipeline/biometrics/dlib_engine.h"
#include "pipeline/biometrics/face_model.h"
#include "pipeline/expiry_timer.h"
#include "pipeline/verification/builtin_engines.h"
#include "pipeline/verification/process_manager.h"
#include "pipeline/adapters/gov_registry_http.h"
#include "api/sse.h"
#include "core/crypto.h"
#include "core/log.h"
#include "eventstore/kafka_dev_broker.h"

namespace {

using namespace svc;
using api::Flags;

constexpr const char* kTopUsage =
    "svc <command> [flags]\n\n"
    "commands:\n"
    "  serve                     run the service\n"
    "  admin tenant create       --name NAME\n"
    "  admin tenant list\n"
    "  admin key create          --tenant ten_... [--env test|live] [--type secret|publishable]\n"
    "                            [--scopes a,b] [--name NAME] [--application app_...]\n"
    "  admin key revoke          --tenant ten_... --key key_... [--reason TEXT]\n"
    "  admin key list            --tenant ten_...\n"
    "  admin webhooks status     the delivery queue of the running server\n"
    "  admin webhooks pause      stop starting deliveries (they queue; a restart resumes)\n"
    "  admin webhooks resume\n"
    "  replay                    [--projector NAME]... [--verify]\n"
    "  dev-broker                [--brokers 3] [--partitions 4] [--topic-prefix svc]\n"
    "  docs errors               print the error catalogue (Markdown)\n"
    "  openapi                   print the OpenAPI 3.1 document of the public API\n"
    "  certificate verify FILE   check a verification certificate's hash and signatures\n"
    "                            (--public-key K: without the service; --data-dir: also the HMAC)\n"
    "  certificate public-key    --tenant T --env E: the Ed25519 key certificates are signed with\n"
    "  models import             --face-api DIR: build the face-recognition model from the npm\n"
    "                            package @vladmandic/face-api into <data-dir>/models\n";

// Where the keys come from (docs/operations.md#keys). SVC_MASTER_KEY / SVC_SERVICE_KEY hold the
// keys themselves and are read from the environment only.
void DeclareKeys(Flags& f) {
  f.Declare({"master-key-file", "",
             "file holding the master key (base64 of 32 bytes; every other key derives from it); "
             "must be outside the data directory. SVC_MASTER_KEY (the key itself) wins over it"});
  f.Declare({"service-key-file", "",
             "file holding the admin socket's service key (created on first start when missing); "
             "must be outside the data directory. SVC_SERVICE_KEY (the key itself) wins over it"});
  f.Declare({"dev-keys-in-data-dir", "false",
             "DEVELOPMENT ONLY: keep master.key and service.key in the data directory (created on "
             "first start), as scripts/run and the tests do. A copy or backup of the directory "
             "then unseals everything in it: never in production",
             true});
}

api::KeySources KeySourcesFrom(const Flags& f) {
  api::KeySources k;
  k.master_key_file = f.Get("master-key-file");
  k.service_key_file = f.Get("service-key-file");
  k.dev_keys_in_data_dir = f.GetBool("dev-keys-in-data-dir");
  return k;
}

void DeclareCommon(Flags& f) {
  f.Declare({"data-dir", "./data", "data directory: RocksDB (log, write model, read models), keys"});
  f.Declare({"partitions", "4", "log partitions; fixed when the data directory is created"});
  f.Declare({"durability", "fsync",
             "fsync: acknowledge appends after fsync; os: after the OS has them (survives a "
             "process crash, not a power loss)"});
  f.Declare({"threads", std::to_string(std::max(1u, std::thread::hardware_concurrency())),
             "worker threads (HTTP I/O and command strands each get this many)"});
  f.Declare({"log-level", "info", "debug, info, warn or error"});
  f.Declare({"log-backend", "embedded",
             "embedded (RocksDB log in the data directory) or kafka (--kafka-brokers)"});
  f.Declare({"kafka-brokers", "", "Kafka bootstrap servers (host:port,...) for --log-backend kafka"});
  f.Declare({"kafka-topic-prefix", "svc", "events go to topic <prefix>.events"});
  f.Declare({"kafka-transactional-id", "svc-writer",
             "transactional.id of this writer; a second writer with the same id fences the first"});
  DeclareKeys(f);
}

void DeclareServe(Flags& f) {
  DeclareCommon(f);
  f.Declare({"listen", "127.0.0.1:8080", "HTTP address (host:port; port 0 picks a free port)"});
  f.Declare({"admin-socket", "", "unix socket of the admin listener (default <data-dir>/admin.sock)"});
  f.Declare({"port-file", "", "write the bound HTTP port to this file once listening"});
  f.Declare({"dev-bootstrap", "false",
             "on first start, create a development tenant and print its test secret key",
             true});
  f.Declare({"max-body-bytes", "1048576", "largest accepted request body"});
  f.Declare({"read-timeout-ms", "30000", "per-request read timeout and keep-alive idle timeout"});
  f.Declare({"public-base-url", "http://127.0.0.1:8080",
             "external base URL (hosted verification links)"});
  f.Declare({"rate-reads", "100", "read requests per second per API key (burst: twice that); 0 = off"});
  f.Declare({"rate-writes", "50", "write requests per second per API key (burst: twice that); 0 = off"});
  f.Declare({"session-ttl-seconds", "86400", "verification sessions expire this long after creation"});
  f.Declare({"gov-registry-url", "", "base URL of the government registry gateway (RENAPO CURP and INE list lookups) used by live keys; empty: lookups are unavailable and live verdicts go to review"});
  f.Declare({"gov-registry-token", "", "bearer token for the registry gateway (prefer the SVC_GOV_REGISTRY_TOKEN environment variable)"});
  f.Declare({"gov-registry-ca-file", "", "an extra CA certificate (PEM) trusted for an https registry gateway, besides the system store"});
  f.Declare({"sse-heartbeat-seconds", "15", "idle progress streams get a comment line this often"});
  f.Declare({"webhooks-ca-file", "", "an extra CA certificate (PEM) trusted for webhook receivers, besides the system store"});
  f.Declare({"webhooks-timeout-seconds", "15", "total time a webhook receiver has to answer one delivery"});
  f.Declare({"webhooks-rate-limit-rpm", "600",
             "deliveries per minute per webhook endpoint (bursts of a tenth of it); 0 = no limit"});
  f.Declare({"webhooks-allow-private-urls", "false",
             "DEVELOPMENT ONLY: allow http and loopback/private webhook URLs (never in production: "
             "it opens the server to SSRF)",
             true});
  f.Declare({"face-engine", "dlib", "verification engine: dlib (faces, landmarks, quality, embeddings; needs `svc models import`) or model-free (image headers only; tests)"});
  f.Declare({"face-model", "", "face-recognition model file (default <data-dir>/models/face_recognition_resnet_v1.dat, written by `svc models import`)"});
  f.Declare({"shape-predictor", "/usr/share/dlib/shape_predictor_68_face_landmarks.dat", "dlib's 68-point landmark model (Debian package libdlib-data)"});
  f.Declare({"max-uploads-in-flight", "32", "captures sealed and analysed at once; beyond it uploads get 503 ADMISSION_FULL"});
  f.Declare({"debug-pipeline-halt-after", "", "tests only: the verification pipeline stops after recording this stage (crash tests)"});
  f.Declare({"fake-clock", "false",
             "TESTS ONLY: start a clock at the current time that moves only when the admin socket "
             "says (POST /admin/clock {\"advanceSeconds\": N}); never in production",
             true});
}

core::Result<api::RuntimeOptions> RuntimeOptionsFrom(const Flags& f) {
  api::RuntimeOptions o;
  o.data_dir = f.Get("data-dir");
  o.keys = KeySourcesFrom(f);
  try {
    o.partitions = static_cast<uint32_t>(std::stoul(f.Get("partitions")));
    o.threads = std::stoul(f.Get("threads"));
  } catch (...) {
    return core::InvalidArgument("--partitions and --threads must be numbers");
  }
  std::string d = f.Get("durability");
  if (d == "fsync") o.durability = eventstore::Durability::kFsync;
  else if (d == "os") o.durability = eventstore::Durability::kOs;
  else return core::InvalidArgument("--durability must be fsync or os");
  o.log_backend = f.Get("log-backend");
  o.kafka_brokers = f.Get("kafka-brokers");
  o.kafka_topic_prefix = f.Get("kafka-topic-prefix");
  o.kafka_transactional_id = f.Get("kafka-transactional-id");
  if (o.log_backend == "kafka" && o.kafka_brokers.empty()) {
    return core::InvalidArgument("--log-backend kafka needs --kafka-brokers");
  }
  return o;
}

void ApplyLogLevel(const Flags& f) {
  std::string l = f.Get("log-level");
  if (l == "debug") core::SetLogLevel(core::LogLevel::kDebug);
  else if (l == "warn") core::SetLogLevel(core::LogLevel::kWarn);
  else if (l == "error") core::SetLogLevel(core::LogLevel::kError);
  else core::SetLogLevel(core::LogLevel::kInfo);
}

int Fail(const core::Status& st) {
  std::cerr << "svc: " << st.ToString() << "\n";
  return st.code() == core::StatusCode::kInvalidArgument ? 2 : 1;
}

void Print(const core::Json& j) { std::cout << j.dump(2) << std::endl; }

// Blocks SIGINT/SIGTERM in this and every thread started later, so that the main thread can take
// them synchronously with sigwait. Call before starting any thread.
sigset_t BlockStopSignals() {
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  return sigs;
}

// ---- serve ----

api::HttpResponse Metrics(api::Runtime& rt) {
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
  api::HttpResponse resp;
  resp.content_type = "text/plain; version=0.0.4";
  resp.body = rt.metrics().RenderPrometheus();
  return resp;
}

std::shared_ptr<api::Router> PublicRouter(api::Runtime& rt, api::PublicApi& public_api) {
  auto router = std::make_shared<api::Router>();
  public_api.Register(*router);
  router->Add("GET", "/healthz", api::Sync([](api::HttpRequest&) {
                return api::JsonResponse(200, {{"status", "ok"}});
              }));
  router->Add("GET", "/readyz", api::Sync([&rt](api::HttpRequest& req) {
                if (rt.projections().AnyFailed() || !rt.writer().Healthy()) {
                  return api::Problem(req, "SERVICE_UNAVAILABLE",
                                      "a projection or the write side has halted");
                }
                if (!rt.projections().AllCaughtUpOnce()) {
                  return api::Problem(req, "SERVICE_UNAVAILABLE",
                                      "read models are still catching up with the log");
                }
                return api::JsonResponse(200, {{"status", "ready"}});
              }));
  router->Add("GET", "/metrics", api::Sync([&rt](api::HttpRequest&) { return Metrics(rt); }));
  router->Add("GET", "/docs/errors", api::Sync([](api::HttpRequest&) {
                api::HttpResponse r;
                r.content_type = "text/markdown; charset=utf-8";
                r.body = api::ErrorCatalogueMarkdown();
                return r;
              }));
  return router;
}

void DevBootstrap(api::Runtime& rt) {
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
  auto tenant = api::AdminTenantCreate(rt, "Development", actor);
  if (!tenant.ok()) {
    core::LogError("dev bootstrap failed", {{"error", tenant.status().ToString()}});
    return;
  }
  api::KeyCreateRequest k;
  k.tenant_id = (*tenant)["id"].get<std::string>();
  k.environment = "test";
  k.key_type = "secret";
  k.scopes = {"*"};
  k.name = "development";
  auto key = api::AdminKeyCreate(rt, k, actor);
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

  std::string listen = f.Get("listen");
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return Fail(core::InvalidArgument("--listen must be host:port"));
  api::HttpServer::Options ho;
  ho.host = listen.substr(0, colon);
  try {
    ho.port = static_cast<uint16_t>(std::stoul(listen.substr(colon + 1)));
    ho.body_limit = std::stoul(f.Get("max-body-bytes"));
    ho.read_timeout = std::chrono::milliseconds(std::stoul(f.Get("read-timeout-ms")));
  } catch (...) {
    return Fail(core::InvalidArgument("bad --listen port, --max-body-bytes or --read-timeout-ms"));
  }
  ho.threads = ro->threads;

  sigset_t sigs = BlockStopSignals();

  std::unique_ptr<core::FakeClock> fake_clock;
  if (f.GetBool("fake-clock")) {
    fake_clock = std::make_unique<core::FakeClock>(core::SystemClock().Now());
    ro->clock = fake_clock.get();
    core::LogWarn("--fake-clock: time moves only through the admin socket; tests only");
  }
  auto rt_or = api::Runtime::Open(*ro);
  if (!rt_or.ok()) return Fail(rt_or.status());
  auto rt = std::move(rt_or).value();
  rt->StartProjections();
  pipeline::SessionExpiryTimer::Options to;
  to.writer = &rt->writer();
  to.store = &rt->store();
  to.projections = &rt->projections();
  to.clock = &rt->clock();
  to.ids = &rt->ids();
  to.metrics = &rt->metrics();
  pipeline::SessionExpiryTimer expiry(to);
  if (!fake_clock) expiry.Start();

  auto service_key = api::LoadServiceKey(ro->data_dir, ro->keys, /*create=*/true);
  if (!service_key.ok()) return Fail(service_key.status());

  api::PublicApiOptions po;
  po.limits.max_body_bytes = ho.body_limit;
  po.public_base_url = f.Get("public-base-url");
  try {
    po.limits.reads.per_second = std::stod(f.Get("rate-reads"));
    po.limits.reads.burst = po.limits.reads.per_second * 2;
    po.limits.writes.per_second = std::stod(f.Get("rate-writes"));
    po.limits.writes.burst = po.limits.writes.per_second * 2;
    po.limits.session_ttl_seconds = std::stoll(f.Get("session-ttl-seconds"));
  } catch (...) {
    return Fail(core::InvalidArgument("bad --rate-reads, --rate-writes or --session-ttl-seconds"));
  }
  // The verification pipeline: engines, registries, the process manager.
  pipeline::verification::ModelFreeEngine model_free_engine;
  std::unique_ptr<pipeline::biometrics::DlibEngine> dlib_engine;
  pipeline::verification::VerificationEngine* default_engine_ptr = &model_free_engine;
  if (std::string engine = f.Get("face-engine"); engine == "dlib") {
    std::string model = f.Get("face-model").empty()
                            ? (std::filesystem::path(ro->data_dir) /
                               pipeline::biometrics::kRecognitionModelFile).string()
                            : f.Get("face-model");
    auto models = pipeline::biometrics::FaceModels::Load(model, f.Get("shape-predictor"));
    if (!models.ok()) return Fail(models.status());  // names the setup step
    dlib_engine = std::make_unique<pipeline::biometrics::DlibEngine>(
        std::shared_ptr<const pipeline::biometrics::FaceModels>(std::move(models).value()));
    default_engine_ptr = dlib_engine.get();
  } else if (engine != "model-free") {
    return Fail(core::InvalidArgument("--face-engine must be dlib or model-free"));
  }
  pipeline::verification::VerificationEngine& default_engine = *default_engine_ptr;
  pipeline::verification::SandboxEngine sandbox_engine;
  pipeline::verification::SandboxGovRegistry sandbox_registry;
  std::unique_ptr<pipeline::verification::GovRegistry> live_registry;
  if (std::string url = f.Get("gov-registry-url"); !url.empty()) {
    auto reg = pipeline::adapters::HttpGovRegistry::Create(url, f.Get("gov-registry-token"),
                                            std::chrono::milliseconds(5000), f.Get("gov-registry-ca-file"));
    if (!reg.ok()) return Fail(reg.status());
    live_registry = std::move(reg).value();
  } else {
    live_registry = std::make_unique<pipeline::verification::UnconfiguredGovRegistry>();
  }
  core::ThreadPool work_pool(std::max<size_t>(2, ro->threads));
  pipeline::verification::VerificationPipeline::Options vo;
  vo.writer = &rt->writer();
  vo.store = &rt->store();
  vo.projections = &rt->projections();
  vo.projector = &rt->verification_projector();
  vo.keys = &rt->key_store();
  vo.blobs = &rt->blobs();
  vo.clock = &rt->clock();
  vo.ids = &rt->ids();
  vo.metrics = &rt->metrics();
  vo.engine = &default_engine;
  vo.sandbox_engine = &sandbox_engine;
  vo.live_registry = live_registry.get();
  vo.sandbox_registry = &sandbox_registry;
  vo.workers = std::max<size_t>(2, ro->threads);
  vo.halt_after_stage = f.Get("debug-pipeline-halt-after");
  pipeline::verification::VerificationPipeline verification(vo);
  verification.Start();
  pipeline::webhooks::WebhookDispatcher::Options wo;
  wo.writer = &rt->writer();
  wo.store = &rt->store();
  wo.projections = &rt->projections();
  wo.projector = &rt->webhooks_projector();
  wo.keys = &rt->key_store();
  wo.clock = &rt->clock();
  wo.ids = &rt->ids();
  wo.metrics = &rt->metrics();
  try {
    int rpm = std::stoi(f.Get("webhooks-rate-limit-rpm"));
    if (rpm < 0) throw std::invalid_argument("negative");
    po.webhook_policy.rate_limit_default_rpm = rpm;
    int timeout = std::stoi(f.Get("webhooks-timeout-seconds"));
    if (timeout < 1 || timeout > 300) throw std::invalid_argument("range");
    po.webhook_policy.http_timeout_seconds = timeout;
  } catch (...) {
    return Fail(core::InvalidArgument(
        "bad --webhooks-rate-limit-rpm (a non-negative integer) or --webhooks-timeout-seconds (1-300)"));
  }
  wo.rate_per_second = po.webhook_policy.rate_limit_default_rpm / 60.0;
  wo.rate_burst = std::max(1.0, po.webhook_policy.rate_limit_default_rpm / 10.0);
  wo.policy = po.webhook_policy;
  wo.send.allow_private = f.GetBool("webhooks-allow-private-urls");
  wo.send.ca_file = f.Get("webhooks-ca-file");
  wo.send.total_timeout = std::chrono::seconds(po.webhook_policy.http_timeout_seconds);
  po.webhook_send = wo.send;
  pipeline::webhooks::WebhookDispatcher webhook_dispatcher(wo);
  webhook_dispatcher.Start();
  po.engine = &default_engine;
  po.sandbox_engine = &sandbox_engine;
  po.work_pool = &work_pool;
  po.webhooks_allow_private_urls = f.GetBool("webhooks-allow-private-urls");
  try {
    po.sse_heartbeat = std::chrono::seconds(std::stoll(f.Get("sse-heartbeat-seconds")));
    po.max_uploads_in_flight = std::stoul(f.Get("max-uploads-in-flight"));
  } catch (...) {
    return Fail(core::InvalidArgument("bad --sse-heartbeat-seconds or --max-uploads-in-flight"));
  }
  ho.body_limit_by_suffix.emplace_back("/media", (32u << 20) + (1u << 20));
  // Declared before the server: open streams end before the hub does.
  api::SseHub sse_hub(&rt->store(), &rt->verification_projector(),
                      std::chrono::duration_cast<std::chrono::milliseconds>(po.sse_heartbeat));
  po.sse_hub = &sse_hub;

  api::SetProblemTypeBase(po.public_base_url + "/docs/errors");
  api::PublicApi public_api(*rt, po);
  api::HttpServer server(ho, PublicRouter(*rt, public_api), &rt->ids());
  if (auto st = server.Start(); !st.ok()) return Fail(st);

  auto admin_router = std::make_shared<api::Router>();
  api::AddAdminRoutes(*admin_router, *rt, *service_key);
  const std::string& sk = *service_key;
  if (fake_clock) {
    admin_router->Add("POST", "/admin/clock", api::AdminRoute(sk, [&](api::HttpRequest& req) -> core::Result<core::Json> {
      core::Json body = core::ParseJsonOrDiscarded(req.body);
      int64_t seconds = core::IntOr(body, "advanceSeconds", -1);
      if (seconds < 0) return core::InvalidArgument("advanceSeconds must be a non-negative integer", "VALIDATION_ERROR");
      fake_clock->AdvanceSeconds(seconds);
      SVC_ASSIGN_OR_RETURN(auto expired, expiry.RunOnce());  // timers fire as the clock moves
      return core::Json{{"now", core::FormatRfc3339(fake_clock->Now())}, {"sessionsExpired", expired}};
    }));
  }
  // Tests and tools: wait until no delivery can go on at the clock's now / every submission has
  // its verdict.
  admin_router->Add("POST", "/admin/webhooks/wait-idle", api::AdminRoute(sk, [&](api::HttpRequest&) -> core::Result<core::Json> {
    if (!webhook_dispatcher.WaitIdle(std::chrono::seconds(60))) return core::Unavailable("deliveries are still being sent");
    return core::Json{{"idle", true}};
  }));
  admin_router->Add("POST", "/admin/pipeline/wait-idle", api::AdminRoute(sk, [&](api::HttpRequest&) -> core::Result<core::Json> {
    if (!verification.WaitIdle(std::chrono::seconds(60))) return core::Unavailable("the pipeline is still busy");
    return core::Json{{"idle", true}};
  }));
  // Operations: the delivery queue; pause and resume deliveries (in memory; a restart resumes).
  auto queue = [&webhook_dispatcher]() -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(auto stats, webhook_dispatcher.Stats());
    return core::Json{{"paused", stats.paused},         {"dueNow", stats.due_now},
                      {"scheduled", stats.scheduled},   {"inFlight", stats.in_flight},
                      {"rateLimited", stats.rate_limited}};
  };
  admin_router->Add("GET", "/admin/webhooks/queue", api::AdminRoute(sk, [queue](api::HttpRequest&) { return queue(); }));
  admin_router->Add("POST", "/admin/webhooks/pause", api::AdminRoute(sk, [&, queue](api::HttpRequest&) {
    webhook_dispatcher.Pause();
    core::LogWarn("webhook deliveries paused through the admin listener");
    return queue();
  }));
  admin_router->Add("POST", "/admin/webhooks/resume", api::AdminRoute(sk, [&, queue](api::HttpRequest&) {
    webhook_dispatcher.Resume();
    core::LogInfo("webhook deliveries resumed through the admin listener");
    return queue();
  }));
  api::HttpServer::Options ao;
  ao.tcp = false;
  ao.unix_socket = f.Get("admin-socket").empty()
                       ? (std::filesystem::path(ro->data_dir) / "admin.sock").string()
                       : f.Get("admin-socket");
  ao.threads = 1;
  api::HttpServer admin(ao, admin_router, &rt->ids());
  if (auto st = admin.Start(); !st.ok()) return Fail(st);

  core::LogInfo("listening", {{"port", server.BoundPort()},
                              {"host", ho.host},
                              {"adminSocket", ao.unix_socket},
                              {"dataDir", ro->data_dir},
                              {"backend", rt->log().BackendName()}});
  if (std::string pf = f.Get("port-file"); !pf.empty()) {
    std::string tmp = pf + ".tmp";
    { std::ofstream(tmp) << server.BoundPort() << "\n"; }
    std::filesystem::rename(tmp, pf);
  }
  if (f.GetBool("dev-bootstrap")) DevBootstrap(*rt);

  int sig = 0;
  sigwait(&sigs, &sig);
  core::LogInfo("shutting down", {{"signal", sig}});
  server.Stop();
  admin.Stop();
  expiry.Stop();
  webhook_dispatcher.Stop();
  verification.Stop();
  sse_hub.Stop();
  rt->Shutdown();
  core::LogInfo("stopped");
  return 0;
}

// ---- admin ----

// Runs an admin operation in-process when the data directory is free, or through the running
// server's admin socket when it is not.
int Admin(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << kTopUsage;
    return 2;
  }
  std::string noun = argv[2], verb = argv[3];
  Flags f;
  DeclareCommon(f);
  f.Declare({"admin-socket", "", "admin socket of a running server (default <data-dir>/admin.sock)"});
  f.Declare({"name", "", "tenant or key name"});
  f.Declare({"tenant", "", "tenant id (ten_...)"});
  f.Declare({"key", "", "API key id (key_...)"});
  f.Declare({"env", "test", "key environment: test or live"});
  f.Declare({"type", "secret", "key type: secret or publishable"});
  f.Declare({"scopes", "*", "comma-separated scopes; wildcards persons:* and * allowed"});
  f.Declare({"application", "", "application id (default: the tenant's default application)"});
  f.Declare({"reason", "", "revocation reason"});
  if (auto st = f.Parse(argc, argv, 4); !st.ok()) return Fail(st);
  if (f.HelpRequested()) {
    std::cout << f.Help("svc admin " + noun + " " + verb + " [flags]");
    return 0;
  }
  core::SetLogLevel(core::LogLevel::kWarn);
  std::string key = noun + " " + verb;
  const bool webhooks = key == "webhooks status" || key == "webhooks pause" || key == "webhooks resume";
  if (key != "tenant create" && key != "tenant list" && key != "key create" &&
      key != "key revoke" && key != "key list" && !webhooks) {
    std::cerr << kTopUsage;
    return 2;
  }
  if (key == "tenant create" && f.Get("name").empty()) {
    return Fail(core::InvalidArgument("--name is required"));
  }
  auto ro = RuntimeOptionsFrom(f);
  if (!ro.ok()) return Fail(ro.status());
  ro->keys.read_existing_dev_keys = true;  // an operator command: never creates keys

  api::KeyCreateRequest kc;
  kc.tenant_id = f.Get("tenant");
  kc.environment = f.Get("env");
  kc.key_type = f.Get("type");
  kc.scopes = f.GetAll("scopes");
  kc.name = f.Get("name");
  kc.application_id = f.Get("application");

  // Deliveries exist only in a running server: the webhooks commands go to its socket directly.
  auto rt = webhooks ? core::Result<std::unique_ptr<api::Runtime>>(core::Unavailable("locked: a server runs"))
                     : api::Runtime::Open(*ro);
  if (rt.ok()) {
    // Stopped data directory: run the command here, with the projections running so that the
    // answer reads its own write.
    (*rt)->StartProjections();
    eventstore::Actor actor{"admin_cli", "local"};
    core::Result<core::Json> r = core::Internal("unreachable");
    if (key == "tenant create") r = api::AdminTenantCreate(**rt, f.Get("name"), actor);
    else if (key == "tenant list") r = api::AdminTenantList(**rt);
    else if (key == "key create") r = api::AdminKeyCreate(**rt, kc, actor);
    else if (key == "key revoke") r = api::AdminKeyRevoke(**rt, f.Get("tenant"), f.Get("key"), f.Get("reason"), actor);
    else r = api::AdminKeyList(**rt, f.Get("tenant"));
    if (auto st = (*rt)->CatchUpProjections(); !st.ok()) return Fail(st);
    (*rt)->Shutdown();
    if (!r.ok()) return Fail(r.status());
    Print(*r);
    return 0;
  }
  if (rt.status().code() != core::StatusCode::kUnavailable ||
      rt.status().message().find("locked") == std::string::npos) {
    return Fail(rt.status());
  }
  // A server holds the data directory: go through its admin socket.
  auto service_key = api::LoadServiceKey(ro->data_dir, ro->keys, /*create=*/false);
  if (!service_key.ok() && webhooks) {
    return Fail(core::FailedPrecondition("no server runs on " + ro->data_dir +
                                         "; deliveries are sent by a running svc serve"));
  }
  if (!service_key.ok()) return Fail(service_key.status());
  api::ClientTarget target;
  target.unix_socket = f.Get("admin-socket").empty()
                           ? (std::filesystem::path(ro->data_dir) / "admin.sock").string()
                           : f.Get("admin-socket");
  std::map<std::string, std::string> headers = {{"Authorization", "Bearer " + *service_key}};
  std::string method = "GET", path, body;
  core::Json b = core::Json::object();
  if (key == "tenant create") {
    method = "POST";
    path = "/admin/tenants";
    b["name"] = f.Get("name");
  } else if (key == "tenant list") {
    path = "/admin/tenants";
  } else if (key == "key create") {
    method = "POST";
    path = "/admin/tenants/" + kc.tenant_id + "/keys";
    b["environment"] = kc.environment;
    b["type"] = kc.key_type;
    b["scopes"] = kc.scopes;
    b["name"] = kc.name;
    if (!kc.application_id.empty()) b["applicationId"] = kc.application_id;
  } else if (key == "key revoke") {
    method = "POST";
    path = "/admin/tenants/" + f.Get("tenant") + "/keys/" + f.Get("key") + "/revoke";
    b["reason"] = f.Get("reason");
  } else if (webhooks) {
    method = verb == "status" ? "GET" : "POST";
    path = "/admin/webhooks/" + std::string(verb == "status" ? "queue" : verb);
  } else {
    path = "/admin/tenants/" + f.Get("tenant") + "/keys";
  }
  if (method == "POST") body = core::DumpJson(b);
  auto resp = api::HttpCall(target, method, path, headers, body);
  if (!resp.ok() && webhooks) {
    return Fail(core::FailedPrecondition("no server answers on " + target.unix_socket +
                                         "; deliveries are sent by a running svc serve"));
  }
  if (!resp.ok()) return Fail(resp.status());
  core::Json j = core::ParseJsonOrDiscarded(resp->body);
  if (resp->status >= 300) {
    std::cerr << "svc: " << (j.is_object() ? j.dump(2) : resp->body) << "\n";
    return 1;
  }
  Print(j);
  return 0;
}

// ---- replay ----

int Replay(int argc, char** argv) {
  Flags f;
  DeclareCommon(f);
  f.Declare({"projector", "", "projector to rebuild (repeatable; default: all)", false, true});
  f.Declare({"verify", "false",
             "rebuild into a scratch store and compare byte for byte with the live read models",
             true});
  if (auto st = f.Parse(argc, argv, 2); !st.ok()) return Fail(st);
  if (f.HelpRequested()) {
    std::cout << f.Help("svc replay [flags]  (the server must be stopped)");
    return 0;
  }
  ApplyLogLevel(f);
  auto ro = RuntimeOptionsFrom(f);
  if (!ro.ok()) return Fail(ro.status());
  ro->keys.read_existing_dev_keys = true;  // an operator command: never creates keys
  auto rt = api::Runtime::Open(*ro);
  if (!rt.ok()) return Fail(rt.status());
  std::vector<std::string> names = f.GetAll("projector");
  auto r = f.GetBool("verify") ? api::VerifyReplay(**rt, names)
                               : api::ReplayProjectors(**rt, names);
  (*rt)->Shutdown();
  if (!r.ok()) return Fail(r.status());
  Print(*r);
  if (f.GetBool("verify") && !(*r)["identical"].get<bool>()) return 1;
  return 0;
}

// ---- dev-broker ----

int DevBroker(int argc, char** argv) {
  Flags f;
  f.Declare({"brokers", "3", "number of mock brokers"});
  f.Declare({"partitions", "4", "partitions of <topic-prefix>.events"});
  f.Declare({"topic-prefix", "svc", "creates topic <prefix>.events"});
  if (auto st = f.Parse(argc, argv, 2); !st.ok()) return Fail(st);
  if (f.HelpRequested()) {
    std::cout << f.Help("svc dev-broker [flags]") <<
        "\nPrints `bootstrap.servers=<list>` and runs until SIGINT/SIGTERM. Lines on stdin are\n"
        "fault-injection commands (answered `ok` or `error: ...`):\n"
        "  produce-errors N ERROR_NAME | endtxn-errors N ERROR_NAME | broker-down ID | broker-up ID\n"
        "Development and CI only: everything is in memory.\n";
    return 0;
  }
  sigset_t sigs = BlockStopSignals();
  eventstore::KafkaDevBroker::Options o;
  try {
    o.brokers = std::stoi(f.Get("brokers"));
    o.partitions = std::stoi(f.Get("partitions"));
  } catch (...) {
    return Fail(core::InvalidArgument("--brokers and --partitions must be numbers"));
  }
  o.topic_prefix = f.Get("topic-prefix");
  auto broker = eventstore::KafkaDevBroker::Start(o);
  if (!broker.ok()) return Fail(broker.status());
  std::cout << "bootstrap.servers=" << (*broker)->Bootstraps() << std::endl;
  // Control lines from stdin on a helper thread; the main thread waits for a signal.
  std::thread control([&] {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      auto st = (*broker)->Control(line);
      std::cout << (st.ok() ? std::string("ok") : "error: " + st.message()) << std::endl;
    }
  });
  control.detach();  // stdin may stay open until the process ends
  int sig = 0;
  sigwait(&sigs, &sig);
  std::cout.flush();
  std::_Exit(0);  // the control thread may be blocked in a read; nothing to flush or persist
}

}  // namespace

// ---- certificate ----

// Reads --public-key: the base64 of the 32-byte key, or a file holding it.
core::Result<std::string> PublicKeyArg(const std::string& value) {
  std::string text = value;
  std::error_code ec;
  if (std::filesystem::is_regular_file(value, ec)) {
    std::ifstream in(value);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  }
  auto key = core::Base64Decode(text);
  if (!key.ok() || key->size() != 32) {
    return core::InvalidArgument("--public-key must be the base64 of a 32-byte Ed25519 key (or a file holding it)");
  }
  return key;
}

// svc certificate verify FILE [--public-key K] [--data-dir D]: checks contentHash and the
// signatures it can. Never writes anything: a missing or wrong data directory is reported, not
// created. svc certificate public-key --tenant T --env E: the Ed25519 public key to publish.
int Certificate(int argc, char** argv) {
  const std::string usage =
      "svc certificate verify FILE [--public-key BASE64|FILE] [--data-dir DIR]\n"
      "       svc certificate public-key --tenant ten_… --env test|live [--data-dir DIR]";
  std::string verb = argc >= 3 ? argv[2] : "";
  Flags f;
  f.Declare({"data-dir", "", "a data directory whose master key checks the HMAC signature too (read only; never created)"});
  f.Declare({"public-key", "", "the tenant and environment's Ed25519 public key (base64, or a file holding it): checks the certificate without the service or its keys"});
  f.Declare({"tenant", "", "public-key: the tenant"});
  f.Declare({"env", "", "public-key: test or live"});
  DeclareKeys(f);
  if (verb == "public-key") {
    if (auto st = f.Parse(argc, argv, 3); !st.ok()) return Fail(st);
    std::string data_dir = f.Get("data-dir").empty() ? "./data" : f.Get("data-dir");
    api::KeySources ks = KeySourcesFrom(f);
    ks.read_existing_dev_keys = true;
    auto master = api::LoadMasterKey(data_dir, ks, /*create=*/false);
    if (!master.ok()) return Fail(master.status());
    std::string tenant = f.Get("tenant"), env = f.Get("env");
    if (!core::ValidateId(core::IdKind::kTenant, tenant).ok() || (env != "test" && env != "live")) {
      return Fail(core::InvalidArgument("public-key needs --tenant ten_… and --env test|live"));
    }
    std::string root = pipeline::CertificateRootKey(*master);
    core::SecureZero(*master);
    core::Ed25519KeyPair kp = pipeline::CertificateSigningKey(root, tenant, env);
    core::SecureZero(kp.secret_key);
    Print({{"tenantId", tenant},
           {"environment", env},
           {"keyId", pipeline::CertificateKeyId(kp.public_key)},
           {"algorithm", "Ed25519"},
           {"publicKey", core::Base64Encode(kp.public_key)}});
    return 0;
  }
  if (verb != "verify" || argc < 4) {
    std::cerr << "usage: " << usage << "\n";
    return 2;
  }
  if (auto st = f.Parse(argc, argv, 4); !st.ok()) return Fail(st);
  std::ifstream in(argv[3], std::ios::binary);
  if (!in) return Fail(core::NotFound(std::string("cannot read ") + argv[3]));
  std::stringstream ss;
  ss << in.rdbuf();
  pipeline::CertificateKeys keys;
  if (!f.Get("public-key").empty()) {
    auto pk = PublicKeyArg(f.Get("public-key"));
    if (!pk.ok()) return Fail(pk.status());
    keys.public_key = *pk;
  }
  std::vector<std::string> notes;
  const bool have_keys_source = !f.Get("data-dir").empty() || !f.Get("master-key-file").empty() ||
                                std::getenv("SVC_MASTER_KEY") != nullptr;
  if (have_keys_source) {
    std::string data_dir = f.Get("data-dir").empty() ? "./data" : f.Get("data-dir");
    api::KeySources ks = KeySourcesFrom(f);
    // Reading an existing development key from a data directory an auditor names is fine: this
    // command only reads.
    ks.read_existing_dev_keys = true;
    auto master = api::LoadMasterKey(data_dir, ks, /*create=*/false);
    if (master.ok()) {
      keys.root_key = pipeline::CertificateRootKey(*master);
      core::SecureZero(*master);
    } else {
      notes.push_back("no master key read: " + master.status().message());
    }
  }
  if (!keys.root_key.has_value() && !keys.public_key.has_value()) {
    std::cerr << "svc: nothing to check the signatures with: give --public-key (the tenant's "
                 "Ed25519 key, GET /v1/certificate-keys) or --data-dir / --master-key-file\n";
  }
  auto check = pipeline::VerifyCertificate(ss.str(), keys);
  if (!check.ok()) return Fail(check.status());
  for (const auto& n : check->not_checked) notes.push_back(n);
  auto opt = [](const std::optional<bool>& b) { return b.has_value() ? core::Json(*b) : core::Json(nullptr); };
  Print({{"valid", check->valid()},
         {"contentHashValid", check->content_hash_valid},
         {"ed25519SignatureValid", opt(check->ed25519_valid)},
         {"hmacSignatureValid", opt(check->hmac_valid)},
         {"signatureValid", opt(check->hmac_valid)},  // the HMAC, by its earlier name
         {"notChecked", notes}});
  return check->valid() ? 0 : 1;
}

int main(int argc, char** argv) {
  if (auto st = core::InitCrypto(); !st.ok()) return Fail(st);
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << "usage: " << kTopUsage;
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
  if (cmd == "serve") return Serve(argc, argv);
  if (cmd == "admin") return Admin(argc, argv);
  if (cmd == "replay") return Replay(argc, argv);
  if (cmd == "dev-broker") return DevBroker(argc, argv);
  if (cmd == "certificate") return Certificate(argc, argv);
  if (cmd == "models") {
    // svc models import --face-api DIR [--data-dir D] [--force]
    if (argc < 3 || std::string(argv[2]) != "import") {
      std::cerr << "usage: svc models import --face-api DIR [--data-dir DIR] [--force]\n";
      return 2;
    }
    Flags f;
    f.Declare({"data-dir", "./data", "data directory; the model goes to <data-dir>/models"});
    f.Declare({"face-api", "models/node_modules/@vladmandic/face-api",
               "the installed npm package @vladmandic/face-api (scripts/setup installs it)"});
    f.Declare({"force", "false", "import again even when the model file exists", true});
    if (auto st = f.Parse(argc, argv, 3); !st.ok()) return Fail(st);
    std::string out = (std::filesystem::path(f.Get("data-dir")) /
                       pipeline::biometrics::kRecognitionModelFile).string();
    if (std::filesystem::exists(out) && !f.GetBool("force")) {
      Print({{"imported", false}, {"path", out}, {"reason", "present; --force imports again"}});
      return 0;
    }
    auto report = pipeline::biometrics::ImportFaceApiModel(f.Get("face-api"), out);
    if (!report.ok()) return Fail(report.status());
    Print({{"imported", true},
           {"path", report->output_path},
           {"tensors", report->tensors},
           {"convLayers", report->conv_layers},
           {"weightsBytes", report->bytes},
           {"weightsSha256", report->weights_sha256}});
    return 0;
  }
  if (cmd == "openapi") {
    api::PublicApiOptions defaults;
    std::cout << api::BuildOpenApi(api::AllRoutes(nullptr, defaults), defaults.public_base_url)
                     .dump(2)
              << std::endl;
    return 0;
  }
  if (cmd == "docs" && argc >= 3 && std::string(argv[2]) == "errors") {
    std::cout << api::ErrorCatalogueMarkdown();
    return 0;
  }
  std::cerr << "svc: unknown command " << cmd << "\n" << kTopUsage;
  return 2;
}
