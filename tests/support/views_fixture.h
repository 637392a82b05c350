#pragma once
// A read-model store on disk for the tests of queries and use cases: rows put by their absolute
// keys, as the projectors would have written them. (Extracted at its fourth copy.)

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "eventstore/kv_store.h"
#include "projections/projector.h"
#include "tests/support/temp_dir.h"

namespace svc::testing {

class ViewsFixture {
 public:
  ViewsFixture() {
    auto opened = eventstore::KvStore::Open({dir_.Sub("views"), {std::string(projections::kViewsCf)}});
    REQUIRE(opened.ok());
    store_ = std::move(*opened);
  }
  // Writes the rows (key, value) in one batch.
  void Put(const std::vector<std::pair<std::string, std::string>>& rows) {
    eventstore::KvStore::Batch b;
    for (const auto& [key, value] : rows) b.Put(store_->Cf(projections::kViewsCf), key, value);
    REQUIRE(store_->Write(b, false).ok());
  }
  eventstore::KvStore& store() { return *store_; }

 private:
  TempDir dir_;
  std::unique_ptr<eventstore::KvStore> store_;
};

}  // namespace svc::testing
