#pragma once
// `svc audit verify --data-dir`: the access logs of a data directory checked where they are kept
// (the audit read model, opened read only, so a node need not be stopped): for every chain, the
// chain rule, the tree, every checkpoint published in the log with the key the directory derives,
// and the Merkle subtrees the read model stores (that the routes' heads and proofs are read from)
// against the tree recomputed from the entries.

#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"
#include "pipeline/audit/export_check.h"

namespace svc::pipeline::audit {

struct StoredChainCheck {
  std::string tenant, environment;
  ChainCheck check;
  int64_t head_size = 0;             // what the chain's head row says
  bool stored_tree_matches = false;  // the stored subtrees give the recomputed root, at the head's size
  bool valid() const { return check.valid() && stored_tree_matches && head_size == check.count; }
  core::Json ToJson() const;
};

// Every chain (or those of `tenant` / `environment` when not empty). `root_key`:
// CheckpointRootKey of the directory's working root.
core::Result<std::vector<StoredChainCheck>> CheckDataDir(const eventstore::KvStore& store, std::string_view root_key,
                                                         std::string_view tenant, std::string_view environment,
                                                         unsigned threads = 0);

}  // namespace svc::pipeline::audit
