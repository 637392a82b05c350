#pragma once
// Reading a stopped server's data directory from a test: its store opened read-only, and every
// event of its embedded log in order. For tests that check what the disk holds (exactly-once
// appends, crypto-shredding), not what the API answers.

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "api/http/runtime.h"
#include "eventstore/embedded_log.h"
#include "eventstore/kv_store.h"

namespace svc::testing {

inline std::unique_ptr<eventstore::KvStore> OpenStoppedStore(const std::string& data_dir) {
  eventstore::KvStore::Options so;
  so.path = data_dir + "/db";
  so.column_families = api::StoreColumnFamilies();
  so.read_only = true;
  auto store = eventstore::KvStore::Open(so);
  REQUIRE_MESSAGE(store.ok(), store.status().ToString());
  return std::move(*store);
}

// Calls `fn` with every event of the log held by `store`, oldest first.
inline void ForEachLoggedEvent(eventstore::KvStore* store, const std::function<void(const eventstore::EventEnvelope&)>& fn) {
  eventstore::EmbeddedLog::Options lo;
  lo.store = store;
  auto log = eventstore::EmbeddedLog::Open(lo);
  REQUIRE(log.ok());
  auto reader = (*log)->OpenReader("test-check", {});
  for (;;) {
    auto got = (*reader)->Poll(5000, std::chrono::milliseconds(0));
    REQUIRE(got.ok());
    if (got->empty()) break;
    for (const auto& e : *got) fn(e.event);
  }
}

// Where a stopped server's data directory holds `needle` in clear: every file's raw bytes (the WAL,
// sealed media, key files) and every key and value of every column family read back through
// RocksDB (compressed blocks decompressed). Empty: nowhere.
inline std::vector<std::string> PlacesHolding(const std::string& data_dir, const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& f : std::filesystem::recursive_directory_iterator(data_dir)) {
    if (!f.is_regular_file()) continue;
    std::ifstream in(f.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    if (bytes.str().find(needle) != std::string::npos) out.push_back(f.path().string());
  }
  auto store = OpenStoppedStore(data_dir);
  for (const auto& cf_name : api::StoreColumnFamilies()) {
    auto it = store->NewIterator(store->Cf(cf_name));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key().find(needle) != std::string_view::npos || it->value().find(needle) != std::string_view::npos) {
        out.push_back(cf_name + " row " + std::string(it->key()));
      }
    }
  }
  return out;
}

}  // namespace svc::testing
