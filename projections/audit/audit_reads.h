#pragma once
// Reads of the audit read model that more than one reader needs: the routes (api/audit), the
// checkpoint publisher and `svc audit verify --data-dir` (pipeline/audit).

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/merkle.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// A tenant and environment's tree as the read model keeps it: its size (the last entry's id)
// and its perfect subtrees. `nodes` reads the store (which must outlive it).
struct StoredTree {
  int64_t size = 0;
  core::merkle::NodeSource nodes;
};
core::Result<StoredTree> ReadStoredTree(const eventstore::KvStore& store, std::string_view te);

// Every chain of the read model: "<tenant>/<environment>" and its size.
struct ChainHeadOf {
  std::string tenant, environment;
  int64_t size = 0;
};
core::Result<std::vector<ChainHeadOf>> ReadChainHeads(const eventstore::KvStore& store);

// The chain of a tenant and environment walked from entry 1 (audit_chain.h): GET
// /v1/audit-logs/verify and the compliance report's auditChain.
struct ChainVerification {
  int64_t count = 0;
  std::optional<int64_t> broken_at;
  int64_t walked = 0;  // entries read by this verification (IncrementalChainVerifier: the new ones)
};
core::Result<ChainVerification> VerifyStoredChain(const eventstore::KvStore& store, std::string_view te);

// The same answer as VerifyStoredChain, at the cost of the entries added since the last call:
// it keeps, per chain, how far it verified and that entry's hash, and walks on from there (the
// entry at the mark is read again: a changed one makes it walk the whole chain). At 1M entries a
// full walk takes seconds, and a key may ask every second; `svc audit verify --data-dir` keeps
// the full walk for operators. Kept in memory: a restart starts with one full walk. Thread-safe.
class IncrementalChainVerifier {
 public:
  core::Result<ChainVerification> Verify(const eventstore::KvStore& store, std::string_view te);

 private:
  struct Mark {
    std::mutex mu;  // one walk of a chain at a time; others wait and then start from its mark
    int64_t count = 0;
    std::array<char, 32> last_hash{};
    std::optional<int64_t> broken_at;
  };
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Mark>, std::less<>> marks_;
};

// The size of the last checkpoint published of a chain (0: none).
core::Result<int64_t> LastPublishedSize(const eventstore::KvStore& store, std::string_view te);

}  // namespace svc::projections
