#pragma once
// RFC 9162 (Certificate Transparency v2, as RFC 6962) Merkle trees over SHA-256: the tree head,
// inclusion and consistency proofs, and their verification. The access log's entries are the
// leaves of one such tree per tenant and environment (docs/audit.md).
//
// A tree is read through its perfect subtrees: the hash of the 2^level leaves that start at
// index * 2^level. A log keeps each as it completes (a leaf completes at most log2(n) of them),
// so a head or a proof costs O(log n) reads whatever the size. Hashes are 32 raw bytes.

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace svc::core::merkle {

std::string LeafHash(std::string_view data);                    // SHA-256(0x00 || data)
std::string NodeHash(std::string_view left, std::string_view right);  // SHA-256(0x01 || l || r)
std::string EmptyRoot();                                        // SHA-256(""): the head of size 0

// The hash of the perfect subtree (level, index).
using NodeSource = std::function<Result<std::string>(int level, uint64_t index)>;

// MTH(D[0:size]).
Result<std::string> Root(uint64_t size, const NodeSource& nodes);
// PATH(index, D[0:size]): the audit path of leaf `index` (index < size).
Result<std::vector<std::string>> InclusionProof(uint64_t index, uint64_t size, const NodeSource& nodes);
// PROOF(old_size, D[0:size]) for 0 < old_size <= size.
Result<std::vector<std::string>> ConsistencyProof(uint64_t old_size, uint64_t size, const NodeSource& nodes);

// RFC 9162 section 2.1.3.2.
bool VerifyInclusion(std::string_view leaf_hash, uint64_t index, uint64_t size,
                     const std::vector<std::string>& proof, std::string_view root);
// RFC 9162 section 2.1.4.2 (and equal sizes: an empty proof and equal roots).
bool VerifyConsistency(uint64_t old_size, uint64_t size, std::string_view old_root, std::string_view root,
                       const std::vector<std::string>& proof);

// The perfect subtrees that appending leaf `index` (with hash `leaf_hash`) completes, from the
// leaf itself (level 0) up: what a log stores. `nodes` answers for the subtrees already stored.
Result<std::vector<std::pair<int, std::string>>> Completed(uint64_t index, std::string leaf_hash,
                                                           const NodeSource& nodes);

// A growing tree kept as its perfect subtrees (one per set bit of its size, at most 64 hashes):
// leaves are appended one by one and the head of every size on the way is read in O(log n). What
// a verifier uses to check many checkpoints of one log in a single pass over its leaves.
class CompactRange {
 public:
  void Append(std::string_view leaf_hash);  // 32 bytes
  uint64_t size() const { return size_; }
  // MTH of the leaves appended so far (EmptyRoot() for none).
  std::string Root() const;

 private:
  std::vector<std::array<char, 32>> nodes_;  // the perfect subtrees, leftmost (largest) first
  uint64_t size_ = 0;
};

}  // namespace svc::core::merkle
