#include "api/http/cli.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "core/log.h"
#include "pipeline/adapters/s3_blob_store.h"

namespace svc::api::cli {

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

KeySources KeySourcesFrom(const Flags& f) {
  KeySources k;
  k.master_key_file = f.Get("master-key-file");
  k.service_key_file = f.Get("service-key-file");
  k.dev_keys_in_data_dir = f.GetBool("dev-keys-in-data-dir");
  return k;
}

// Where the blobs (sealed captures, list files) are kept (docs/operations.md#object-storage).
void DeclareBlobStore(Flags& f) {
  f.Declare({"blob-store", "local",
             "local (<data-dir>/media) or s3 (any S3-compatible service: --s3-endpoint, --s3-bucket)"});
  f.Declare({"s3-endpoint", "", "the S3 API's endpoint, scheme://host[:port] (https://s3.us-east-1.amazonaws.com)"});
  f.Declare({"s3-bucket", "", "the bucket"});
  f.Declare({"s3-prefix", "", "a key prefix ending in / (svc/media/); empty: the bucket's root"});
  f.Declare({"s3-region", "us-east-1", "the region requests are signed for"});
  f.Declare({"s3-path-style", "false",
             "address the bucket in the path (https://endpoint/bucket/key) instead of the host name "
             "(https://bucket.endpoint/key): stores on an IP address or behind one name",
             true});
  f.Declare({"s3-ca-file", "", "a PEM file of an extra certificate authority (a private CA's store)"});
  f.Declare({"s3-credentials-file", "",
             "a shared credentials file (AWS format); AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / "
             "AWS_SESSION_TOKEN win over it; default AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials"});
  f.Declare({"s3-profile", "", "the credentials file's profile (default AWS_PROFILE, else default)"});
  f.Declare({"s3-request-timeout-seconds", "60",
             "one call to the store, sending and reading included; a call over it is retried like a 5xx"});
}

void DeclareCommon(Flags& f) {
  f.Declare({"data-dir", "./data", "data directory: RocksDB (log, write model, read models), keys"});
  f.Declare({"partitions", "4", "log partitions; fixed when the data directory is created"});
  f.Declare({"durability", "fsync",
             "fsync: acknowledge appends after fsync; os: after the OS has them (survives a "
             "process crash, not a power loss)"});
  f.Declare({"threads", std::to_string(std::max(1u, std::thread::hardware_concurrency())),
             "worker threads (HTTP I/O and command strands each get this many)"});
  f.Declare({"cache-mib", "128",
             "RocksDB's block cache in MiB, with the tables' index and filter blocks in it: the store's memory "
             "besides its memtables (docs/operations.md#memory)"});
  f.Declare({"log-level", "info", "debug, info, warn or error"});
  f.Declare({"log-backend", "embedded",
             "embedded (RocksDB log in the data directory) or kafka (--kafka-brokers)"});
  f.Declare({"kafka-brokers", "", "Kafka bootstrap servers (host:port,...) for --log-backend kafka"});
  f.Declare({"kafka-topic-prefix", "svc", "events go to topic <prefix>.events"});
  f.Declare({"kafka-writers", "single",
             "single: this process writes every partition (a second writer fences it); group: the nodes with the "
             "writer role share the partitions through the consumer group <prefix>-writers "
             "(docs/operations.md#a-cluster-on-kafka)"});
  f.Declare({"kafka-session-timeout-ms", "0",
             "--kafka-writers group: how long a writer node that died keeps its partitions (0: 6000 on Kafka, "
             "4000 on svc dev-broker)"});
  f.Declare({"command-timeout-ms", "20000",
             "--log-backend kafka: how long a request waits for Kafka at each step (a new key on the keys topic; "
             "its command's answer, from the partition's writer on another node or from Kafka for one decided "
             "here) before it answers 503 (longer than a take-over after a node dies, so that one delays writes "
             "rather than failing them)"});
  f.Declare({"kafka-transactional-id", "",
             "--kafka-writers single: transactional.id of this writer (default <prefix>-writer); a second writer "
             "with the same id fences the first. A group's nodes use <prefix>-writer-<partition>"});
  f.Declare({"kafka-take-over-group", "false",
             "--kafka-writers single: write a topic that a writer group wrote last (every node of the group must "
             "be stopped first: the single writer fences them). Without it such a start is refused",
             true});
  DeclareKeys(f);
  DeclareBlobStore(f);
}

void DeclareAdminSocket(Flags& f) {
  f.Declare({"admin-socket", "", "admin socket of a running server (default <data-dir>/admin.sock)"});
}

bool HeldByServer(const core::Status& open_failure) {
  return open_failure.code() == core::StatusCode::kUnavailable &&
         open_failure.message().find("locked") != std::string::npos;
}

core::Result<HttpResponse> CallAdminSocket(const Flags& f, const RuntimeOptions& ro, const std::string& method,
                                           const std::string& path, const std::string& body,
                                           std::chrono::milliseconds timeout) {
  SVC_ASSIGN_OR_RETURN(std::string service_key, LoadServiceKey(ro.data_dir, ro.keys, /*create=*/false));
  ClientTarget target;
  target.unix_socket = f.Get("admin-socket").empty() ? (std::filesystem::path(ro.data_dir) / "admin.sock").string()
                                                     : f.Get("admin-socket");
  return HttpCall(target, method, path, {{"Authorization", "Bearer " + service_key}},
                  method == "POST" ? body : "", timeout);
}

int RunLocally(Runtime& rt, const std::function<core::Result<core::Json>()>& command) {
  rt.StartProjections();
  auto r = command();
  if (auto st = rt.CatchUpProjections(); !st.ok()) return Fail(st);
  rt.Shutdown();
  if (!r.ok()) return Fail(r.status());
  Print(*r);
  return 0;
}

int PrintAdminAnswer(const HttpResponse& resp) {
  core::Json j = core::ParseJsonOrDiscarded(resp.body);
  if (resp.status >= 300 || resp.status == 0) {
    std::cerr << "svc: " << (j.is_object() ? j.dump(2) : resp.body) << "\n";
    return 1;
  }
  Print(j);
  return 0;
}

core::Result<RuntimeOptions> RuntimeOptionsFrom(const Flags& f, const std::vector<const Module*>& modules) {
  RuntimeOptions o;
  o.modules = modules;
  o.data_dir = f.Get("data-dir");
  o.keys = KeySourcesFrom(f);
  try {
    o.partitions = static_cast<uint32_t>(std::stoul(f.Get("partitions")));
    o.threads = std::stoul(f.Get("threads"));
    const unsigned long mib = std::stoul(f.Get("cache-mib"));
    if (mib < 8 || mib > (1u << 20)) throw std::out_of_range("cache-mib");
    o.block_cache_bytes = size_t{mib} << 20;
  } catch (...) {
    return core::InvalidArgument("--partitions and --threads must be numbers, --cache-mib 8 or more");
  }
  std::string d = f.Get("durability");
  if (d == "fsync") o.durability = eventstore::Durability::kFsync;
  else if (d == "os") o.durability = eventstore::Durability::kOs;
  else return core::InvalidArgument("--durability must be fsync or os");
  o.log_backend = f.Get("log-backend");
  o.kafka_brokers = f.Get("kafka-brokers");
  o.kafka_topic_prefix = f.Get("kafka-topic-prefix");
  o.kafka_transactional_id = f.Get("kafka-transactional-id");
  if (o.kafka_transactional_id.empty()) o.kafka_transactional_id = o.kafka_topic_prefix + "-writer";
  o.kafka_take_over_group = f.GetBool("kafka-take-over-group");
  o.kafka_writers = f.Get("kafka-writers");
  if (o.kafka_writers != "single" && o.kafka_writers != "group") {
    return core::InvalidArgument("--kafka-writers must be single or group");
  }
  try {
    o.kafka_session_timeout = std::chrono::milliseconds(std::stoll(f.Get("kafka-session-timeout-ms")));
  } catch (...) {
    return core::InvalidArgument("--kafka-session-timeout-ms must be a number");
  }
  try {
    o.command_timeout = std::chrono::milliseconds(std::stoll(f.Get("command-timeout-ms")));
  } catch (...) {
    return core::InvalidArgument("--command-timeout-ms must be a number");
  }
  if (o.command_timeout < std::chrono::seconds(2)) return core::InvalidArgument("--command-timeout-ms must be at least 2000");
  if (o.log_backend == "kafka" && o.kafka_brokers.empty()) {
    return core::InvalidArgument("--log-backend kafka needs --kafka-brokers");
  }
  o.blob_store = f.Get("blob-store");
  if (o.blob_store == "s3") {
    o.s3.endpoint = f.Get("s3-endpoint");
    o.s3.bucket = f.Get("s3-bucket");
    o.s3.prefix = f.Get("s3-prefix");
    o.s3.region = f.Get("s3-region");
    o.s3.path_style = f.GetBool("s3-path-style");
    o.s3.ca_file = f.Get("s3-ca-file");
    long long timeout = 0;
    try {
      timeout = std::stoll(f.Get("s3-request-timeout-seconds"));
    } catch (...) {
    }
    if (timeout < 1) return core::InvalidArgument("--s3-request-timeout-seconds must be at least 1");
    o.s3.request_timeout = std::chrono::seconds(timeout);
    if (o.s3.endpoint.empty() || o.s3.bucket.empty()) {
      return core::InvalidArgument("--blob-store s3 needs --s3-endpoint and --s3-bucket");
    }
    if (!o.s3.prefix.empty() && o.s3.prefix.back() != '/') o.s3.prefix.push_back('/');
    SVC_ASSIGN_OR_RETURN(o.s3.credentials,
                         pipeline::adapters::LoadAwsCredentials(f.Get("s3-credentials-file"), f.Get("s3-profile")));
  } else if (o.blob_store != "local") {
    return core::InvalidArgument("--blob-store must be local or s3");
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

core::Result<std::string> ReadInputFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::NotFound("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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

}  // namespace svc::api::cli
