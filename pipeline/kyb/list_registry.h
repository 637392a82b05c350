#pragma once
// The lists in force (docs/screening.md#loading): the latest version of every list the operator
// loaded (`svc aml load`, the read model's list/ rows), read from their blobs and made one
// screening index. Rebuilt when a version changes: at start, when a load through the admin
// socket asks for it (the load answers once the new index screens), and, when it follows the KYB
// read model (Follow), as soon as this node's read model holds a version loaded through another
// node of a cluster. Screening takes a snapshot (a shared pointer), so a rebuild never waits for
// screenings nor they for it.

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/blob_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/kyb/screening_index.h"
#include "projections/kyb/kyb_projector.h"

namespace svc::pipeline::kyb {

struct ListsInForce {
  std::shared_ptr<const ScreeningIndex> index;  // null when no list is loaded
  core::Json lists = core::Json::array();       // [{source, format, contentHash, entries, version, loadedAt}]
  std::map<std::string, std::string> source_of;  // content hash -> source
};

class ListRegistry {
 public:
  ListRegistry(const eventstore::KvStore* store, const eventstore::BlobStore* blobs);
  ~ListRegistry();
  // Refreshes after every committed batch of `projector`, on a thread of its own (a version whose
  // files cannot be read yet is tried again every second). Stop() before the projector goes.
  void Follow(projections::KybProjector* projector);
  void Stop();
  // Reads the loaded versions and rebuilds the index when any changed. DataLoss when a version's
  // blob is missing or no longer reads (the previous index stays in force).
  core::Status Refresh();
  std::shared_ptr<const ListsInForce> Current() const;

 private:
  const eventstore::KvStore* store_;
  const eventstore::BlobStore* blobs_;
  std::mutex refresh_mu_;  // one rebuild at a time
  mutable std::mutex mu_;
  std::shared_ptr<const ListsInForce> current_;
  std::map<std::string, std::string> hashes_;  // source -> content hash in force
  projections::Listeners::Subscription followed_;
  std::thread follower_;
  std::mutex follow_mu_;
  std::condition_variable follow_cv_;
  bool dirty_ = false;
  bool stopping_ = false;
};

}  // namespace svc::pipeline::kyb
