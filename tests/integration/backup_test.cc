// The restore drill (issue 38, docs/operations.md#backup-and-restore): a backup taken from a
// running node under load, restored into a new data directory, holds every write acknowledged
// before it began; its read models equal a rebuild from its log; its audit log verifies and
// extends every checkpoint published before the backup. A restore refuses a backup that does
// not match its manifest, and one whose master key is another.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "core/crypto.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/merkle.h"
#include "tests/support/api_env.h"
#include "tests/support/session_flow.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace integration_backup_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::Env;
using svc::testing::RunSvc;
using svc::testing::Sharing;
using svc::testing::SvcServer;
namespace fs = std::filesystem;

namespace {

// The load is the drill's, not the rate limiter's: every limit off (a busy CI machine, or a fast
// one, would otherwise draw 429s from the per-key write limit).
const std::vector<std::string> kFlags = {"--rate-reveals", "0", "--rate-writes", "0", "--rate-reads", "0"};

std::string Unhex(const core::Json& j) {
  auto r = core::HexDecode(j.get<std::string>());
  REQUIRE(r.ok());
  return *r;
}

core::Json Checkpoints(Env& env) {
  auto r = env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoints?limit=100");
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r)["data"];
}

std::string Decrypt(Env& env, const std::string& id) {
  auto r = env.Call(env.test_key, "POST", "/v1/persons/" + id + "/decrypt",
                    core::Json({{"fields", {"email"}}, {"purpose", "identity_verification"}, {"reason", "drill"}}).dump());
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r)["fields"]["email"].get<std::string>();
}

// A call with `key` to a node the case started itself (Env::Call goes to the env's own server).
api::HttpResponse NodeCall(SvcServer& node, const std::string& key, const std::string& method, const std::string& path,
                           const std::string& body = "") {
  std::map<std::string, std::string> h = {{"Authorization", "Bearer " + key}};
  if (!body.empty()) h["Content-Type"] = "application/json";
  auto r = api::HttpCall(node.target(), method, path, h, body);
  REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  return *r;
}

std::set<std::string> BlobFiles(const std::string& media) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(media, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.size() == 64) out.insert(name);
  }
  return out;
}

}  // namespace

TEST_CASE("backup and restore: the drill, under load, on the embedded log") {
  Env env(false, kFlags, Sharing::kIsolated);
  const std::string data = env.server->data_dir();
  const std::string bk = env.dir.Sub("backup"), restored = env.dir.Sub("restored");

  // Before the load: an audit log with a published checkpoint, and a session's captures (blobs).
  std::string first = Body(env.Call(env.test_key, "POST", "/v1/persons",
                                    R"({"pii": {"fullName": "Drill First", "email": "first@example.mx"}})"))["id"];
  for (int i = 0; i < 3; ++i) Decrypt(env, first);
  const std::string session = Body(env.Create(env.test_key, "drill-session",
                                              R"({"channel":"api","policy":{"testOutcome":"approved"}})"))["id"];
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + session + "/consent", R"({"accepted":true})").status == 200);
  for (const auto& [kind, mime, bytes] : testing::MinimalCaptures()) {
    auto r = testing::Upload(env, env.test_key, session, kind, mime, bytes);
    REQUIRE_MESSAGE(r.status == 201, r.body);
  }
  REQUIRE(env.Admin("POST", "/admin/audit/publish-checkpoints").status == 200);

  // The load: persons created, and revealed (audit entries), while the backup is taken.
  std::mutex mu;
  std::vector<std::string> acked;
  std::atomic<bool> stop{false};
  std::atomic<int> n{0}, errors{0}, reveals{0};
  std::vector<std::string> error_samples;  // under mu
  auto failed = [&](const core::Result<api::HttpResponse>& r) {
    errors.fetch_add(1);
    std::lock_guard lock(mu);
    if (error_samples.size() < 5) error_samples.push_back(r.ok() ? std::to_string(r->status) + " " + r->body : r.status().ToString());
  };
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      while (!stop.load()) {
        const int i = n.fetch_add(1);
        if (c == 3) {  // reveals of the first person: the audit log grows during the backup
          if (reveals.load() >= 400) break;  // well within the daily reveal budget
          auto r = api::HttpCall(env.server->target(), "POST", "/v1/persons/" + first + "/decrypt",
                                 {{"Authorization", "Bearer " + env.test_key}, {"Content-Type", "application/json"}},
                                 R"({"fields":["email"],"purpose":"identity_verification","reason":"drill"})");
          if (!r.ok() || r->status != 200) failed(r);
          reveals.fetch_add(1);
          continue;
        }
        core::Json body = {{"pii", {{"fullName", "Drill " + std::to_string(i)}, {"email", "drill." + std::to_string(i) + "@example.mx"}}}};
        auto r = api::HttpCall(env.server->target(), "POST", "/v1/persons",
                               {{"Authorization", "Bearer " + env.test_key}, {"Content-Type", "application/json"},
                                {"Idempotency-Key", "drill-" + std::to_string(i)}},
                               body.dump());
        if (!r.ok() || r->status != 201) {
          failed(r);
          continue;
        }
        std::lock_guard lock(mu);
        acked.push_back(core::ParseJsonOrDiscarded(r->body)["id"].get<std::string>());
      }
    });
  }
  auto acked_count = [&] {
    std::lock_guard lock(mu);
    return acked.size();
  };
  while (acked_count() < 100 || reveals.load() < 10) std::this_thread::yield();
  REQUIRE(env.Admin("POST", "/admin/audit/publish-checkpoints").status == 200);
  const core::Json kept = Checkpoints(env);  // published before the backup
  REQUIRE(kept.size() >= 2);
  std::vector<std::string> before;
  {
    std::lock_guard lock(mu);
    before = acked;
  }
  const std::set<std::string> blobs_before = BlobFiles(data + "/media");
  REQUIRE(blobs_before.size() >= 4);
  auto backup = RunSvc({"backup", "--to", bk, "--data-dir", data});  // through the admin socket
  const size_t during = acked_count() - before.size();
  stop = true;
  for (auto& t : clients) t.join();
  REQUIRE_MESSAGE(backup.exit_code == 0, backup.out << backup.err);
  CHECK_MESSAGE(errors.load() == 0, (error_samples.empty() ? std::string() : error_samples.front()));
  for (const auto& e : error_samples) MESSAGE("failed: " << e);
  MESSAGE("acknowledged before the backup: " << before.size() << ", during it: " << during);
  core::Json summary = core::ParseJsonOrDiscarded(backup.out);
  CHECK(summary["format"] == "svc-backup/1");
  CHECK(summary["about"]["logBackend"] == "embedded");
  CHECK(summary["totals"]["blobs"].get<int64_t>() >= 4);
  CHECK(!summary.contains("mac"));

  // Never a key: no key file, and the master key's text nowhere in any file.
  std::string master_text;
  std::ifstream(data + "/master.key") >> master_text;
  REQUIRE(!master_text.empty());
  const std::string master = *core::Base64Decode(master_text);
  for (const auto& e : fs::recursive_directory_iterator(bk)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    CHECK((name != "master.key" && name != "service.key"));
    const std::string bytes = testing::ReadFile(e.path().string());
    CHECK_MESSAGE(bytes.find(master_text) == std::string::npos, name);
    CHECK_MESSAGE(bytes.find(master) == std::string::npos, name);
  }
  // The admin route's errors: no directory, a directory that holds something.
  testing::CheckProblem(env.Admin("POST", "/admin/backup", core::Json::object()), 422, "VALIDATION_ERROR");
  auto full = env.Admin("POST", "/admin/backup", {{"to", bk}});
  CHECK(full.status == 409);
  CHECK_MESSAGE(full.body.find("not empty") != std::string::npos, full.body);
  // A backup does not go into a directory that holds something.
  auto again = RunSvc({"backup", "--to", bk, "--data-dir", data});
  CHECK(again.exit_code == 1);
  CHECK_MESSAGE(again.err.find("not empty") != std::string::npos, again.err);

  // Refused restores: the backup changed, or another installation's master key. Nothing is left.
  {
    testing::TempDir other;
    const std::string bad = other.Sub("bad");
    fs::copy(bk, bad, fs::copy_options::recursive);
    std::string victim;
    for (const auto& e : fs::directory_iterator(bad + "/db")) {
      if (e.path().extension() == ".sst") victim = e.path().string();
    }
    REQUIRE(!victim.empty());
    {
      std::fstream f(victim, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(10);
      f.put('\x7f');
    }
    auto r = RunSvc({"restore", "--from", bad, "--data-dir", other.Sub("new"), "--master-key-file", data + "/master.key"});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.err.find("does not match") != std::string::npos, r.err);
    CHECK_FALSE(fs::exists(other.Sub("new")));

    std::ofstream(other.Sub("other.key")) << core::Base64Encode(core::RandomBytes(32));
    fs::permissions(other.Sub("other.key"), fs::perms::owner_read | fs::perms::owner_write);
    auto wrong = RunSvc({"restore", "--from", bk, "--data-dir", other.Sub("new"), "--master-key-file", other.Sub("other.key")});
    CHECK(wrong.exit_code == 1);
    CHECK_FALSE(fs::exists(other.Sub("new")));
    for (const auto& e : fs::directory_iterator(other.path())) {
      CHECK_MESSAGE(e.path().filename().string().find("restoring") == std::string::npos, e.path());
    }
    auto no_key = RunSvc({"restore", "--from", bk, "--data-dir", other.Sub("new")}, {{"SVC_DEV_KEYS_IN_DATA_DIR", ""}});
    CHECK(no_key.exit_code != 0);
    CHECK_MESSAGE(no_key.err.find("master key") != std::string::npos, no_key.err);
  }

  // The restore (the development key named as a file, copied in with --dev-keys-in-data-dir).
  auto restore = RunSvc({"restore", "--from", bk, "--data-dir", restored, "--master-key-file", data + "/master.key"});
  REQUIRE_MESSAGE(restore.exit_code == 0, restore.out << restore.err);
  CHECK(core::ParseJsonOrDiscarded(restore.out)["restored"] == true);
  for (const auto& name : blobs_before) CHECK_MESSAGE(fs::exists(restored + "/media/" + name.substr(0, 2) + "/" + name), name);
  // Its read models equal a rebuild from its log.
  auto verify = RunSvc({"replay", "--verify", "--data-dir", restored});
  REQUIRE_MESSAGE(verify.exit_code == 0, verify.out << verify.err);
  CHECK(core::ParseJsonOrDiscarded(verify.out)["identical"] == true);

  env.server->Stop();  // the original goes away; the restored node serves the same keys
  SvcServer node(restored, kFlags);
  node.Start();
  auto call = [&](const std::string& method, const std::string& path, const std::string& body = "") {
    return NodeCall(node, env.test_key, method, path, body);
  };
  for (const auto& id : before) {
    auto r = call("GET", "/v1/persons/" + id);
    CHECK_MESSAGE(r.status == 200, id << " " << r.body);
  }
  // The vault opens: its data keys came with the backup.
  auto revealed = call("POST", "/v1/persons/" + before.front() + "/decrypt",
                       R"({"fields":["email"],"purpose":"identity_verification","reason":"drill"})");
  REQUIRE_MESSAGE(revealed.status == 200, revealed.body);
  CHECK(Body(revealed)["fields"]["email"].get<std::string>().find("@example.mx") != std::string::npos);
  // The captures are there: the session submitted now is run from them.
  REQUIRE(call("POST", "/v1/verification-sessions/" + session + "/submit").status == 200);
  std::string node_service_key;
  std::ifstream(restored + "/service.key") >> node_service_key;
  auto idle = api::HttpCall(node.admin_target(), "POST", "/admin/pipeline/wait-idle",
                            {{"Authorization", "Bearer " + node_service_key}}, "{}");
  REQUIRE(idle.ok());
  CHECK(Body(call("GET", "/v1/verification-sessions/" + session))["status"] == "approved");

  // The audit log verifies, and extends every checkpoint published before the backup.
  auto valid = call("GET", "/v1/audit-logs/verify");
  REQUIRE_MESSAGE(valid.status == 200, valid.body);
  CHECK(Body(valid)["valid"] == true);
  for (const auto& cp : kept) {
    const uint64_t size = cp["treeSize"].get<uint64_t>();
    auto con = call("GET", "/v1/audit-logs/verify/consistency?fromSize=" + std::to_string(size));
    REQUIRE_MESSAGE(con.status == 200, con.body);
    core::Json c = Body(con);
    CHECK(c["fromRootHash"] == cp["rootHash"]);
    std::vector<std::string> proof;
    for (const auto& h : c["hashes"]) proof.push_back(Unhex(h));
    CHECK(core::merkle::VerifyConsistency(size, c["toSize"].get<uint64_t>(), Unhex(cp["rootHash"]),
                                          Unhex(c["toRootHash"]), proof));
  }
  core::Json listed = Body(call("GET", "/v1/audit-logs/verify/checkpoints?limit=100"))["data"];
  REQUIRE(listed.size() >= kept.size());
  for (size_t i = 0; i < kept.size(); ++i) CHECK(listed[i]["checkpoint"] == kept[i]["checkpoint"]);
  node.Stop();

  // A stopped directory is backed up in-process.
  auto offline = RunSvc({"backup", "--to", env.dir.Sub("backup2"), "--data-dir", restored});
  CHECK_MESSAGE(offline.exit_code == 0, offline.out << offline.err);
  CHECK(fs::exists(env.dir.Sub("backup2/MANIFEST.json")));
}

TEST_CASE("backup and restore on Kafka: the topic brings back what came after; a single writer's later keys do not") {
  // One writer (--kafka-writers single): the key store lives only in the data directory.
  Env env(true, kFlags, Sharing::kIsolated);
  const std::string data = env.server->data_dir();
  auto make = [&](const std::string& name) {
    auto r = env.Call(env.test_key, "POST", "/v1/persons",
                      core::Json({{"pii", {{"fullName", name}, {"email", name + "@example.mx"}}}}).dump());
    REQUIRE_MESSAGE(r.status == 201, r.body);
    return Body(r)["id"].get<std::string>();
  };
  const std::string before = make("before");
  const std::string bk = env.dir.Sub("backup"), restored = env.dir.Sub("restored");
  auto backup = RunSvc({"backup", "--to", bk, "--data-dir", data, "--log-backend", "kafka", "--kafka-brokers",
                        env.broker->bootstraps()});
  REQUIRE_MESSAGE(backup.exit_code == 0, backup.out << backup.err);
  CHECK(core::ParseJsonOrDiscarded(backup.out)["about"]["logBackend"] == "kafka");
  const std::string after = make("after");  // its event in the topic, its data key only on this disk
  env.server->Stop();

  auto restore = RunSvc({"restore", "--from", bk, "--data-dir", restored, "--master-key-file", data + "/master.key"});
  REQUIRE_MESSAGE(restore.exit_code == 0, restore.out << restore.err);
  std::vector<std::string> flags = kFlags;
  flags.insert(flags.end(), {"--log-backend", "kafka", "--kafka-brokers", env.broker->bootstraps()});
  SvcServer node(restored, flags);
  node.Start();
  auto call = [&](const std::string& method, const std::string& path, const std::string& body = "") {
    return NodeCall(node, env.test_key, method, path, body);
  };
  const std::string reveal = R"({"fields":["email"],"purpose":"identity_verification","reason":"drill"})";
  // Both persons: the restored read models resumed from their positions in the topic.
  CHECK(call("GET", "/v1/persons/" + before).status == 200);
  CHECK(call("GET", "/v1/persons/" + after).status == 200);
  auto ok = call("POST", "/v1/persons/" + before + "/decrypt", reveal);
  CHECK_MESSAGE(ok.status == 200, ok.body);
  auto lost = call("POST", "/v1/persons/" + after + "/decrypt", reveal);
  // Its key is gone as if it had been destroyed: the service cannot tell a lost key from a
  // shredded one (docs/operations.md#backup-and-restore).
  testing::CheckProblem(lost, 410, "PERSON_PURGED");
  node.Stop();
}

}  // namespace integration_backup_test
