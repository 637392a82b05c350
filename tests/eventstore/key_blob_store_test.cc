// The key store (wrapped data keys apart from the log) and the content-addressed blob store.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "core/crypto.h"
#include "eventstore/blob_store.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "tests/support/temp_dir.h"

using namespace svc;

TEST_CASE("key store: created once, wrapped under the KEK, bound to its name, destroyable") {
  testing::TempDir dir;
  eventstore::KvStore::Options o;
  o.path = dir.Sub("db");
  o.column_families = {"keystore"};
  auto store = eventstore::KvStore::Open(o);
  REQUIRE(store.ok());
  std::string kek = core::RandomBytes(32);
  eventstore::KeyStore keys(store->get(), kek);
  std::string name = eventstore::KeyStore::SessionKeyName("ten_1", "test", "vrf_1");
  auto k1 = keys.GetOrCreate(name);
  auto k2 = keys.GetOrCreate(name);
  REQUIRE(k1.ok());
  CHECK(k1->size() == 32);
  CHECK(*k1 == *k2);
  CHECK(*keys.GetOrCreate("session/ten_1/test/vrf_2") != *k1);
  // Stored wrapped: the raw key is nowhere in the row.
  int cf = (*store)->Cf("keystore");
  auto row = (*store)->Get(cf, "dek/" + name);
  REQUIRE(row.ok());
  REQUIRE(row->has_value());
  CHECK((*row)->find(*k1) == std::string::npos);
  // Moved to another name, it does not open.
  eventstore::KvStore::Batch b;
  b.Put(cf, "dek/session/ten_1/test/vrf_3", **row);
  REQUIRE((*store)->Write(b, true).ok());
  CHECK(keys.Get("session/ten_1/test/vrf_3").status().code() == core::StatusCode::kDataLoss);
  // Another KEK cannot open it either.
  eventstore::KeyStore other(store->get(), core::RandomBytes(32));
  CHECK_FALSE(other.Get(name).ok());
  // Destroyed: gone for good (crypto-shredding).
  REQUIRE(keys.Destroy(name).ok());
  CHECK_FALSE(keys.Get(name)->has_value());
}

TEST_CASE("blob store: content-addressed, idempotent, verified on read") {
  testing::TempDir dir;
  eventstore::BlobStore blobs(dir.Sub("media"));
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
  }
}
