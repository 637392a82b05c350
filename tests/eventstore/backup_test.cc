// Backups (eventstore/backup.h): a checkpoint of the store and a copy of the blobs with a
// manifest; what a restore refuses.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/canonical_json.h"
#include "core/crypto.h"
#include "eventstore/backup.h"
#include "eventstore/blob_store.h"
#include "eventstore/kv_store.h"
#include "tests/support/temp_dir.h"

namespace eventstore_backup_test {

using namespace svc;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  testing::TempDir dir;
  std::unique_ptr<eventstore::KvStore> store;
  std::unique_ptr<eventstore::LocalBlobStore> blobs;
  const std::string key = core::RandomBytes(32);
  Fixture() {
    fs::create_directories(dir.Sub("data"));
    eventstore::KvStore::Options o;
    o.path = dir.Sub("data/db");
    o.column_families = {"log", "views"};
    auto opened = eventstore::KvStore::Open(o);
    REQUIRE(opened.ok());
    store = std::move(*opened);
    blobs = std::make_unique<eventstore::LocalBlobStore>(dir.Sub("data/media"));
  }
  core::Result<core::Json> Backup(const std::string& to) {
    eventstore::BackupRequest r;
    r.store = store.get();
    r.blobs = blobs.get();
    r.to = to;
    r.about = {{"createdAt", "2026-12-02T00:00:00Z"}};
    r.manifest_key = key;
    return eventstore::WriteBackup(r);
  }
  void Put(const std::string& cf, const std::string& k, const std::string& v, bool derived = false) {
    eventstore::KvStore::Batch b;
    b.Put(store->Cf(cf), k, v);
    REQUIRE((derived ? store->WriteDerived(b) : store->Write(b, true)).ok());
  }
};

std::unique_ptr<eventstore::KvStore> OpenCopy(const std::string& path) {
  eventstore::KvStore::Options o;
  o.path = path;
  o.column_families = {"log", "views"};
  o.create_if_missing = false;
  auto s = eventstore::KvStore::Open(o);
  REQUIRE_MESSAGE(s.ok(), s.status().ToString());
  return std::move(s).value();
}

std::string Value(eventstore::KvStore& s, const std::string& cf, const std::string& k) {
  auto v = s.Get(s.Cf(cf), k);
  REQUIRE(v.ok());
  return v->value_or("<absent>");
}

}  // namespace

TEST_CASE("backup: the store as of one moment (rows written with and without the WAL) and every blob, restored") {
  Fixture fx;
  fx.Put("log", "e1", "event one");
  fx.Put("views", "row1", "derived row", /*derived=*/true);  // no WAL: only a flush keeps it
  auto a1 = fx.blobs->Put("sealed capture bytes");
  auto a2 = fx.blobs->Put(std::string(3 << 20, 'x'));  // more than one piece
  REQUIRE(a1.ok());
  REQUIRE(a2.ok());
  auto summary = fx.Backup(fx.dir.Sub("bk"));
  REQUIRE_MESSAGE(summary.ok(), summary.status().ToString());
  CHECK((*summary)["totals"]["blobs"] == 2);
  CHECK((*summary)["totals"]["blobBytes"] == (3 << 20) + 20);
  CHECK((*summary)["about"]["createdAt"] == "2026-12-02T00:00:00Z");
  CHECK(!summary->contains("mac"));
  // Written after the backup: not in it.
  fx.Put("log", "e2", "event two");

  auto manifest = eventstore::VerifyBackup(fx.dir.Sub("bk"));
  REQUIRE_MESSAGE(manifest.ok(), manifest.status().ToString());
  CHECK(eventstore::VerifyBackupMac(*manifest, fx.key).ok());
  CHECK(eventstore::VerifyBackupMac(*manifest, core::RandomBytes(32)).code() == core::StatusCode::kDataLoss);
  REQUIRE(eventstore::CopyBackupFiles(fx.dir.Sub("bk"), *manifest, fx.dir.Sub("restored")).ok());
  auto copy = OpenCopy(fx.dir.Sub("restored/db"));
  CHECK(Value(*copy, "log", "e1") == "event one");
  CHECK(Value(*copy, "views", "row1") == "derived row");
  CHECK(Value(*copy, "log", "e2") == "<absent>");
  eventstore::LocalBlobStore restored_blobs(fx.dir.Sub("restored/media"));
  CHECK(*restored_blobs.Get(*a1) == "sealed capture bytes");
  CHECK(restored_blobs.Get(*a2)->size() == size_t{3 << 20});
  // Nothing but db/ and media/: no key file, no socket.
  for (const auto& e : fs::directory_iterator(fx.dir.Sub("restored"))) {
    std::string n = e.path().filename().string();
    CHECK((n == "db" || n == "media"));
  }
  // The target must be new.
  CHECK(eventstore::CopyBackupFiles(fx.dir.Sub("bk"), *manifest, fx.dir.Sub("restored")).code() ==
        core::StatusCode::kFailedPrecondition);
}

TEST_CASE("backup: refused targets, and a backup taken while writes go on holds a prefix of them") {
  Fixture fx;
  CHECK(fx.Backup("").status().code() == core::StatusCode::kInvalidArgument);
  fs::create_directories(fx.dir.Sub("full"));
  std::ofstream(fx.dir.Sub("full/x")) << "x";
  CHECK(fx.Backup(fx.dir.Sub("full")).status().code() == core::StatusCode::kFailedPrecondition);
  CHECK(fx.Backup(fx.dir.Sub("data/db/inside")).status().code() == core::StatusCode::kInvalidArgument);

  // Keys written in order, each synced before the next: the backup holds 0..k-1 for some k, and
  // each derived row written in the same batch as its key.
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  std::thread writer([&] {
    for (int i = 0; !stop.load(); ++i) {
      char k[16];
      std::snprintf(k, sizeof k, "e%08d", i);
      eventstore::KvStore::Batch b;
      b.Put(fx.store->Cf("log"), k, "v");
      b.Put(fx.store->Cf("views"), k, "v");
      REQUIRE(fx.store->Write(b, true).ok());
      written.store(i + 1);
    }
  });
  while (written.load() < 50) std::this_thread::yield();
  const int before = written.load();
  auto summary = fx.Backup(fx.dir.Sub("live"));
  stop = true;
  writer.join();
  REQUIRE_MESSAGE(summary.ok(), summary.status().ToString());
  auto manifest = eventstore::VerifyBackup(fx.dir.Sub("live"));
  REQUIRE(manifest.ok());
  auto copy = OpenCopy(fx.dir.Sub("live/db"));
  int n = 0;
  auto it = copy->NewIterator(copy->Cf("log"));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    char k[16];
    std::snprintf(k, sizeof k, "e%08d", n);
    REQUIRE(it->key() == k);  // no gap
    CHECK(Value(*copy, "views", k) == "v");
    ++n;
  }
  CHECK(n >= before);
  CHECK(n <= written.load());
}

TEST_CASE("backup: a restore refuses a backup that does not match its manifest") {
  Fixture fx;
  fx.Put("log", "e1", "event one");
  auto addr = fx.blobs->Put("object");
  REQUIRE(addr.ok());
  REQUIRE(fx.Backup(fx.dir.Sub("bk")).ok());
  const std::string bk = fx.dir.Sub("bk");
  const std::string blob = bk + "/media/" + addr->substr(0, 2) + "/" + *addr;
  auto refused = [&](const std::string& fragment) {
    auto r = eventstore::VerifyBackup(bk);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == core::StatusCode::kDataLoss);
    CHECK_MESSAGE(r.status().message().find(fragment) != std::string::npos, r.status().message());
  };
  REQUIRE(eventstore::VerifyBackup(bk).ok());

  SUBCASE("a changed blob") {
    std::ofstream(blob, std::ios::trunc) << "objecu";
    refused("SHA-256 of media/");
  }
  SUBCASE("a missing file") {
    fs::remove(blob);
    refused("missing");
  }
  SUBCASE("a file it does not name") {
    std::ofstream(bk + "/db/000999.sst") << "extra";
    refused("does not name: db/000999.sst");
  }
  SUBCASE("a symlink") {
    fs::create_symlink("/etc/passwd", bk + "/db/LINK");
    refused("something other than a file");
  }
  SUBCASE("an edited manifest: the digest") {
    std::string text = testing::ReadFile(bk + "/MANIFEST.json");
    auto at = text.find("\"dbFiles\":");
    REQUIRE(at != std::string::npos);
    text.insert(at + 10, "1");
    std::ofstream(bk + "/MANIFEST.json", std::ios::trunc) << text;
    refused("digest");
  }
  SUBCASE("an edited manifest with its digest recomputed: the MAC") {
    auto m = eventstore::VerifyBackup(bk);
    REQUIRE(m.ok());
    core::Json edited = *m;
    edited["about"]["createdAt"] = "2020-01-01T00:00:00Z";
    edited.erase("digest");
    edited.erase("mac");
    edited["digest"] = core::Sha256Hex(*core::CanonicalJson(edited));
    edited["mac"] = (*m)["mac"];
    std::ofstream(bk + "/MANIFEST.json", std::ios::trunc) << core::DumpJson(edited);
    auto again = eventstore::VerifyBackup(bk);
    REQUIRE(again.ok());  // consistent on its own
    CHECK(eventstore::VerifyBackupMac(*again, fx.key).code() == core::StatusCode::kDataLoss);
  }
  SUBCASE("a path outside the backup") {
    auto m = eventstore::VerifyBackup(bk);
    core::Json edited = *m;
    edited["files"].push_back({{"path", "db/../../etc/passwd"}, {"size", 1}, {"sha256", std::string(64, '0')}});
    edited.erase("digest");
    edited.erase("mac");
    edited["digest"] = core::Sha256Hex(*core::CanonicalJson(edited));
    std::ofstream(bk + "/MANIFEST.json", std::ios::trunc) << core::DumpJson(edited);
    refused("outside db/ and media/");
  }
  SUBCASE("no manifest: an unfinished backup") {
    fs::remove(bk + "/MANIFEST.json");
    CHECK(eventstore::VerifyBackup(bk).status().code() == core::StatusCode::kFailedPrecondition);
  }
  SUBCASE("not JSON") {
    std::ofstream(bk + "/MANIFEST.json", std::ios::trunc) << "{\"format\": ";
    refused("not a svc-backup/1 manifest");
  }
}

}  // namespace eventstore_backup_test
