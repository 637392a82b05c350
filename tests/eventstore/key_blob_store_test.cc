// The key store (wrapped data keys apart from the log) and the content-addressed blob store.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/crypto.h"
#include "eventstore/blob_store.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "tests/support/key_store_fixture.h"
#include "tests/support/temp_dir.h"

namespace eventstore_key_blob_store_test {

using namespace svc;

TEST_CASE("key store: created once, wrapped under the KEK, bound to its name, destroyable") {
  testing::KeyStoreFixture ks;
  eventstore::KvStore* store = ks.store.get();
  eventstore::KeyStore& keys = *ks.keys;
  std::string name = eventstore::KeyStore::SessionKeyName("ten_1", "test", "vrf_1");
  auto k1 = keys.GetOrCreate(name);
  auto k2 = keys.GetOrCreate(name);
  REQUIRE(k1.ok());
  CHECK(k1->size() == 32);
  CHECK(*k1 == *k2);
  CHECK(*keys.GetOrCreate("session/ten_1/test/vrf_2") != *k1);
  // Stored wrapped: the raw key is nowhere in the row.
  int cf = store->Cf("keystore");
  auto row = store->Get(cf, "dek/" + name);
  REQUIRE(row.ok());
  REQUIRE(row->has_value());
  CHECK((*row)->find(*k1) == std::string::npos);
  // Moved to another name, it does not open.
  eventstore::KvStore::Batch b;
  b.Put(cf, "dek/session/ten_1/test/vrf_3", **row);
  REQUIRE(store->Write(b, true).ok());
  CHECK(keys.Get("session/ten_1/test/vrf_3").status().code() == core::StatusCode::kDataLoss);
  // Another KEK cannot open it either.
  eventstore::KeyStore other(store, core::RandomBytes(32));
  CHECK_FALSE(other.Get(name).ok());
  // Destroyed: gone for good (crypto-shredding).
  REQUIRE(keys.Destroy(name).ok());
  CHECK_FALSE(keys.Get(name)->has_value());
}

TEST_CASE("key store: a master-key rotation rewraps every key while it is used, and resumes if it stops") {
  testing::TempDir dir;
  eventstore::KvStore::Options o;
  o.path = dir.Sub("db");
  o.column_families = {"keystore"};
  auto store = eventstore::KvStore::Open(o);
  REQUIRE(store.ok());
  const std::string old_kek = core::RandomBytes(32), new_kek = core::RandomBytes(32);
  eventstore::KeyStore keys(store->get(), old_kek);
  std::map<std::string, std::string> made;
  for (int i = 0; i < 50; ++i) {
    std::string name = "person/ten_1/test/per_" + std::to_string(i);
    made[name] = *keys.GetOrCreate(name);
  }
  REQUIRE(keys.Destroy("person/ten_1/test/per_7").ok());
  made.erase("person/ten_1/test/per_7");
  int extra_written = 0;
  auto moved = keys.Rewrap(new_kek, [&](eventstore::KvStore::Batch&) { ++extra_written; });
  REQUIRE_MESSAGE(moved.ok(), moved.status().ToString());
  CHECK(*moved == 49);
  CHECK(extra_written == 1);
  // The same keys, now under the new KEK only; the destroyed one stays destroyed.
  eventstore::KeyStore after(store->get(), new_kek);
  for (const auto& [name, key] : made) CHECK(**after.Get(name) == key);
  CHECK_FALSE(after.Get("person/ten_1/test/per_7")->has_value());
  eventstore::KeyStore before(store->get(), old_kek);
  CHECK_FALSE(before.Get(made.begin()->first).ok());
  CHECK(keys.Rewrap(new_kek).status().code() == core::StatusCode::kInvalidArgument);  // the same key
  CHECK(*keys.Count() == 49);

  // A rotation that stopped after its first step (the record written, no row rewrapped yet):
  // the store opened with the newest KEK reads both and finishes it.
  const std::string third = core::RandomBytes(32);
  int cf = (*store)->Cf("keystore");
  eventstore::KvStore::Batch b;
  b.Put(cf, "rotation/kek", core::AeadSeal(third, new_kek, "svc/kek-rotation/v1"));
  REQUIRE((*store)->Write(b, true).ok());
  eventstore::KeyStore resumed(store->get(), third);
  CHECK_FALSE(resumed.Get(made.begin()->first).ok());  // not yet: the old KEK is not loaded
  REQUIRE(resumed.LoadUnfinishedRotation().ok());
  CHECK(**resumed.Get(made.begin()->first) == made.begin()->second);
  auto finished = resumed.ResumeRotation();
  REQUIRE(finished.ok());
  CHECK(*finished);
  eventstore::KeyStore only_third(store->get(), third);
  for (const auto& [name, key] : made) CHECK(**only_third.Get(name) == key);
  CHECK_FALSE(*only_third.ResumeRotation());  // nothing left to finish
}

TEST_CASE("key store: new keys are group-committed; one name never gets two keys") {
  testing::TempDir dir;
  eventstore::KvStore::Options o;
  o.path = dir.Sub("db");
  o.column_families = {"keystore"};
  auto store = eventstore::KvStore::Open(o);
  REQUIRE(store.ok());
  const std::string kek = core::RandomBytes(32);
  std::map<std::string, std::string> got;
  {
    eventstore::KeyStore keys(store->get(), kek);
    std::mutex mu;
    std::vector<std::thread> threads;
    int calls = 0;
    std::condition_variable cv;
    // 8 threads, 50 names each, every name asked for twice (async and sync, concurrently).
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 50; ++i) {
          std::string name = "person/ten_1/test/per_" + std::to_string(i % 25) + "_" + std::to_string(t % 4);
          keys.GetOrCreateAsync(name, [&, name](core::Result<std::string> k) {
            CHECK(k.ok());  // (no REQUIRE off the test's thread)
            std::lock_guard lock(mu);
            if (!k.ok()) {
              ++calls;
              cv.notify_all();
              return;
            }
            if (got.count(name) != 0) CHECK(got[name] == *k);
            got[name] = *k;
            ++calls;
            cv.notify_all();
          });
          auto k = keys.GetOrCreate(name);
          CHECK(k.ok());
          if (!k.ok()) continue;
          std::lock_guard lock(mu);
          if (got.count(name) != 0) CHECK(got[name] == *k);
          got[name] = *k;
        }
      });
    }
    for (auto& th : threads) th.join();
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return calls == 400; });
  }
  CHECK(got.size() == 100);
  // Durable: a fresh key store over the same rows answers the same keys.
  eventstore::KeyStore reopened(store->get(), kek);
  for (const auto& [name, key] : got) CHECK(**reopened.Get(name) == key);
  CHECK(*reopened.Count() == 100);
}

TEST_CASE("blob store: content-addressed, idempotent, verified on read") {
  testing::TempDir dir;
  eventstore::LocalBlobStore blobs(dir.Sub("media"));
  auto a = blobs.Put("sealed bytes");
  REQUIRE(a.ok());
  CHECK(*a == core::Sha256Hex("sealed bytes"));
  CHECK(*blobs.Put("sealed bytes") == *a);
  CHECK(*blobs.Get(*a) == "sealed bytes");
  CHECK(blobs.Get(core::Sha256Hex("other")).status().code() == core::StatusCode::kNotFound);
  CHECK(blobs.Get("../../etc/passwd").status().code() == core::StatusCode::kInvalidArgument);
  // A blob changed on disk is detected.
  std::string path = dir.Sub("media") + "/" + a->substr(0, 2) + "/" + *a;
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << "tampered"; }
  CHECK(blobs.Get(*a).status().code() == core::StatusCode::kDataLoss);
  // No temporary files are left behind.
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.Sub("media"))) {
    CHECK(e.path().string().find(".tmp.") == std::string::npos);
    CHECK(e.path().extension() != ".spool");
  }
}

}  // namespace eventstore_key_blob_store_test
