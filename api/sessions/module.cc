// The verification-session area as a module (api/http/module.h): the session aggregate and its
// read models (sessions, verification), its routes, and its services — the face engines (dlib, or
// the model-free engine for tests), the sandbox engine and registry, the live government-registry
// gateway, the verification pipeline (a process manager), the session expiry timer and the
// progress streams.

#include <filesystem>

#include "api/http/admin_route.h"
#include "api/http/flag_file.h"
#include "api/http/module.h"
#include "api/http/sse_hub.h"
#include "api/sessions/routes.h"
#include "commands/verification/efirma_challenge.h"
#include "commands/verification/session_decider.h"
#include "core/log.h"
#include "eventstore/job_queue.h"
#include "pipeline/adapters/efirma_http.h"
#include "pipeline/adapters/gov_registry_http.h"
#include "pipeline/biometrics/dlib_engine.h"
#include "pipeline/biometrics/face_model.h"
#include "pipeline/expiry_timer.h"
#include "pipeline/verification/builtin_engines.h"
#include "pipeline/verification/process_manager.h"
#include "projections/efirma_projector.h"
#include "projections/sessions_projector.h"
#include "projections/verification_projector.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"gov-registry-url", "", "base URL of the government registry gateway (RENAPO CURP and INE list lookups) used by live keys; empty: lookups are unavailable and live verdicts go to review"});
  f.Declare({"gov-registry-token", "", "bearer token for the registry gateway (prefer the SVC_GOV_REGISTRY_TOKEN environment variable)"});
  f.Declare({"gov-registry-ca-file", "", "an extra CA certificate (PEM) trusted for an https registry gateway, besides the system store"});
  f.Declare({"sse-heartbeat-seconds", "15", "idle progress streams get a comment line this often"});
  f.Declare({"face-engine", "dlib", "verification engine: dlib (faces, landmarks, quality, embeddings; needs `svc models import`) or model-free (image headers only; tests)"});
  f.Declare({"face-model", "", "face-recognition model file (default <data-dir>/models/face_recognition_resnet_v1.dat, written by `svc models import`)"});
  f.Declare({"shape-predictor", "/usr/share/dlib/shape_predictor_68_face_landmarks.dat", "dlib's 68-point landmark model (Debian package libdlib-data)"});
  f.Declare({"max-uploads-in-flight", "32", "captures sealed and analysed at once; beyond it uploads get 503 ADMISSION_FULL"});
  f.Declare({"max-uploads-per-source", "8",
             "of those, the most one source address may hold at once (beyond: 429 RATE_LIMITED); 0: no share "
             "(docs/verification-pipeline.md#media-capture)"});
  f.Declare({"max-uploads-per-tenant", "16",
             "of those, the most one tenant's environment may hold at once (beyond: 429 RATE_LIMITED); 0: no share"});
  f.Declare({"upload-stall-ms", "5000",
             "an upload's body may wait this long for its bytes; past it, it must average --upload-min-kib-per-second "
             "or its slot is taken back (the connection closed)"});
  f.Declare({"upload-min-kib-per-second", "16", "see --upload-stall-ms; 0: only --read-timeout-ms"});
  f.Declare({"upload-memory-mib", "96",
             "memory the captures being received may hold (analysed captures, a file sent before its kind); beyond "
             "it an upload gets 503 ADMISSION_FULL"});
  f.Declare({"verification-job-partitions", "16", "in a cluster (--kafka-writers group): the partitions of the verification jobs topic <prefix>.jobs, the most workers busy at once (fixed when the topic is created)"});
  f.Declare({"efirma-roots", "",
             "PEM file of the SAT's certificates (its roots and intermediates) that an e.firma must chain to "
             "(docs/verification-sessions.md#efirma); empty: e.firma is not checked (EFIRMA_CERT_NOT_READY)"});
  f.Declare({"efirma-ocsp-url", "",
             "the OCSP responder asked whether an e.firma is revoked (the SAT's, or the registry gateway's OCSP path); "
             "empty: revocation is not checked (the result says ocsp: not_checked)"});
  f.Declare({"efirma-ocsp-ca-file", "", "an extra CA certificate (PEM) trusted for an https OCSP responder"});
  f.Declare({"debug-pipeline-halt-after", "", "tests only: the verification pipeline stops after recording this stage (crash tests)"});
}

class SessionsServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) override {
    Runtime& rt = s.rt;
    const Flags& f = s.flags;
    ApiContext& api = s.api;
    api.sessions = &SessionsPortOf();  // the embedded channel's creates and verify
    std::chrono::seconds sse_heartbeat{15};
    UploadSlots::Limits slot_limits;
    size_t upload_memory_mib = 96;
    try {
      sse_heartbeat = std::chrono::seconds(std::stoll(f.Get("sse-heartbeat-seconds")));
      slot_limits.total = std::stoul(f.Get("max-uploads-in-flight"));
      slot_limits.per_source = std::stoul(f.Get("max-uploads-per-source"));
      slot_limits.per_tenant = std::stoul(f.Get("max-uploads-per-tenant"));
      upload_memory_mib = std::stoul(f.Get("upload-memory-mib"));
      s.http.stream_grace = std::chrono::milliseconds(std::stoul(f.Get("upload-stall-ms")));
      s.http.stream_min_bytes_per_second = std::stoul(f.Get("upload-min-kib-per-second")) * 1024;
    } catch (...) {
      return core::InvalidArgument(
          "bad --sse-heartbeat-seconds, --max-uploads-in-flight, --max-uploads-per-source, --max-uploads-per-tenant, "
          "--upload-stall-ms, --upload-min-kib-per-second or --upload-memory-mib");
    }
    upload_slots_ = std::make_unique<UploadSlots>(
        slot_limits, &rt.metrics().GetGauge("svc_uploads_in_progress", "Capture uploads holding an upload slot"));
    upload_memory_ = std::make_unique<core::ByteBudget>(
        upload_memory_mib << 20,
        &rt.metrics().GetGauge("svc_upload_memory_bytes", "Memory held by the captures being received (of --upload-memory-mib)"));
    options_.upload_slots = upload_slots_.get();
    options_.upload_memory = upload_memory_.get();
    engine_ = &model_free_engine_;
    if (std::string engine = f.Get("face-engine"); engine == "dlib") {
      std::string model = f.Get("face-model").empty()
                              ? (std::filesystem::path(rt.data_dir()) /
                                 pipeline::biometrics::kRecognitionModelFile).string()
                              : f.Get("face-model");
      // A missing model names the setup step.
      SVC_ASSIGN_OR_RETURN(auto models,
                           pipeline::biometrics::FaceModels::Load(model, f.Get("shape-predictor")));
      dlib_engine_ = std::make_unique<pipeline::biometrics::DlibEngine>(
          std::shared_ptr<const pipeline::biometrics::FaceModels>(std::move(models)));
      engine_ = dlib_engine_.get();
    } else if (engine != "model-free") {
      return core::InvalidArgument("--face-engine must be dlib or model-free");
    }
    if (std::string url = f.Get("gov-registry-url"); !url.empty()) {
      SVC_ASSIGN_OR_RETURN(live_registry_, pipeline::adapters::HttpGovRegistry::Create(
                                               url, f.Get("gov-registry-token"),
                                               std::chrono::milliseconds(5000),
                                               f.Get("gov-registry-ca-file")));
    } else {
      live_registry_ = std::make_unique<pipeline::verification::UnconfiguredGovRegistry>();
    }

    pipeline::verification::VerificationPipeline::Options vo;
    LendRuntime(rt, vo);
    vo.projector = rt.projector<projections::VerificationProjector>();
    vo.keys = &rt.key_store();
    vo.blobs = &rt.blobs();
    vo.engine = engine_;
    vo.sandbox_engine = &sandbox_engine_;
    vo.live_registry = live_registry_.get();
    vo.sandbox_registry = &sandbox_registry_;
    vo.workers = std::max<size_t>(2, s.threads);
    vo.halt_after_stage = f.Get("debug-pipeline-halt-after");
    // In a cluster the work goes through the jobs topic: the writer of a session's partition
    // publishes it, any worker runs it (docs/operations.md#verification-work-on-workers).
    const RuntimeOptions& ro = rt.options();
    const bool cluster = ro.log_backend == "kafka" && ro.kafka_writers == "group";
    bool start = false;
    if (cluster) {
      vo.publish = s.Runs(Role::kPipeline, "verification-jobs");
      vo.take = s.Runs(Role::kWorker, "verification");
      start = vo.publish || vo.take;
      if (start) {
        eventstore::JobQueue::Options jo;
        jo.brokers = ro.kafka_brokers;
        jo.topic_prefix = ro.kafka_topic_prefix;
        jo.name = "jobs";
        try {
          jo.partitions = static_cast<uint32_t>(std::stoul(f.Get("verification-job-partitions")));
        } catch (...) {
          jo.partitions = 0;
        }
        if (jo.partitions == 0 || jo.partitions > 1024) {
          return core::InvalidArgument("--verification-job-partitions must be between 1 and 1024");
        }
        jo.partitions_flag = "--verification-job-partitions";
        jo.member = s.node_id;
        jo.session_timeout = ro.kafka_session_timeout;
        jo.metrics = &rt.metrics();
        SVC_ASSIGN_OR_RETURN(jobs_, eventstore::JobQueue::Open(jo));
        jobs_topic_ = jo.topic_prefix + "." + jo.name;
        vo.jobs = jobs_.get();
      }
    } else {
      start = s.Runs(Role::kPipeline, "verification");
    }
    verification_ = std::make_unique<pipeline::verification::VerificationPipeline>(vo);
    if (start) SVC_RETURN_IF_ERROR(verification_->Start());

    SVC_RETURN_IF_ERROR(StartEfirma(rt, f));
    api.engine = engine_;
    options_.sandbox_engine = &sandbox_engine_;
    // A capture of up to 32 MiB plus its multipart framing, read as it arrives (streamed to the
    // upload pool, sealed in chunks).
    s.http.body_limit_by_suffix.emplace_back("/media", (32u << 20) + (1u << 20));
    s.http.streamed_body_suffixes.push_back("/media");
    upload_pool_ = std::make_unique<core::ThreadPool>(std::max<size_t>(1, slot_limits.total));
    options_.upload_pool = upload_pool_.get();
    sse_hub_ = std::make_unique<SseHub>(&rt.store(),
                                        std::chrono::duration_cast<std::chrono::milliseconds>(sse_heartbeat));
    sse_hub_->Hold(rt.projector<projections::VerificationProjector>()->AddListener(sse_hub_->Waker()));
    api.sse_hub = sse_hub_.get();

    pipeline::SessionExpiryTimer::Options to;
    LendRuntime(rt, to);
    expiry_ = std::make_unique<pipeline::SessionExpiryTimer>(to);
    timers_ = s.Runs(Role::kTimers, "session-expiry");
    if (timers_ && s.fake_clock == nullptr) expiry_->Start();  // under a fake clock, timers run as it moves
    return core::Status::Ok();
  }

  // e.firma possession proofs (pipeline/verification/efirma_check.h): the SAT's certificates and,
  // when given, its OCSP responder.
  core::Status StartEfirma(Runtime& rt, const Flags& f) {
    const std::string roots = f.Get("efirma-roots");
    if (roots.empty()) return core::Status::Ok();
    SVC_ASSIGN_OR_RETURN(std::string pem, ReadFlagFile("--efirma-roots", roots));
    pipeline::adapters::EfirmaVerifier::Options eo;
    eo.roots_pem = std::move(pem);
    eo.ocsp_url = f.Get("efirma-ocsp-url");
    eo.ocsp_ca_file = f.Get("efirma-ocsp-ca-file");
    eo.clock = &rt.clock();
    SVC_ASSIGN_OR_RETURN(efirma_, pipeline::adapters::EfirmaVerifier::Create(std::move(eo)));
    options_.efirma = efirma_.get();
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    // Tests and tools: wait until every submission has its verdict.
    admin.Add("POST", "/admin/pipeline/wait-idle", AdminRoute(sk, [this](HttpRequest&) -> core::Result<core::Json> {
      if (!verification_->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("the pipeline is still busy");
      return core::Json{{"idle", true}};
    }));
  }

  std::vector<ApiRoute> Routes(Runtime* rt, const ApiContext& api) override {
    const SessionsOptions& o = WithContext(options_, api);
    std::vector<ApiRoute> routes = SessionRoutes(rt, o);
    for (auto& r : VerificationRoutes(rt, o)) routes.push_back(std::move(r));
    for (auto& r : EfirmaRoutes(rt, o)) routes.push_back(std::move(r));
    return routes;
  }

  void DescribeNode(core::Json& node) override {
    // The jobs topic's partitions this worker runs (GET /node).
    if (jobs_ == nullptr) return;
    core::Json owned = core::Json::array();
    for (uint32_t p : jobs_->Owned()) owned.push_back(p);
    node["jobPartitions"] = {{"topic", jobs_topic_}, {"owned", std::move(owned)}};
  }

  core::Result<core::Json> ClockAdvanced() override {
    if (!timers_) return core::Json::object();
    SVC_ASSIGN_OR_RETURN(auto expired, expiry_->RunOnce());
    return core::Json{{"sessionsExpired", expired}};
  }

  void Stop() override {
    if (expiry_) expiry_->Stop();
    if (verification_) verification_->Stop();
    if (sse_hub_) sse_hub_->Stop();
  }

 private:
  SessionsOptions options_;
  pipeline::verification::ModelFreeEngine model_free_engine_;
  std::unique_ptr<pipeline::biometrics::DlibEngine> dlib_engine_;
  pipeline::verification::VerificationEngine* engine_ = nullptr;
  pipeline::verification::SandboxEngine sandbox_engine_;
  pipeline::verification::SandboxGovRegistry sandbox_registry_;
  std::unique_ptr<pipeline::verification::GovRegistry> live_registry_;
  std::unique_ptr<pipeline::SessionExpiryTimer> expiry_;
  bool timers_ = false;
  std::unique_ptr<eventstore::JobQueue> jobs_;  // a cluster's jobs topic; outlives the pipeline
  std::string jobs_topic_;
  std::unique_ptr<pipeline::verification::VerificationPipeline> verification_;
  std::unique_ptr<SseHub> sse_hub_;
  std::unique_ptr<pipeline::adapters::EfirmaVerifier> efirma_;
  std::unique_ptr<UploadSlots> upload_slots_;
  std::unique_ptr<core::ByteBudget> upload_memory_;
  std::unique_ptr<core::ThreadPool> upload_pool_;  // last: joined before the engines it uses go
};

}  // namespace

extern const std::string_view kSessions_operations_md;  // operations.md, compiled in (api/CMakeLists.txt)

const Module& SessionsModule() {
  static const Module m{.name = "sessions",
                        .deciders = &RegisterDeciders<commands::verification::SessionDecider,
                                                      commands::verification::EfirmaDecider>,
                        .projectors = &AddProjectors<projections::SessionsProjector,
                                                      projections::VerificationProjector, projections::EfirmaProjector>,
                        .openapi = &SessionsOpenApi,
                        .operations = &kSessions_operations_md,
                        .declare_flags = &DeclareFlags,
                        .services = &MakeServices<SessionsServices>};
  return m;
}

}  // namespace svc::api
