#include "api/http/runtime.h"

#include "eventstore/backup.h"

#include "pipeline/adapters/s3_blob_store.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/http/module.h"
#include "commands/claims/claim_decider.h"
#include "commands/tenancy/tenant_decider.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/audit/checkpoints.h"
#include "pipeline/certificate.h"
#include "projections/tenancy_projector.h"

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

bool IsInside(const std::string& path, const std::string& data_dir) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  fs::path d = fs::weakly_canonical(fs::absolute(data_dir, ec), ec);
  auto pi = p.begin();
  for (auto di = d.begin(); di != d.end(); ++di, ++pi) {
    if (di->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

namespace {

constexpr char kNoMasterKey[] =
    "no master key: set SVC_MASTER_KEY (the base64 of 32 random bytes, e.g. `head -c 32 "
    "/dev/urandom | base64`) or --master-key-file / SVC_MASTER_KEY_FILE naming a file outside the "
    "data directory (a copy or backup of the data directory must not hold the key that unseals "
    "it). For development only, --dev-keys-in-data-dir keeps it in the data directory";

core::Result<std::string> DecodeMasterKey(const std::string& text, const std::string& where) {
  auto key = core::Base64Decode(text);
  if (!key.ok() || key->size() != 32) {
    return core::InvalidArgument(where + " must hold the base64 of 32 bytes");
  }
  return key;
}

core::Status RefuseInside(const std::string& file, const std::string& data_dir, const char* what) {
  return core::FailedPrecondition(
      std::string(what) + " " + file + " is inside the data directory " + data_dir +
      ": move it out (a copy of the data directory must not carry it), or pass "
      "--dev-keys-in-data-dir for development");
}

}  // namespace

core::Result<std::string> LoadMasterKey(const std::string& data_dir, const KeySources& sources,
                                        bool create) {
  if (const char* env = std::getenv("SVC_MASTER_KEY"); env != nullptr && *env != '\0') {
    return DecodeMasterKey(env, "SVC_MASTER_KEY");
  }
  if (!sources.master_key_file.empty()) {
    const std::string& file = sources.master_key_file;
    if (!sources.dev_keys_in_data_dir && IsInside(file, data_dir)) {
      return RefuseInside(file, data_dir, "the master key file");
    }
    if (!fs::exists(file)) {
      return core::NotFound("the master key file " + file + " does not exist (make it with "
                            "`head -c 32 /dev/urandom | base64 > " + file + "`, mode 0600)");
    }
    SVC_ASSIGN_OR_RETURN(std::string text, ReadSecretFile(file));
    return DecodeMasterKey(text, file);
  }
  fs::path path = fs::path(data_dir) / "master.key";
  if (!sources.dev_keys_in_data_dir && sources.read_existing_dev_keys && fs::exists(path)) {
    SVC_ASSIGN_OR_RETURN(std::string text, ReadSecretFile(path));
    return DecodeMasterKey(text, path.string());  // a development directory, read only
  }
  if (!sources.dev_keys_in_data_dir) {
    if (fs::exists(path)) {
      return core::FailedPrecondition(
          "the data directory holds a development master key (" + path.string() +
          "): move it outside the data directory and name it with --master-key-file or "
          "SVC_MASTER_KEY_FILE, or pass --dev-keys-in-data-dir for development");
    }
    return core::FailedPrecondition(kNoMasterKey);
  }
  if (fs::exists(path)) {
    SVC_ASSIGN_OR_RETURN(std::string text, ReadSecretFile(path));
    core::LogWarn("DEVELOPMENT MODE: the master key is read from the data directory; anyone with "
                  "a copy of the directory can unseal it. Never in production",
                  {{"path", path.string()}});
    return DecodeMasterKey(text, path.string());
  }
  if (!create) return core::NotFound("no master key in " + data_dir);
  std::string key = core::RandomBytes(32);
  SVC_RETURN_IF_ERROR(WriteSecretFile(path, core::Base64Encode(key)));
  core::LogWarn("DEVELOPMENT MODE: created a master key in the data directory; anyone with a copy "
                "of the directory can unseal it. Never in production: set SVC_MASTER_KEY or "
                "--master-key-file",
                {{"path", path.string()}});
  return key;
}

core::Result<std::string> LoadServiceKey(const std::string& data_dir, const KeySources& sources,
                                         bool create) {
  if (const char* env = std::getenv("SVC_SERVICE_KEY"); env != nullptr && *env != '\0') {
    return std::string(env);
  }
  fs::path path;
  if (!sources.service_key_file.empty()) {
    if (!sources.dev_keys_in_data_dir && IsInside(sources.service_key_file, data_dir)) {
      return RefuseInside(sources.service_key_file, data_dir, "the service key file");
    }
    path = sources.service_key_file;
  } else if (sources.dev_keys_in_data_dir ||
             (sources.read_existing_dev_keys && !create &&
              fs::exists(fs::path(data_dir) / "service.key"))) {
    path = fs::path(data_dir) / "service.key";
  } else {
    return core::FailedPrecondition(
        "no service key (it authenticates the admin socket): set SVC_SERVICE_KEY or "
        "--service-key-file / SVC_SERVICE_KEY_FILE outside the data directory; for development "
        "only, --dev-keys-in-data-dir");
  }
  if (fs::exists(path)) return ReadSecretFile(path);
  if (!create) {
    return core::NotFound("no service key at " + path.string() +
                          ": set SVC_SERVICE_KEY, or start svc once to create it");
  }
  std::string key = "svc_service_" + core::HexEncode(core::RandomBytes(24));
  SVC_RETURN_IF_ERROR(WriteSecretFile(path, key));
  return key;
}

namespace {

constexpr std::string_view kMasterCheck = "keys/master-check";
// The working root: the secret the working keys (API-key lookup, event sealing, list cursors,
// certificate signing) derive from. It is kept wrapped in the key store like a data key, so a
// master-key rotation re-wraps it and every working key stays what it was. A data directory made
// before it existed used the master key itself as the root; it keeps doing so.
constexpr std::string_view kWorkingRoot = "svc/working-root";

std::string MasterCheck(std::string_view master) {
  // A key check value, so that a start with another master key is refused at once instead of
  // failing on every sealed value later. It is a derived key's hash: it says nothing about the
  // master key (256 bits are not guessed).
  return core::Sha256Hex(core::DeriveSubkey(master, "svc/key-check/v1"));
}

std::string KeyEncryptionKey(std::string_view master) { return core::DeriveSubkey(master, "svc/key-encryption/v1"); }

}  // namespace

core::Result<OpenedKeys> OpenKeys(eventstore::KvStore& store, const std::string& master, bool fresh, bool read_only,
                                  const eventstore::KafkaKeyTopic::Options* cluster) {
  const int meta = store.Cf("default");
  const std::string check = MasterCheck(master);
  OpenedKeys out;
  out.store = std::make_unique<eventstore::KeyStore>(&store, KeyEncryptionKey(master));
  SVC_ASSIGN_OR_RETURN(auto stored, store.Get(meta, std::string(kMasterCheck)));
  if (stored.has_value() && !core::ConstantTimeEquals(*stored, check)) {
    // A cluster's rotation made on another node while this one ran: its record opens under the
    // new master key, which this directory's check moves to.
    if (cluster == nullptr || read_only || !out.store->RotatedTo()) {
      return core::FailedPrecondition(
          "the master key is not the one this data directory uses (after `svc admin master-key rotate`, "
          "start with the new key)");
    }
    core::LogInfo("started with the master key the cluster rotated to");
    stored.reset();
  }
  if (!stored.has_value() && !read_only) {
    eventstore::KvStore::Batch b;
    b.Put(meta, std::string(kMasterCheck), check);
    SVC_RETURN_IF_ERROR(store.Write(b, true));
  }
  SVC_RETURN_IF_ERROR(out.store->LoadUnfinishedRotation());
  if (cluster != nullptr && !read_only) {
    SVC_RETURN_IF_ERROR(eventstore::KafkaKeyTopic::Attach(*cluster, out.store.get()));
  }
  if (!read_only) {
    SVC_ASSIGN_OR_RETURN(bool resumed, out.store->ResumeRotation());
    if (resumed) core::LogWarn("finished a master-key rotation that had stopped midway");
  }
  auto root = out.store->Get(kWorkingRoot);
  if (!root.ok() && root.status().code() == core::StatusCode::kDataLoss && cluster != nullptr) {
    return core::FailedPrecondition(
        "the cluster's working root does not open under this node's master key: every node of a cluster "
        "starts with the same master key (docs/operations.md#keys-on-a-cluster)");
  }
  SVC_RETURN_IF_ERROR(root.status());
  if (root->has_value()) {
    out.root = std::move(**root);
  } else if (read_only) {
    out.root = master;  // a directory no writer opened since the root existed
  } else {
    // On a cluster the first node's root is the topic's first record; every other node uses it.
    SVC_ASSIGN_OR_RETURN(out.root, out.store->PutIfAbsent(kWorkingRoot, fresh ? core::RandomBytes(32) : master));
  }
  return out;
}

core::Result<std::string> LoadWorkingRoot(const std::string& data_dir, const KeySources& sources) {
  const fs::path db_path = fs::path(data_dir) / "db";
  if (!fs::exists(db_path)) return core::NotFound("no data directory at " + data_dir);
  SVC_ASSIGN_OR_RETURN(std::string master, LoadMasterKey(data_dir, sources, /*create=*/false));
  eventstore::KvStore::Options so;
  so.path = db_path.string();
  so.column_families = StoreColumnFamilies();
  so.read_only = true;
  SVC_ASSIGN_OR_RETURN(auto store, eventstore::KvStore::Open(so));
  auto keys = OpenKeys(*store, master, /*fresh=*/false, /*read_only=*/true);
  core::SecureZero(master);
  if (!keys.ok()) return keys.status();
  return std::move(keys->root);
}

core::Result<core::Json> Runtime::RotateMasterKey(std::string new_master) {
  if (new_master.size() != 32) return core::InvalidArgument("a master key is 32 bytes");
  const int meta = store_->Cf("default");
  const std::string check = MasterCheck(new_master);
  SVC_ASSIGN_OR_RETURN(int64_t rewrapped, key_store_->Rewrap(KeyEncryptionKey(new_master), [&](eventstore::KvStore::Batch& b) {
    b.Put(meta, std::string(kMasterCheck), check);
  }));
  // Development mode keeps the master key in the data directory: the next start reads the new one.
  bool dev_file = std::getenv("SVC_MASTER_KEY") == nullptr && options_.keys.master_key_file.empty() &&
                  options_.keys.dev_keys_in_data_dir;
  if (dev_file) {
    SVC_RETURN_IF_ERROR(WriteSecretFile(fs::path(options_.data_dir) / "master.key", core::Base64Encode(new_master)));
  }
  core::SecureZero(new_master);
  SVC_ASSIGN_OR_RETURN(int64_t held, key_store_->Count());
  core::LogWarn("master key rotated: every data key is wrapped under the new key; destroy the old one",
                {{"rewrapped", rewrapped}});
  return core::Json{{"rotated", true},
                    {"rewrappedKeys", rewrapped},
                    {"keys", held},
                    {"masterKeyFileUpdated", dev_file},
                    {"next", dev_file ? "nothing: the development key in the data directory was replaced"
                                      : "start the server with the new master key from now on; then destroy the old one"}};
}

std::string BackupManifestKey(std::string_view working_root) {
  return core::DeriveSubkey(working_root, "svc/backup-manifest/v1");
}

core::Result<core::Json> Runtime::Backup(const std::string& to) {
  std::lock_guard<std::mutex> lock(backup_mu_);
  core::Json about;
  about["createdAt"] = core::FormatRfc3339(clock_->Now());
  about["logBackend"] = options_.log_backend;
  about["partitions"] = log_->PartitionCount();
  if (options_.log_backend == "kafka") about["kafkaTopicPrefix"] = options_.kafka_topic_prefix;
  // Every event appended before the backup began is in it (on the embedded log); on Kafka the
  // read models' positions in the topic are.
  if (auto ends = log_->EndOffsets(); ends.ok()) about["logEndOffsetsBefore"] = *ends;
  about["blobStore"] = blobs_->Describe();
  auto start = std::chrono::steady_clock::now();
  eventstore::BackupRequest req;
  req.store = store_.get();
  req.blobs = blobs_.get();
  req.to = to;
  req.about = std::move(about);
  req.manifest_key = backup_manifest_key_;
  SVC_ASSIGN_OR_RETURN(core::Json summary, eventstore::WriteBackup(req));
  summary["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  core::LogInfo("backup written", {{"to", core::StringOr(summary, "to")},
                                   {"files", summary["totals"].value("files", int64_t{0})},
                                   {"bytes", summary["totals"].value("bytes", int64_t{0})}});
  return summary;
}

core::Result<std::unique_ptr<Runtime>> Runtime::Open(const RuntimeOptions& options) {
  // A runtime without its areas would recover a log whose events nothing decides or projects.
  if (options.modules.empty()) return core::FailedPrecondition("a runtime needs its modules (api/server/modules.h)");
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
  // Without a master key a new data directory is not created. An existing one is opened first,
  // so that a directory a running server holds answers "locked" (the admin CLI then goes through
  // the server's socket and needs no master key).
  std::error_code ec;
  const fs::path db_path = fs::path(options.data_dir) / "db";
  const bool fresh = !fs::exists(db_path);
  std::string master;
  if (fresh) {
    if (options.keys.dev_keys_in_data_dir && !options.read_only) {
      fs::create_directories(options.data_dir, ec);  // the development key is made inside it
    }
    SVC_ASSIGN_OR_RETURN(master, LoadMasterKey(options.data_dir, options.keys, !options.read_only));
  }
  fs::create_directories(options.data_dir, ec);
  if (ec) return core::Unavailable("cannot create " + options.data_dir + ": " + ec.message());
  eventstore::KvStore::Options so;
  so.path = db_path.string();
  so.column_families = StoreColumnFamilies();
  so.read_only = options.read_only;
  so.block_cache_bytes = options.block_cache_bytes;
  SVC_ASSIGN_OR_RETURN(rt->store_, eventstore::KvStore::Open(so));
  if (!fresh) {
    // A key is created only with a new directory: data sealed under a lost key stays sealed.
    SVC_ASSIGN_OR_RETURN(master, LoadMasterKey(options.data_dir, options.keys, /*create=*/false));
  }
  // A cluster's nodes share their keys through the keys topic (eventstore/key_topic.h).
  std::optional<eventstore::KafkaKeyTopic::Options> cluster_keys;
  if (options.log_backend == "kafka" && options.kafka_writers == "group" && !options.read_only) {
    cluster_keys.emplace();
    cluster_keys->brokers = options.kafka_brokers;
    cluster_keys->topic_prefix = options.kafka_topic_prefix;
    cluster_keys->clock = rt->clock_;
    cluster_keys->metrics = &rt->metrics_;
    // A new person's key is published before the person's command is decided: the request waits
    // for Kafka there too, and no longer than for its command (a node cut from the brokers).
    cluster_keys->timeout = options.command_timeout;
  }
  SVC_ASSIGN_OR_RETURN(OpenedKeys keys, OpenKeys(*rt->store_, master, fresh, options.read_only,
                                                 cluster_keys ? &*cluster_keys : nullptr));
  core::SecureZero(master);
  rt->key_store_ = std::move(keys.store);
  rt->lookup_key_ = core::DeriveSubkey(keys.root, "svc/api-key-lookup/v1");
  rt->seal_key_ = core::DeriveSubkey(keys.root, "svc/event-seal/v1");
  rt->cursor_key_ = core::DeriveSubkey(keys.root, "svc/list-cursor/v1");
  rt->request_fingerprint_key_ = core::DeriveSubkey(keys.root, "svc/request-fingerprint/v1");
  rt->reviewer_token_key_ = core::DeriveSubkey(keys.root, "svc/reviewer-token/v1");
  rt->certificate_root_key_ = pipeline::CertificateRootKey(keys.root);
  rt->audit_checkpoint_root_key_ = pipeline::audit::CheckpointRootKey(keys.root);
  rt->backup_manifest_key_ = BackupManifestKey(keys.root);
  core::SecureZero(keys.root);
  // Objects written in pieces wait in a spool (sealed) until stored; what a crash left there is
  // dropped now: no event names a spool file.
  std::string spool;
  if (options.blob_store == "s3") {
    auto s3 = options.s3;
    s3.spool_dir = spool = (fs::path(options.data_dir) / "spool").string();
    rt->blobs_ = std::make_unique<pipeline::adapters::S3BlobStore>(std::move(s3));
  } else {
    rt->blobs_ = std::make_unique<eventstore::LocalBlobStore>((fs::path(options.data_dir) / "media").string());
    spool = (fs::path(options.data_dir) / "media" / "spool").string();
  }
  if (options.log_backend == "kafka" && options.kafka_writers == "group" && options.blob_store != "s3" &&
      !options.read_only) {
    core::LogWarn("a cluster's nodes need shared object storage (--blob-store s3): captures and AML lists stored "
                  "through one node are read by the others (docs/operations.md#a-cluster-on-kafka)");
  }
  if (size_t swept = eventstore::BlobSpool::Sweep(spool); swept > 0) {
    core::LogInfo("removed spool files left by an interrupted upload", {{"files", static_cast<int64_t>(swept)}});
  }

  if (options.log_backend == "kafka") {
    eventstore::KafkaLog::Options ko;
    ko.brokers = options.kafka_brokers;
    ko.topic_prefix = options.kafka_topic_prefix;
    ko.partitions = options.partitions;
    ko.transactional_id = options.kafka_transactional_id;
    ko.take_over_group = options.kafka_take_over_group;
    ko.write_all = options.write && options.kafka_writers == "single";
    ko.metrics = &rt->metrics_;
    SVC_ASSIGN_OR_RETURN(rt->log_, eventstore::KafkaLog::Open(ko));
  } else if (options.log_backend == "embedded") {
    if (!options.write) return core::InvalidArgument("the embedded log is written by the process that holds it");
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
  wo.debug_hold_types = options.debug_hold_commands;
  wo.recovery_poll_events = options.writer_recovery_poll_events;
  // On Kafka the log is another system, which a node can lose sight of: a caller waits at most
  // the command wait, then 503 (docs/decisions.md, "A node cut from Kafka answers in bounded time").
  if (options.log_backend == "kafka") wo.answer_timeout = options.command_timeout;
  rt->writer_ = std::make_unique<commands::Writer>(wo);
  // The runtime's own aggregates and read model (every area uses tenants and claims), then each
  // module's (api/http/module.h).
  rt->writer_->Register(std::make_unique<commands::TypedAggregate<commands::tenancy::TenantDecider>>());
  rt->writer_->Register(std::make_unique<commands::TypedAggregate<commands::claims::ClaimDecider>>());
  rt->projectors_.push_back(std::make_unique<projections::TenancyProjector>());
  for (const Module* m : options.modules) {
    if (m->deciders != nullptr) m->deciders(*rt->writer_);
    if (m->projectors != nullptr) m->projectors(rt->projectors_);
  }
  // One writer recovers every partition now; a cluster's writer recovers each partition it is
  // given (StartWriterGroup).
  if (options.write && !(options.log_backend == "kafka" && options.kafka_writers == "group")) {
    SVC_RETURN_IF_ERROR(rt->writer_->Recover());
  }

  // One runner feeds every projector: the log is read and each event decoded once, and one
  // batch commits every projector's rows and checkpoints (docs/decisions.md).
  projections::ProjectionRunner::Options po;
  for (auto& p : rt->projectors_) po.projectors.push_back(p.get());
  po.log = rt->log_.get();
  po.store = rt->store_.get();
  po.metrics = &rt->metrics_;
  rt->projections_.Add(std::make_unique<projections::ProjectionRunner>(po));
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

core::Status Runtime::StartCluster(const std::string& member, bool write) {
  auto* kafka_log = dynamic_cast<eventstore::KafkaLog*>(log_.get());
  if (kafka_log == nullptr || options_.kafka_writers != "group") {
    return core::FailedPrecondition("a cluster needs --log-backend kafka --kafka-writers group");
  }
  if (command_channel_ != nullptr) return core::Status::Ok();
  eventstore::CommandChannel::Options co;
  co.brokers = options_.kafka_brokers;
  co.topic_prefix = options_.kafka_topic_prefix;
  co.partitions = options_.partitions;
  co.member = member;
  co.metrics = &metrics_;
  SVC_ASSIGN_OR_RETURN(command_channel_, eventstore::CommandChannel::Open(co));
  command_bus_ = std::make_unique<commands::CommandBus>(*writer_, *command_channel_, *ids_, *clock_,
                                                        options_.command_timeout);
  writer_->SetForwarder(command_bus_.get());
  if (!write) return core::Status::Ok();
  eventstore::WriterGroup::Options go;
  go.brokers = options_.kafka_brokers;
  go.topic_prefix = options_.kafka_topic_prefix;
  go.partitions = options_.partitions;
  go.member = member;
  go.session_timeout = options_.kafka_session_timeout;
  const std::string txn_prefix = options_.kafka_topic_prefix + "-writer-";
  commands::Writer* writer = writer_.get();
  go.take = [kafka_log, writer, txn_prefix](uint32_t p) -> core::Result<int64_t> {
    // Fence whoever wrote p before (and, on Kafka, its producer: the same transactional.id), then
    // bring p's write model to the log's end there: only then are p's commands decided here,
    // from the first one its events do not record.
    SVC_RETURN_IF_ERROR(kafka_log->TakeOver({p}, txn_prefix + std::to_string(p)));
    core::Status st = writer->TakeOver(p);
    core::Result<int64_t> resume = st.ok() ? writer->ResumeOffset(p) : core::Result<int64_t>(st);
    if (!resume.ok()) {
      writer->Release(p);
      kafka_log->Release({p}, /*drain=*/false);
    }
    return resume;
  };
  go.release = [kafka_log, writer](uint32_t p, bool lost) {
    writer->Release(p);
    kafka_log->Release({p}, /*drain=*/!lost);
  };
  commands::CommandBus* bus = command_bus_.get();
  go.command = [bus](eventstore::CommandRecord record) { bus->Deliver(std::move(record)); };
  SVC_ASSIGN_OR_RETURN(writer_group_, eventstore::WriterGroup::Join(go));
  // A fence that reaches this node's writer before the group says the partition moved: the node
  // stops counting it as its own (GET /node, command routing) rather than answering 503 for it.
  writer_->OnFenced([group = writer_group_.get()](uint32_t p) { group->LetGo(p); });
  return core::Status::Ok();
}

void Runtime::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (writer_) writer_->OnFenced(nullptr);
  delays_->Stop();  // what waits runs now, answered by a writer that still works
  // Hands this node's partitions to the other writers first, while the log still writes what
  // their strands handed it; then no command leaves or arrives.
  if (writer_group_) writer_group_->Leave();
  if (command_channel_) command_channel_->Close();
  projections_.StopAll();
  if (log_) log_->Close();  // completes or fails pending appends
  pool_.reset();            // runs what strands still hold (appends now fail fast)
  writer_.reset();          // drains the committer
}

Runtime::~Runtime() { Shutdown(); }

}  // namespace svc::api
