#include "api/server/commands.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "api/http/http_client.h"
#include "api/http/asyncapi.h"
#include "eventstore/public_sink.h"
#include "pipeline/events/publisher.h"
#include "api/http/openapi.h"
#include "api/server/admin.h"
#include "api/server/cli.h"
#include "api/server/replay.h"
#include "api/server/modules.h"
#include "core/crypto.h"
#include "core/log.h"
#include "eventstore/kafka_check.h"
#include "eventstore/kafka_dev_broker.h"
#include "pipeline/biometrics/face_model.h"
#include "pipeline/certificate.h"

namespace svc::api::cli {

namespace {

const char* const kCommands =
    "svc <command> [flags]\n\n"
    "commands:\n"
    "  serve                     run the service\n"
    "  admin tenant create       --name NAME\n"
    "  admin tenant list\n"
    "  admin app create          --tenant ten_... --name NAME: another application of the tenant\n"
    "  admin key create          --tenant ten_... [--env test|live] [--type secret|publishable]\n"
    "                            [--scopes a,b] [--name NAME] [--application app_...] [--flows flw_a,flw_b]\n"
    "  admin flow create|draft|validate|publish|archive|list|show   flows (`svc admin flow --help`)\n"
    "  admin app list|archive|settings   applications' embedded settings (allowed flows, origins)\n"
    "  admin key revoke          --tenant ten_... --key key_... [--reason TEXT]\n"
    "  admin key list            --tenant ten_...\n"
    "  admin tenant review-policy --tenant ten_... --double-approval none|declines|all\n"
    "                            [--trust-below 0.8]: which review resolutions need two reviewers\n"
    "  admin user create         --tenant ten_... --name LABEL [--role reviewer|supervisor]: a\n"
    "                            review-console user (no personal data in LABEL); secret shown once\n"
    "  admin user list           --tenant ten_...\n"
    "  admin user disable        --tenant ten_... --user usr_...\n"
    "  admin tenant export-key   --tenant ten_... --public-key KEY: the X25519 key bulk export\n"
    "                            dumps are sealed to (from `export-bulk keygen`)\n"
    "  admin webhooks status     the delivery queue of the running server\n"
    "  admin webhooks pause      stop starting deliveries (they queue; a restart resumes)\n"
    "  admin webhooks resume\n"
    "  admin master-key rotate   --new-master-key-file FILE  rewrap every data key under a new master\n"
    "                            key, the server running or not; then start with the new key\n"
    "  replay                    [--projector NAME]... [--verify]\n"
    "  dev-broker                [--brokers 3] [--partitions 4] [--verification-job-partitions 16] [--topic-prefix svc]\n"
    "  kafka-check               --kafka-brokers LIST [--kafka-topic-prefix svc]  what the Kafka log relies on, on\n"
    "                            your brokers: the events topic's settings, producer fencing, read_committed\n"
    "  docs errors               print the error catalogue (Markdown)\n"
    "  openapi                   print the OpenAPI 3.1 document of the public API\n"
    "  asyncapi [--public-base-url URL]\n"
    "                            print the AsyncAPI 3 document of the public event topics\n"
    "  certificate verify FILE   check a verification certificate's hash and signatures\n"
    "                            (--public-key K: without the service; --data-dir: also the HMAC)\n"
    "  certificate public-key    --tenant T --env E: the Ed25519 key certificates are signed with\n"
    "  models import             --face-api DIR: build the face-recognition model from the npm\n"
    "                            package @vladmandic/face-api into <data-dir>/models\n"
    "  blobs migrate             --blob-store s3 --s3-endpoint URL --s3-bucket B: copy the data\n"
    "                            directory's blobs into the bucket (resumable; deletes nothing)\n"
    "  blobs gc                  [--dry-run] [--grace-seconds N]: delete the blobs no event refers to\n"
    "  backup                    --to DIR: a consistent copy of the data directory (the store and its\n"
    "                            blobs, with a manifest; never the master key), the server running or not\n"
    "  restore                   --from DIR --data-dir NEW --master-key-file FILE: check a backup\n"
    "                            against its manifest and the master key, and restore it into NEW\n";


}  // namespace

std::string TopUsage() {
  std::string usage = kCommands;
  for (const Module* m : AllModules()) {
    for (const CliVerb& v : m->verbs) usage += v.usage;
  }
  return usage;
}

// Runs an admin operation in-process when the data directory is free, or through the running
// server's admin socket when it is not.
int Admin(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << TopUsage();
    return 2;
  }
  std::string noun = argv[2], verb = argv[3];
  if (noun == "flow" || (noun == "app" && verb != "create")) return AdminEmbedded(argc, argv);
  Flags f;
  DeclareCommon(f);
  DeclareAdminSocket(f);
  f.Declare({"name", "", "tenant or key name"});
  f.Declare({"tenant", "", "tenant id (ten_...)"});
  f.Declare({"key", "", "API key id (key_...)"});
  f.Declare({"env", "test", "key environment: test or live"});
  f.Declare({"type", "secret", "key type: secret or publishable"});
  f.Declare({"scopes", "*", "comma-separated scopes; wildcards persons:* and * allowed"});
  f.Declare({"application", "", "application id (default: the tenant's default application)"});
  f.Declare({"flows", "", "key create: comma-separated flow ids the key is restricted to (default: any)"});
  f.Declare({"reason", "", "revocation reason"});
  f.Declare({"role", "reviewer", "user create: reviewer or supervisor"});
  f.Declare({"double-approval", "none", "tenant review-policy: none, declines or all"});
  f.Declare({"trust-below", "0", "tenant review-policy: approvals of sessions under this trust score (0-1) need two"});
  f.Declare({"user", "", "user disable: the user id (usr_...)"});
  f.Declare({"public-key", "", "tenant export-key: the X25519 public key (base64url) bulk exports are sealed to"});
  f.Declare({"new-master-key-file", "", "master-key rotate: the new master key (base64 of 32 bytes), made and kept safe before the rotation"});
  if (auto st = f.Parse(argc, argv, 4); !st.ok()) return Fail(st);
  if (f.HelpRequested()) {
    std::cout << f.Help("svc admin " + noun + " " + verb + " [flags]");
    return 0;
  }
  core::SetLogLevel(core::LogLevel::kWarn);
  std::string key = noun + " " + verb;
  const bool webhooks = key == "webhooks status" || key == "webhooks pause" || key == "webhooks resume";
  const bool rotate = key == "master-key rotate";
  if (key != "tenant create" && key != "tenant list" && key != "app create" && key != "key create" &&
      key != "key revoke" && key != "key list" && key != "tenant export-key" && key != "user create" && key != "user list" && key != "user disable" && key != "tenant review-policy" &&
      !webhooks && !rotate) {
    std::cerr << TopUsage();
    return 2;
  }
  if ((key == "tenant create" || key == "app create" || key == "user create") && f.Get("name").empty()) {
    return Fail(core::InvalidArgument("--name is required"));
  }
  std::string new_master;
  if (rotate) {
    if (f.Get("new-master-key-file").empty()) return Fail(core::InvalidArgument("--new-master-key-file is required"));
    std::ifstream in(f.Get("new-master-key-file"));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
    auto decoded = core::Base64Decode(text);
    core::SecureZero(text);
    if (!in || !decoded.ok() || decoded->size() != 32) {
      return Fail(core::InvalidArgument("--new-master-key-file must hold the base64 of 32 random bytes "
                                        "(`head -c 32 /dev/urandom | base64 > FILE`)"));
    }
    new_master = std::move(*decoded);
  }
  auto ro = RuntimeOptionsFrom(f);
  if (!ro.ok()) return Fail(ro.status());
  ro->keys.read_existing_dev_keys = true;  // an operator command: never creates keys
  if (rotate && ro->keys.master_key_file.empty() && std::getenv("SVC_MASTER_KEY") == nullptr) {
    // The development key lives in the data directory: the rotation replaces it there.
    ro->keys.dev_keys_in_data_dir = true;
  }

  KeyCreateRequest kc;
  kc.tenant_id = f.Get("tenant");
  kc.environment = f.Get("env");
  kc.key_type = f.Get("type");
  kc.scopes = f.GetAll("scopes");
  kc.name = f.Get("name");
  kc.application_id = f.Get("application");
  if (!f.Get("flows").empty()) kc.flows = f.GetAll("flows");

  // Deliveries exist only in a running server: the webhooks commands go to its socket directly.
  auto rt = webhooks ? core::Result<std::unique_ptr<Runtime>>(core::Unavailable("locked: a server runs"))
                     : Runtime::Open(*ro);
  if (rt.ok()) {
    // Stopped data directory: run the command here.
    eventstore::Actor actor{"admin_cli", "local"};
    return RunLocally(**rt, [&]() -> core::Result<core::Json> {
      if (key == "tenant create") return AdminTenantCreate(**rt, f.Get("name"), actor);
      if (key == "tenant list") return AdminTenantList(**rt);
      if (key == "app create") return AdminApplicationCreate(**rt, f.Get("tenant"), f.Get("name"), actor);
      if (key == "key create") return AdminKeyCreate(**rt, kc, actor);
      if (key == "key revoke") return AdminKeyRevoke(**rt, f.Get("tenant"), f.Get("key"), f.Get("reason"), actor);
      if (key == "tenant export-key") return AdminExportKeySet(**rt, f.Get("tenant"), f.Get("public-key"), actor);
      if (key == "tenant review-policy") return AdminReviewPolicySet(**rt, f.Get("tenant"), f.Get("double-approval"), std::atof(f.Get("trust-below").c_str()), actor);
      if (key == "user create") return AdminUserCreate(**rt, f.Get("tenant"), f.Get("role"), f.Get("name"), actor);
      if (key == "user list") return AdminUserList(**rt, f.Get("tenant"));
      if (key == "user disable") return AdminUserDisable(**rt, f.Get("tenant"), f.Get("user"), actor);
      if (rotate) return (*rt)->RotateMasterKey(std::move(new_master));
      return AdminKeyList(**rt, f.Get("tenant"));
    });
  }
  if (!HeldByServer(rt.status())) return Fail(rt.status());
  // A server holds the data directory: go through its admin socket.
  std::string method = "GET", path;
  core::Json b = core::Json::object();
  if (key == "tenant create") {
    method = "POST";
    path = "/admin/tenants";
    b["name"] = f.Get("name");
  } else if (key == "tenant list") {
    path = "/admin/tenants";
  } else if (key == "tenant review-policy") {
    method = "POST";
    path = "/admin/tenants/" + f.Get("tenant") + "/review-policy";
    b["doubleApproval"] = f.Get("double-approval");
    b["trustBelow"] = std::atof(f.Get("trust-below").c_str());
  } else if (key == "user create") {
    method = "POST";
    path = "/admin/tenants/" + f.Get("tenant") + "/users";
    b["role"] = f.Get("role");
    b["label"] = f.Get("name");
  } else if (key == "user list") {
    path = "/admin/tenants/" + f.Get("tenant") + "/users";
  } else if (key == "user disable") {
    method = "POST";
    path = "/admin/tenants/" + f.Get("tenant") + "/users/" + f.Get("user") + "/disable";
  } else if (key == "tenant export-key") {
    method = "POST";
    path = "/admin/tenants/" + f.Get("tenant") + "/export-key";
    b["publicKey"] = f.Get("public-key");
  } else if (key == "app create") {
    method = "POST";
    path = "/admin/tenants/" + f.Get("tenant") + "/applications";
    b["name"] = f.Get("name");
  } else if (key == "key create") {
    method = "POST";
    path = "/admin/tenants/" + kc.tenant_id + "/keys";
    b["environment"] = kc.environment;
    b["type"] = kc.key_type;
    b["scopes"] = kc.scopes;
    b["name"] = kc.name;
    if (!kc.application_id.empty()) b["applicationId"] = kc.application_id;
    if (!kc.flows.empty()) b["flows"] = kc.flows;
  } else if (key == "key revoke") {
    method = "POST";
    path = "/admin/tenants/" + f.Get("tenant") + "/keys/" + f.Get("key") + "/revoke";
    b["reason"] = f.Get("reason");
  } else if (rotate) {
    method = "POST";
    path = "/admin/master-key/rotate";
    b["newMasterKey"] = core::Base64Encode(new_master);
    core::SecureZero(new_master);
  } else if (webhooks) {
    method = verb == "status" ? "GET" : "POST";
    path = "/admin/webhooks/" + std::string(verb == "status" ? "queue" : verb);
  } else {
    path = "/admin/tenants/" + f.Get("tenant") + "/keys";
  }
  auto resp = CallAdminSocket(f, *ro, method, path, core::DumpJson(b));
  if (!resp.ok() && webhooks) {
    return Fail(core::FailedPrecondition("no server runs on " + ro->data_dir + " (" + resp.status().message() +
                                         "); deliveries are sent by a running svc serve"));
  }
  if (!resp.ok()) return Fail(resp.status());
  return PrintAdminAnswer(*resp);
}

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
  // Replay rebuilds read models: it decides no command, and on Kafka it must not fence the
  // cluster's writers.
  if (ro->log_backend == "kafka") ro->write = false;
  auto rt = Runtime::Open(*ro);
  if (!rt.ok()) return Fail(rt.status());
  std::vector<std::string> names = f.GetAll("projector");
  auto r = f.GetBool("verify") ? VerifyReplay(**rt, names)
                               : ReplayProjectors(**rt, names);
  (*rt)->Shutdown();
  if (!r.ok()) return Fail(r.status());
  Print(*r);
  if (f.GetBool("verify") && !(*r)["identical"].get<bool>()) return 1;
  return 0;
}

int DevBroker(int argc, char** argv) {
  Flags f;
  f.Declare({"brokers", "3", "number of mock brokers"});
  f.Declare({"partitions", "4", "partitions of <topic-prefix>.events"});
  f.Declare({"verification-job-partitions", "16", "partitions of <topic-prefix>.jobs (give svc serve the same)"});
  f.Declare({"public-topics-partitions", "4",
             "partitions of each public event topic <topic-prefix>.<live|test>.<area> (give svc serve the same)"});
  f.Declare({"topic-prefix", "svc", "creates topics <prefix>.events, <prefix>.commands, <prefix>.replies, <prefix>.keys and <prefix>.jobs"});
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
  int public_partitions = 4;
  try {
    o.brokers = std::stoi(f.Get("brokers"));
    o.partitions = std::stoi(f.Get("partitions"));
    o.job_partitions = std::stoi(f.Get("verification-job-partitions"));
    public_partitions = std::stoi(f.Get("public-topics-partitions"));
  } catch (...) {
    return Fail(core::InvalidArgument(
        "--brokers, --partitions, --verification-job-partitions and --public-topics-partitions must be numbers"));
  }
  o.topic_prefix = f.Get("topic-prefix");
  // The public event topics and their publisher's resume points (docs/events.md).
  for (const auto& t : pipeline::events::PublicTopicNames(o.topic_prefix)) o.more_topics.emplace_back(t, public_partitions);
  for (const auto& t : pipeline::events::StateTopicNames(o.topic_prefix)) o.more_topics.emplace_back(t, public_partitions);
  o.more_topics.emplace_back(eventstore::PublicTopicSink::CheckpointTopicName(o.topic_prefix), 1);
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

int KafkaCheck(int argc, char** argv) {
  Flags f;
  f.Declare({"kafka-brokers", "", "Kafka bootstrap servers (host:port,...)"});
  f.Declare({"kafka-topic-prefix", "svc", "the deployment's prefix: checks <prefix>.events, writes <prefix>.kafka-check"});
  f.Declare({"timeout-ms", "20000", "how long each step may wait for the brokers"});
  if (auto st = f.Parse(argc, argv, 2); !st.ok()) return Fail(st);
  if (f.HelpRequested()) {
    std::cout << f.Help("svc kafka-check --kafka-brokers LIST [flags]")
              << "\nChecks what the Kafka log relies on against your brokers (docs/operations.md#kafka):\n"
                 "  events_topic      <prefix>.events keeps every event it acknowledged\n"
                 "  producer_fencing  a second producer with the same transactional.id fences the first\n"
                 "  read_committed    a read_committed consumer never sees an aborted transaction's record\n"
                 "One line a check: pass, fail or not_answerable (the broker cannot show it, as the dev broker),\n"
                 "with what was seen. Writes only to <prefix>.kafka-check. Exit 1 when a check fails.\n";
    return 0;
  }
  eventstore::KafkaCheckOptions o;
  o.brokers = f.Get("kafka-brokers");
  o.topic_prefix = f.Get("kafka-topic-prefix");
  try {
    o.timeout = std::chrono::milliseconds(std::stoll(f.Get("timeout-ms")));
  } catch (...) {
    return Fail(core::InvalidArgument("--timeout-ms must be a number"));
  }
  auto checks = eventstore::RunKafkaChecks(o);
  if (!checks.ok()) return Fail(checks.status());
  bool failed = false;
  for (const auto& c : *checks) {
    failed |= c.outcome == "fail";
    std::cout << core::DumpJson(core::Json{{"check", c.name}, {"outcome", c.outcome}, {"detail", c.detail}}) << "\n";
  }
  return failed ? 1 : 0;
}

// Reads --public-key: the base64 of the 32-byte key, or a file holding it.
namespace {

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

}  // namespace

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
  f.Declare({"role", "reviewer", "user create: reviewer or supervisor"});
  f.Declare({"double-approval", "none", "tenant review-policy: none, declines or all"});
  f.Declare({"trust-below", "0", "tenant review-policy: approvals of sessions under this trust score (0-1) need two"});
  f.Declare({"user", "", "user disable: the user id (usr_...)"});
  f.Declare({"public-key", "", "the tenant and environment's Ed25519 public key (base64, or a file holding it): checks the certificate without the service or its keys"});
  f.Declare({"tenant", "", "public-key: the tenant"});
  f.Declare({"env", "", "public-key: test or live"});
  DeclareKeys(f);
  if (verb == "public-key") {
    if (auto st = f.Parse(argc, argv, 3); !st.ok()) return Fail(st);
    std::string data_dir = f.Get("data-dir").empty() ? "./data" : f.Get("data-dir");
    KeySources ks = KeySourcesFrom(f);
    ks.read_existing_dev_keys = true;
    std::string tenant = f.Get("tenant"), env = f.Get("env");
    if (!core::ValidateId(core::IdKind::kTenant, tenant).ok() || (env != "test" && env != "live")) {
      return Fail(core::InvalidArgument("public-key needs --tenant ten_… and --env test|live"));
    }
    auto working = LoadWorkingRoot(data_dir, ks);
    if (!working.ok()) return Fail(working.status());
    std::string root = pipeline::CertificateRootKey(*working);
    core::SecureZero(*working);
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
  auto input = ReadInputFile(argv[3]);
  if (!input.ok()) return Fail(input.status());
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
    KeySources ks = KeySourcesFrom(f);
    // Reading an existing development key from a data directory an auditor names is fine: this
    // command only reads.
    ks.read_existing_dev_keys = true;
    auto working = LoadWorkingRoot(data_dir, ks);
    if (working.ok()) {
      keys.root_key = pipeline::CertificateRootKey(*working);
      core::SecureZero(*working);
    } else {
      notes.push_back("no master key read: " + working.status().message());
    }
  }
  if (!keys.root_key.has_value() && !keys.public_key.has_value()) {
    std::cerr << "svc: nothing to check the signatures with: give --public-key (the tenant's "
                 "Ed25519 key, GET /v1/certificate-keys) or --data-dir / --master-key-file\n";
  }
  auto check = pipeline::VerifyCertificate(*input, keys);
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

int Models(int argc, char** argv) {
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

int OpenApi() {
  ApiContext defaults;
  auto documented = DocumentedRoutes(defaults);
  if (!documented.ok()) return Fail(documented.status());
  std::cout << OpenApiDocument(documented->routes, defaults.public_base_url).dump(2) << std::endl;
  return 0;
}

int AsyncApi(int argc, char** argv) {
  ApiContext defaults;
  std::string base = defaults.public_base_url;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--public-base-url" && i + 1 < argc) {
      base = argv[++i];
    } else {
      std::cerr << "svc asyncapi: unknown argument " << a << "\n";
      return 2;
    }
  }
  std::cout << AsyncApiDocument(base).dump(2) << std::endl;
  return 0;
}

int DocsErrors() {
  std::cout << ErrorCatalogueMarkdown();
  return 0;
}

}  // namespace svc::api::cli
