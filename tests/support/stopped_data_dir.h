#pragma once
// Reading a stopped server's data directory from a test: its store opened read-only, and every
// event of its embedded log in order. For tests that check what the disk holds (exactly-once
// appends, crypto-shredding), not what the API answers.

#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

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

}  // namespace svc::testing
