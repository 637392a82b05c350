#pragma once
// A projector turns events into read-model rows. It has a Name (its key prefix), a Version
// (changing it rebuilds the read model from the log) and Apply. Apply is deterministic: it never
// reads the clock, never calls out, and its rows depend only on the events of one partition in
// order (or are order-independent), so a rebuild from the log is byte-identical to the live model.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "eventstore/envelope.h"
#include "eventstore/kv_store.h"
#include "projections/listeners.h"

namespace svc::projections {

// The rows a projector writes during one batch; reads see the batch's own writes first.
// Keys are relative to the projector's prefix ("<name>/").
class ViewWriter {
 public:
  ViewWriter(const eventstore::KvStore* store, int cf, std::string prefix)
      : store_(store), cf_(cf), prefix_(std::move(prefix)) {}

  core::Result<std::optional<std::string>> Get(std::string_view key) const;
  // Every row with a key in [begin, end), in key order, as the batch leaves them (the store's
  // rows merged with this batch's writes, deleted ones left out): what a projector that removes
  // a range (a retention sweep) walks, so a rebuild that applies the sweep in the same batch as
  // the rows' creation removes exactly what the live model did. `visit` returns false to stop.
  core::Status Scan(std::string_view begin, std::string_view end,
                    const std::function<bool(std::string_view key, std::string_view value)>& visit) const;
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);

  // Moves the pending writes into `batch` (absolute keys) and forgets them.
  void Drain(eventstore::KvStore::Batch& batch);
  size_t PendingCount() const { return pending_.size(); }

 private:
  const eventstore::KvStore* store_;
  int cf_;
  std::string prefix_;
  std::map<std::string, std::optional<std::string>, std::less<>> pending_;  // nullopt = delete
};

class Projector {
 public:
  virtual ~Projector() = default;
  virtual std::string_view Name() const = 0;
  virtual int Version() const = 0;
  virtual core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) = 0;
  // Called after a batch's rows and checkpoints are committed (not on the replay of a scratch
  // store): the place to invalidate caches derived from this read model.
  virtual void AfterCommit() {}
};

// A projector named after its view (`View::kName`, its key prefix) at version `kVersion` of its
// rows. (Extracted at the ninth projector: each declared the same name and version members.)
template <class View, int kVersion>
class ViewProjector : public Projector {
 public:
  static constexpr std::string_view kName = View::kName;
  std::string_view Name() const override { return kName; }
  int Version() const override { return kVersion; }
};

// A view projector that process managers and streams wake on: its listeners run after every
// committed batch (or, where AfterCommit is overridden, after the batches that matter). A
// listener stays until its subscription is reset or destroyed (its owner's Stop); register
// before the projections start.
template <class View, int kVersion>
class WatchedProjector : public ViewProjector<View, kVersion> {
 public:
  void AfterCommit() override { listeners_.Notify(); }
  Listeners::Subscription AddListener(std::function<void()> fn) { return listeners_.Subscribe(std::move(fn)); }

 protected:
  Listeners listeners_;
};

// Column families of the read side: rows, and the runners' own bookkeeping.
inline constexpr std::string_view kViewsCf = "views";
inline constexpr std::string_view kProjectionsCf = "projections";

}  // namespace svc::projections
