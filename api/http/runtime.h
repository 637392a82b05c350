#pragma once
// Runtime: everything that owns data, wired together: the RocksDB store, the event log, the
// write side and the projections. `svc serve` runs one; the admin CLI and `svc replay` open one
// on a stopped data directory.

#include <memory>
#include <mutex>
#include <string>

#include "commands/command_bus.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/delay_queue.h"
#include "core/executor.h"
#include "core/ids.h"
#include "core/mx_ids.h"
#include "core/metrics.h"
#include "eventstore/blob_store.h"
#include "eventstore/embedded_log.h"
#include "eventstore/kafka_log.h"
#include "eventstore/key_topic.h"
#include "eventstore/writer_group.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/adapters/s3_blob_store.h"
#include "projections/audit/audit_reads.h"
#include "projections/projector.h"
#include "projections/runner.h"

namespace svc::api {

struct Module;  // api/http/module.h

// Where the master key (every other key derives from it) and the admin service key come from.
// Outside development neither may sit in the data directory: a copy or backup of that directory
// must not be able to unseal what it holds (docs/operations.md#keys).
struct KeySources {
  std::string master_key_file;   // --master-key-file / SVC_MASTER_KEY_FILE (base64 of 32 bytes)
  std::string service_key_file;  // --service-key-file / SVC_SERVICE_KEY_FILE
  // --dev-keys-in-data-dir / SVC_DEV_KEYS_IN_DATA_DIR: DEVELOPMENT ONLY. Keep (and create on first
  // start) master.key and service.key in the data directory, as scripts/run and the tests do.
  bool dev_keys_in_data_dir = false;
  // Operator commands (admin, replay, certificate): read development keys that a development
  // server already left in the data directory, never create them. `svc serve` leaves this off,
  // so a production start never runs on a key a copy of the directory carries.
  bool read_existing_dev_keys = false;
};

struct RuntimeOptions {
  std::string data_dir = "./data";
  KeySources keys;
  std::string log_backend = "embedded";  // "embedded" | "kafka"
  std::string kafka_brokers;
  std::string kafka_topic_prefix = "svc";
  std::string kafka_transactional_id = "svc-writer";  // the CLI's default: <kafka_topic_prefix>-writer
  bool kafka_take_over_group = false;                 // single: may write a topic a writer group wrote last
  // "single": this process writes every partition. "group": the partitions it writes are the ones
  // the writers' group gives it (StartWriterGroup); until then, and in an operator command, none.
  std::string kafka_writers = "single";
  std::chrono::milliseconds kafka_session_timeout{0};  // eventstore::WriterGroup::Options
  // How long a caller waits for a command's answer on the Kafka backend: from another node's writer
  // (the command bus), or from the log for one decided here (Writer::Options::answer_timeout).
  // svc serve --command-timeout-ms; the same default.
  std::chrono::milliseconds command_timeout{20000};
  uint32_t partitions = 4;
  eventstore::Durability durability = eventstore::Durability::kFsync;
  size_t threads = 2;
  size_t block_cache_bytes = size_t{128} << 20;  // eventstore::KvStore::Options; svc serve --cache-mib
  bool read_only = false;
  // False on a process without the writer role (svc serve --roles, Kafka only): the log is opened
  // for reading, the write model is not recovered and every command is answered kUnavailable.
  bool write = true;
  std::vector<std::string> debug_hold_commands;  // TESTS ONLY: commands::Writer::Options::debug_hold_types
  size_t writer_recovery_poll_events = 4096;     // commands::Writer::Options::recovery_poll_events
  // Where captures, export dumps and list files are kept: "local" (<data_dir>/media) or "s3"
  // (any S3-compatible service, `s3`).
  std::string blob_store = "local";
  pipeline::adapters::S3Options s3;
  // The areas whose deciders and projectors this runtime runs (api/server/modules.h: AllModules();
  // api/http/module.h). The runtime's own are the tenancy and the claims every area uses.
  std::vector<const Module*> modules;
  // Tests inject these; production uses the system clock and random ids.
  core::Clock* clock = nullptr;
  core::IdSource* ids = nullptr;
};

// The key store of an opened data directory and its working root (runtime.cc).
struct OpenedKeys {
  std::unique_ptr<eventstore::KeyStore> store;
  std::string root;
};
// `cluster`: the keys are those of a cluster's keys topic (eventstore/key_topic.h), applied here
// before the working root is read (the topic's first node makes it; every node uses that one).
core::Result<OpenedKeys> OpenKeys(eventstore::KvStore& store, const std::string& master, bool fresh,
                                  bool read_only, const eventstore::KafkaKeyTopic::Options* cluster = nullptr);
// The working root of a data directory, read only (operator commands such as
// `svc certificate public-key` use it; a running server may hold the directory).
core::Result<std::string> LoadWorkingRoot(const std::string& data_dir, const KeySources& sources);

class Runtime {
 public:
  // Opens (creating if needed) the data directory, recovers the write model from the log and
  // prepares the projections (not started). Fails with kUnavailable when another process has
  // the data directory open.
  static core::Result<std::unique_ptr<Runtime>> Open(const RuntimeOptions& options);
  // What it was opened with.
  const RuntimeOptions& options() const { return options_; }
  ~Runtime();

  eventstore::KvStore& store() { return *store_; }
  eventstore::EventLog& log() { return *log_; }
  commands::Writer& writer() { return *writer_; }
  // Tasks to run after a delay (a use case waiting for another request's step); what still waits
  // at Shutdown runs then, while the writer still answers.
  core::DelayQueue& delays() { return *delays_; }
  projections::ProjectionSet& projections() { return projections_; }
  std::vector<projections::Projector*> projectors() const {
    std::vector<projections::Projector*> out;
    for (const auto& p : projectors_) out.push_back(p.get());
    return out;
  }
  core::MetricsRegistry& metrics() { return metrics_; }
  core::Clock& clock() { return *clock_; }
  // The clock's civil date (UTC): what CURP and RFC dates are checked against.
  core::mx::CivilDate Today() const { return core::mx::CivilDateOfMicros(clock_->Now().micros); }
  core::IdSource& ids() { return *ids_; }
  // Key for the keyed hash of API keys (derived from the master key).
  const std::string& api_key_lookup_key() const { return lookup_key_; }
  // Key that seals secrets and personal data kept in events (link tokens, consent subject, meta).
  const std::string& seal_key() const { return seal_key_; }
  // Key that authenticates list cursors.
  const std::string& cursor_key() const { return cursor_key_; }
  // Key of the keyed requests' fingerprints (request_fingerprint.h).
  const std::string& request_fingerprint_key() const { return request_fingerprint_key_; }
  // Key that signs the review console's reviewer tokens (core/jwt.h).
  const std::string& reviewer_token_key() const { return reviewer_token_key_; }
  const std::string& data_dir() const { return options_.data_dir; }
  // Data keys (DEKs), apart from the log; media blobs (sealed, content-addressed).
  eventstore::KeyStore& key_store() { return *key_store_; }
  eventstore::BlobStore& blobs() { return *blobs_; }
  // Key deriving each tenant's certificate-signing keys.
  const std::string& certificate_root_key() const { return certificate_root_key_; }
  const std::string& audit_checkpoint_root_key() const { return audit_checkpoint_root_key_; }
  // A projector of the runtime by its type, for a module's process managers and listeners
  // (null when no module given to the runtime adds one).
  template <class P>
  P* projector() const {
    for (const auto& p : projectors_) {
      if (auto* typed = dynamic_cast<P*>(p.get())) return typed;
    }
    return nullptr;
  }
  // GET /v1/audit-logs/verify and the compliance reports: each chain verified from where the last
  // call stopped.
  projections::IncrementalChainVerifier& audit_chain_verifier() { return audit_chain_verifier_; }

  // `svc admin master-key rotate`: every wrapped key (data keys, the blind-index keys, the
  // working root) moves to a key-encryption key of `new_master` (32 bytes), while the server runs;
  // nothing in the log changes. From the start of the rotation the data directory opens only
  // with the new master key. In development mode the data directory's master.key is replaced.
  core::Result<core::Json> RotateMasterKey(std::string new_master);

  // `svc backup --to DIR`, on a running node or a stopped directory: a checkpoint of the store
  // and a copy of the blobs, with a manifest (eventstore/backup.h). One at a time.
  core::Result<core::Json> Backup(const std::string& to);

  // --kafka-writers group, as node `member`: commands of partitions decided elsewhere travel to
  // their writer (commands/command_bus.h); with `write`, the node joins the writers' group, and
  // the partitions it is given are fenced, recovered and decided here until they move
  // (eventstore/writer_group.h).
  core::Status StartCluster(const std::string& member, bool write);

  // Brings every projection to the end of the log: applies synchronously when the runners are
  // not started, else waits for them.
  core::Status CatchUpProjections();
  void StartProjections() {
    projections_.StartAll();
    started_ = true;
  }
  // Stops projections, closes the log and the write side, in that order.
  void Shutdown();

 private:
  Runtime() = default;
  RuntimeOptions options_;
  core::MetricsRegistry metrics_;
  std::unique_ptr<core::Clock> own_clock_;
  std::unique_ptr<core::IdSource> own_ids_;
  core::Clock* clock_ = nullptr;
  core::IdSource* ids_ = nullptr;
  std::unique_ptr<eventstore::KvStore> store_;
  std::unique_ptr<eventstore::EventLog> log_;
  std::unique_ptr<core::ThreadPool> pool_;
  std::unique_ptr<commands::Writer> writer_;
  std::unique_ptr<core::DelayQueue> delays_ = std::make_unique<core::DelayQueue>();
  std::unique_ptr<eventstore::CommandChannel> command_channel_;
  std::unique_ptr<commands::CommandBus> command_bus_;
  std::unique_ptr<eventstore::WriterGroup> writer_group_;
  std::vector<std::unique_ptr<projections::Projector>> projectors_;
  projections::ProjectionSet projections_;
  std::string lookup_key_;
  std::string seal_key_;
  std::string cursor_key_;
  std::string request_fingerprint_key_;
  std::string reviewer_token_key_;
  std::string certificate_root_key_;
  std::string audit_checkpoint_root_key_;
  std::string backup_manifest_key_;
  std::mutex backup_mu_;
  std::unique_ptr<eventstore::KeyStore> key_store_;
  std::unique_ptr<eventstore::BlobStore> blobs_;
  projections::IncrementalChainVerifier audit_chain_verifier_;
  bool shut_down_ = false;
  bool started_ = false;
};

// Loads the 32-byte master key, in this order: SVC_MASTER_KEY (base64); the key file of
// `sources` (it must exist and lie outside the data directory); with dev_keys_in_data_dir,
// <data_dir>/master.key (created when `create`, mode 0600, with a loud warning). Anything else
// is kFailedPrecondition naming the ways to provide one. Never writes unless `create`.
// The key of backup manifests' HMAC, from the working root (eventstore/backup.h).
std::string BackupManifestKey(std::string_view working_root);

core::Result<std::string> LoadMasterKey(const std::string& data_dir, const KeySources& sources,
                                        bool create);

// The admin service key: SVC_SERVICE_KEY; the service key file of `sources` (outside the data
// directory; created there when `create` and missing); with dev_keys_in_data_dir,
// <data_dir>/service.key (created when `create`). Mode 0600.
core::Result<std::string> LoadServiceKey(const std::string& data_dir, const KeySources& sources,
                                         bool create);

// True when `path` is the data directory or inside it (after resolving `.`, `..` and links).
bool IsInside(const std::string& path, const std::string& data_dir);

// Column families of the data directory's store.
std::vector<std::string> StoreColumnFamilies();

}  // namespace svc::api
