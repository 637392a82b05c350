#pragma once
// Events in, rows out, for any projector (projections/projector.h), on a real RocksDB in a
// temporary directory: each Feed is one committed batch, as the runner commits it, and Row /
// Keys read the committed rows under the projector's prefix. The rebuild check feeds the same
// events to a fresh store and compares every row byte for byte (what `svc replay --verify`
// proves on a whole log).
//
//   ProjectorSpec<WebhooksProjector> spec;
//   spec.Feed(spec.Event("webhook_endpoint", "whe_…", "webhook.endpoint_created", data));
//   CHECK(spec.Row("ep/ten_…/test/whe_…")["url"] == "https://…");

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "eventstore/kv_store.h"
#include "projections/projector.h"
#include "tests/support/temp_dir.h"

namespace svc::testing {

template <typename P>
class ProjectorSpec {
 public:
  std::string tenant = "ten_00000000000000000000000000000001";
  std::string environment = "test";
  int64_t now_micros = 1767225600LL * 1000000;  // 2026-01-01; Event() advances it 1 s each

  ProjectorSpec() : store_(OpenStore(dir_.Sub("views"))) {}

  P& projector() { return projector_; }

  // The next event of an aggregate (versions count per aggregate id; event ids are sequential).
  eventstore::EventEnvelope Event(const std::string& aggregate_type, const std::string& aggregate_id,
                                  const std::string& type, const core::Json& data) {
    eventstore::EventEnvelope e;
    ++events_;
    std::string n = std::to_string(events_);
    e.id = "evt_" + std::string(32 - n.size(), '0') + n;
    e.type = type;
    e.tenant_id = tenant;
    e.environment = environment;
    e.aggregate_type = aggregate_type;
    e.aggregate_id = aggregate_id;
    e.aggregate_version = ++versions_[aggregate_id];
    now_micros += 1000000;
    e.occurred_at = core::Timestamp{now_micros};
    e.actor = {"api_key", "key_00000000000000000000000000000001"};
    e.data = core::DumpJson(data);
    return e;
  }

  // Applies one event and commits its rows (one batch). Returns Apply's status.
  eventstore::KvStore& store() { return *store_; }
  core::Status Feed(const eventstore::EventEnvelope& e) {
    fed_.push_back(e);
    return Apply(*store_, projector_, e, fed_.size());
  }

  // One typed event `e` of aggregate (`type`, `id`), encoded by the area's `encode`, fed; it must
  // apply. (Extracted at the third projector test that needed it: review, kyb, embedded.)
  template <typename E, typename Encode>
  void FeedTyped(const std::string& type, const std::string& id, const E& e, Encode encode) {
    auto st = Feed(Event(type, id, std::string(E::kType), core::ParseJsonOrDiscarded(encode(e))));
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }

  // A committed row, parsed (null when absent).
  core::Json Row(const std::string& key) const {
    auto v = RawRow(key);
    return v ? core::ParseJsonOrDiscarded(*v) : core::Json();
  }
  std::optional<std::string> RawRow(const std::string& key) const {
    auto r = store_->Get(store_->Cf(projections::kViewsCf), Prefix() + key);
    REQUIRE(r.ok());
    return *r;
  }
  // Keys (relative to the projector's prefix) starting with `prefix`, in order.
  std::vector<std::string> Keys(const std::string& prefix) const {
    std::vector<std::string> out;
    std::string lower = Prefix() + prefix;
    auto it = store_->NewIterator(store_->Cf(projections::kViewsCf), lower,
                                  eventstore::PrefixEnd(lower));
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->key().substr(Prefix().size()));
    return out;
  }

  // Feeding the same events to a fresh projector and store gives the same rows, byte for byte.
  void CheckRebuildIdentical() {
    TempDir other;
    auto fresh = OpenStore(other.Sub("views"));
    P again;
    size_t i = 0;
    for (const auto& e : fed_) REQUIRE(Apply(*fresh, again, e, ++i).ok());
    CHECK(Dump(*fresh) == Dump(*store_));
  }

 private:
  static std::unique_ptr<eventstore::KvStore> OpenStore(const std::string& path) {
    auto s = eventstore::KvStore::Open({path, {std::string(projections::kViewsCf)}});
    REQUIRE_MESSAGE(s.ok(), s.status().ToString());
    return std::move(s).value();
  }
  std::string Prefix() const { return std::string(P::kName) + "/"; }

  core::Status Apply(eventstore::KvStore& store, P& projector, const eventstore::EventEnvelope& e,
                     size_t n) {
    int cf = store.Cf(projections::kViewsCf);
    projections::ViewWriter view(&store, cf, Prefix());
    eventstore::RecordedEvent re;
    re.position = {0, n - 1};
    re.event = e;
    SVC_RETURN_IF_ERROR(projector.Apply(re, view));
    eventstore::KvStore::Batch batch;
    view.Drain(batch);
    SVC_RETURN_IF_ERROR(store.Write(batch, false));
    projector.AfterCommit();
    return core::Status::Ok();
  }
  static std::map<std::string, std::string> Dump(const eventstore::KvStore& store) {
    std::map<std::string, std::string> out;
    auto it = store.NewIterator(store.Cf(projections::kViewsCf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace(it->key(), it->value());
    return out;
  }

  TempDir dir_;
  std::unique_ptr<eventstore::KvStore> store_;
  P projector_;
  std::vector<eventstore::EventEnvelope> fed_;
  std::map<std::string, int64_t> versions_;
  int events_ = 0;
};

}  // namespace svc::testing
