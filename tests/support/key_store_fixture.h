#pragma once
// A key store (eventstore/key_store.h) on a real RocksDB in a temporary directory, under a random
// key-encryption key. (Extracted at its fourth copy: key store, vault keys, person writes.)

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/crypto.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "tests/support/temp_dir.h"

namespace svc::testing {

struct KeyStoreFixture {
  TempDir dir;
  std::string kek = core::RandomBytes(32);
  std::unique_ptr<eventstore::KvStore> store;
  std::unique_ptr<eventstore::KeyStore> keys;
  KeyStoreFixture() {
    eventstore::KvStore::Options o;
    o.path = dir.Sub("db");
    o.column_families = {"keystore"};
    auto opened = eventstore::KvStore::Open(o);
    REQUIRE(opened.ok());
    store = std::move(opened).value();
    keys = std::make_unique<eventstore::KeyStore>(store.get(), kek);
  }
};

}  // namespace svc::testing
