#include "api/runtime.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "commands/review/case_decider.h"
#include "commands/webhooks/delivery_decider.h"
#include "commands/webhooks/endpoint_decider.h"
#include "commands/tenancy/tenant_decider.h"
#include "pipeline/certificate.h"
#include "core/crypto.h"
#include "core/log.h"
#include "projections/sessions_projector.h"
#include "projections/tenancy_projector.h"
#include "projections/webhooks_projector.h"
#include "commands/verification/session_decider.h"

namespace svc::api {

namespace fs = std::filesystem;

std::vector<std::string> StoreColumnFamilies() {
  return {"log", "writer", std::string(projections::kViewsCf),
          std::string(projections::kProjectionsCf), "keystore"};
}

namespace {

core::Result<std::string> ReadSecretFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return core::NotFound("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

core::Status WriteSecretFile(const fs::path& p, const std::string& content) {
  fs::path tmp = p;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return core::Unavailable("cannot write " + tmp.string());
    out << content << "\n";
  }
  ::chmod(tmp.c_str(), 0600);
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) return core::Unavailable("cannot rename " + tmp.string() + ": " + ec.message());
  return core::Status::Ok();
}

}  // namespace

core::Result<std::string> LoadMasterKey(const std::string& data_dir) {
  if (const char* env = std::getenv("SVC_MASTER_KEY"); env != nullptr && *env != '\0') {
    auto key = core::Base64Decode(env);
    if (!key.ok() || key->size() != 32) {
      return core::InvalidArgument("SVC_MASTER_KEY must be the base64 of 32 bytes");
    }
    return key;
  }
  fs::path path = fs::path(data_dir) / "master.key";
  if (const char* f = std::getenv("SVC_MASTER_KEY_FILE"); f != nullptr && *f != '\0') path = f;
  if (fs::exists(path)) {
    SVC_ASSIGN_OR_RETURN(std::string text, ReadSecretFile(path));
    auto key = core::Base64Decode(text);
    if (!key.ok() || key->size() != 32) {
      return core::InvalidArgument(path.string() + " must hold the base64 of 32 bytes");
    }
    return key;
  }
  std::string key = core::RandomBytes(32);
  SVC_RETURN_IF_ERROR(WriteSecretFile(path, core::Base64Encode(key)));
  core::LogWarn("created a development master key in the data directory; set SVC_MASTER_KEY "
                "in production",
                {{"path", path.string()}});
  return key;
}

core::Result<std::string> LoadOrCreateServiceKey(const std::string& data_dir, bool create) {
  if (const char* env = std::getenv("SVC_SERVICE_KEY"); env != nullptr && *env != '\0') {
    return std::string(env);
  }
  fs::path path = fs::path(data_dir) / "service.key";
  if (fs::exists(path)) return ReadSecretFile(path);
  if (!create) return core::NotFound("no service key: set SVC_SERVICE_KEY or start svc once");
  std::string key = "svc_service_" + core::HexEncode(core::RandomBytes(24));
  SVC_RETURN_IF_ERROR(WriteSecretFile(path, key));
  return key;
}

core::Result<std::unique_ptr<Runtime>> Runtime::Open(const RuntimeOptions& options) {
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->options_ = options;
  if (options.clock != nullptr) {
    rt->clock_ = options.clock;
  } else {
    rt->own_clock_ = std::make_unique<core::SystemClock>();
    rt->clock_ = rt->own_clock_.get();
  }
  if (options.ids != nullptr) {
    rt->ids_ = options.ids;
  } else {
    rt->own_ids_ = std::make_unique<core::RandomIdSource>();
    rt->ids_ = rt->own_ids_.get();
  }
  std::error_code ec;
  fs::create_directories(options.data_dir, ec);
  if (ec) return core::Unavailable("cannot create " + options.data_dir + ": " + ec.message());

  SVC_ASSIGN_OR_RETURN(std::string master, LoadMasterKey(options.data_dir));
  rt->lookup_key_ = core::DeriveSubkey(master, "svc/api-key-lookup/v1");
  rt->seal_key_ = core::DeriveSubkey(master, "svc/event-seal/v1");
  rt->cursor_key_ = core::DeriveSubkey(master, "svc/list-cursor/v1");
  std::string kek = core::DeriveSubkey(master, "svc/key-encryption/v1");
  rt->certificate_root_key_ = pipeline::CertificateRootKey(master);
  core::SecureZero(master);

  eventstore::KvStore::Options so;
  so.path = (fs::path(options.data_dir) / "db").string();
  so.column_families = StoreColumnFamilies();
  so.read_only = options.read_only;
  SVC_ASSIGN_OR_RETURN(rt->store_, eventstore::KvStore::Open(so));
  rt->key_store_ = std::make_unique<eventstore::KeyStore>(rt->store_.get(), std::move(kek));
  rt->blobs_ = std::make_unique<eventstore::BlobStore>((fs::path(options.data_dir) / "media").string());

  if (options.log_backend == "kafka") {
    eventstore::KafkaLog::Options ko;
    ko.brokers = options.kafka_brokers;
    ko.topic_prefix = options.kafka_topic_prefix;
    ko.partitions = options.partitions;
    ko.transactional_id = options.kafka_transactional_id;
    ko.metrics = &rt->metrics_;
    SVC_ASSIGN_OR_RETURN(rt->log_, eventstore::KafkaLog::Open(ko));
  } else if (options.log_backend == "embedded") {
    eventstore::EmbeddedLog::Options lo;
    lo.store = rt->store_.get();
    lo.partitions = options.partitions;
    lo.durability = options.durability;
    lo.metrics = &rt->metrics_;
    SVC_ASSIGN_OR_RETURN(rt->log_, eventstore::EmbeddedLog::Open(lo));
  } else {
    return core::InvalidArgument("--log-backend must be embedded or kafka");
  }

  rt->pool_ = std::make_unique<core::ThreadPool>(std::max<size_t>(1, options.threads));
  commands::Writer::Options wo;
  wo.log = rt->log_.get();
  wo.store = rt->store_.get();
  wo.ids = rt->ids_;
  wo.pool = rt->pool_.get();
  wo.metrics = &rt->metrics_;
  rt->writer_ = std::make_unique<commands::Writer>(wo);
  rt->writer_->Register(
      std::make_unique<commands::TypedAggregate<commands::tenancy::TenantDecider>>());
  rt->writer_->Register(
      std::make_unique<commands::TypedAggregate<commands::verification::SessionDecider>>());
  rt->writer_->Register(
      std::make_unique<commands::TypedAggregate<commands::review::CaseDecider>>());
  rt->writer_->Register(
      std::make_unique<commands::TypedAggregate<commands::webhooks::EndpointDecider>>());
  rt->writer_->Register(
      std::make_unique<commands::TypedAggregate<commands::webhooks::DeliveryDecider>>());
  SVC_RETURN_IF_ERROR(rt->writer_->Recover());

  rt->projectors_.push_back(std::make_unique<projections::TenancyProjector>());
  rt->projectors_.push_back(std::make_unique<projections::SessionsProjector>());
  auto webhooks = std::make_unique<projections::WebhooksProjector>();
  rt->webhooks_projector_ = webhooks.get();
  rt->projectors_.push_back(std::move(webhooks));
  auto verification = std::make_unique<projections::VerificationProjector>();
  rt->verification_projector_ = verification.get();
  rt->projectors_.push_back(std::move(verification));
  for (auto& p : rt->projectors_) {
    projections::ProjectionRunner::Options po;
    po.projector = p.get();
    po.log = rt->log_.get();
    po.store = rt->store_.get();
    po.metrics = &rt->metrics_;
    rt->projections_.Add(std::make_unique<projections::ProjectionRunner>(po));
  }
  SVC_RETURN_IF_ERROR(rt->projections_.PrepareAll());
  return rt;
}

core::Status Runtime::CatchUpProjections() {
  if (!started_) {
    for (const auto& r : projections_.runners()) SVC_RETURN_IF_ERROR(r->RunUntilCaughtUp());
    return core::Status::Ok();
  }
  SVC_ASSIGN_OR_RETURN(auto ends, log_->EndOffsets());
  std::vector<eventstore::LogPosition> last;
  for (uint32_t p = 0; p < ends.size(); ++p) {
    if (ends[p] > 0) last.push_back({p, ends[p] - 1});
  }
  if (!projections_.WaitApplied(last, std::chrono::seconds(60))) {
    return core::Unavailable("projections did not catch up");
  }
  return core::Status::Ok();
}

void Runtime::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  projections_.StopAll();
  if (log_) log_->Close();  // completes or fails pending appends
  pool_.reset();            // runs what strands still hold (appends now fail fast)
  writer_.reset();          // drains the committer
}

Runtime::~Runtime() { Shutdown(); }

}  // namespace svc::api
