#include "core/merkle.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/crypto.h"

namespace svc::core::merkle {

namespace {

// The largest power of two smaller than n (n > 1).
uint64_t SplitOf(uint64_t n) { return std::bit_floor(n - 1); }

// MTH(D[start:start+count]) for a subtree the RFC's recursion reaches (start is a multiple of the
// largest power of two not above count).
Result<std::string> Subtree(uint64_t start, uint64_t count, const NodeSource& nodes) {
  if (std::has_single_bit(count) && start % count == 0) {
    return nodes(std::countr_zero(count), start / count);
  }
  const uint64_t k = SplitOf(count);
  SVC_ASSIGN_OR_RETURN(std::string left, Subtree(start, k, nodes));
  SVC_ASSIGN_OR_RETURN(std::string right, Subtree(start + k, count - k, nodes));
  return NodeHash(left, right);
}

Status Path(uint64_t m, uint64_t start, uint64_t n, const NodeSource& nodes, std::vector<std::string>& out) {
  if (n <= 1) return Status::Ok();
  const uint64_t k = SplitOf(n);
  if (m < k) {
    SVC_RETURN_IF_ERROR(Path(m, start, k, nodes, out));
    SVC_ASSIGN_OR_RETURN(std::string right, Subtree(start + k, n - k, nodes));
    out.push_back(std::move(right));
  } else {
    SVC_RETURN_IF_ERROR(Path(m - k, start + k, n - k, nodes, out));
    SVC_ASSIGN_OR_RETURN(std::string left, Subtree(start, k, nodes));
    out.push_back(std::move(left));
  }
  return Status::Ok();
}

Status SubProof(uint64_t m, uint64_t start, uint64_t n, bool whole, const NodeSource& nodes,
                std::vector<std::string>& out) {
  if (m == n) {
    if (!whole) {
      SVC_ASSIGN_OR_RETURN(std::string h, Subtree(start, n, nodes));
      out.push_back(std::move(h));
    }
    return Status::Ok();
  }
  const uint64_t k = SplitOf(n);
  if (m <= k) {
    SVC_RETURN_IF_ERROR(SubProof(m, start, k, whole, nodes, out));
    SVC_ASSIGN_OR_RETURN(std::string right, Subtree(start + k, n - k, nodes));
    out.push_back(std::move(right));
  } else {
    SVC_RETURN_IF_ERROR(SubProof(m - k, start + k, n - k, false, nodes, out));
    SVC_ASSIGN_OR_RETURN(std::string left, Subtree(start, k, nodes));
    out.push_back(std::move(left));
  }
  return Status::Ok();
}

bool Lsb(uint64_t v) { return (v & 1) != 0; }

}  // namespace

std::string LeafHash(std::string_view data) { return Sha256Concat({std::string_view("\x00", 1), data}); }

std::string NodeHash(std::string_view left, std::string_view right) {
  return Sha256Concat({std::string_view("\x01", 1), left, right});
}

std::string EmptyRoot() { return Sha256(""); }

Result<std::string> Root(uint64_t size, const NodeSource& nodes) {
  if (size == 0) return EmptyRoot();
  return Subtree(0, size, nodes);
}

Result<std::vector<std::string>> InclusionProof(uint64_t index, uint64_t size, const NodeSource& nodes) {
  if (index >= size) return InvalidArgument("leaf index beyond the tree", "VALIDATION_ERROR");
  std::vector<std::string> out;
  SVC_RETURN_IF_ERROR(Path(index, 0, size, nodes, out));
  return out;
}

Result<std::vector<std::string>> ConsistencyProof(uint64_t old_size, uint64_t size, const NodeSource& nodes) {
  if (old_size == 0 || old_size > size) {
    return InvalidArgument("a consistency proof needs 0 < old size <= size", "VALIDATION_ERROR");
  }
  std::vector<std::string> out;
  SVC_RETURN_IF_ERROR(SubProof(old_size, 0, size, true, nodes, out));
  return out;
}

bool VerifyInclusion(std::string_view leaf_hash, uint64_t index, uint64_t size,
                     const std::vector<std::string>& proof, std::string_view root) {
  if (index >= size) return false;
  uint64_t fn = index;
  uint64_t sn = size - 1;
  std::string r(leaf_hash);
  for (const auto& p : proof) {
    if (sn == 0) return false;
    if (Lsb(fn) || fn == sn) {
      r = NodeHash(p, r);
      if (!Lsb(fn)) {
        while (!Lsb(fn) && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = NodeHash(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && r == root;
}

bool VerifyConsistency(uint64_t old_size, uint64_t size, std::string_view old_root, std::string_view root,
                       const std::vector<std::string>& proof) {
  if (old_size > size) return false;
  if (old_size == size) return proof.empty() && old_root == root;
  if (old_size == 0) return proof.empty();  // the empty tree is consistent with every tree
  if (proof.empty()) return false;
  std::vector<std::string> c;
  if (std::has_single_bit(old_size)) c.emplace_back(old_root);
  c.insert(c.end(), proof.begin(), proof.end());
  uint64_t fn = old_size - 1;
  uint64_t sn = size - 1;
  while (Lsb(fn)) {
    fn >>= 1;
    sn >>= 1;
  }
  std::string fr = c[0];
  std::string sr = c[0];
  for (size_t i = 1; i < c.size(); ++i) {
    if (sn == 0) return false;
    if (Lsb(fn) || fn == sn) {
      fr = NodeHash(c[i], fr);
      sr = NodeHash(c[i], sr);
      if (!Lsb(fn)) {
        while (!Lsb(fn) && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      sr = NodeHash(sr, c[i]);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return fr == old_root && sr == root && sn == 0;
}

Result<std::vector<std::pair<int, std::string>>> Completed(uint64_t index, std::string leaf_hash,
                                                           const NodeSource& nodes) {
  std::vector<std::pair<int, std::string>> out;
  out.emplace_back(0, leaf_hash);
  std::string h = std::move(leaf_hash);
  uint64_t i = index;
  int level = 0;
  // While this subtree is a right child, it completes its parent with its left sibling.
  while (Lsb(i)) {
    SVC_ASSIGN_OR_RETURN(std::string left, nodes(level, i - 1));
    h = NodeHash(left, h);
    i >>= 1;
    ++level;
    out.emplace_back(level, h);
  }
  return out;
}

void CompactRange::Append(std::string_view leaf_hash) {
  std::array<char, 32> node{};
  std::memcpy(node.data(), leaf_hash.data(), std::min<size_t>(32, leaf_hash.size()));
  // Each trailing 1-bit of the old size is a perfect subtree the new leaf completes.
  for (uint64_t n = size_; n & 1; n >>= 1) {
    const std::array<char, 32> left = nodes_.back();
    nodes_.pop_back();
    Sha256Into({std::string_view("\x01", 1), std::string_view(left.data(), 32), std::string_view(node.data(), 32)},
               node.data());
  }
  nodes_.push_back(node);
  ++size_;
}

std::string CompactRange::Root() const {
  if (nodes_.empty()) return EmptyRoot();
  std::string h(nodes_.back().data(), 32);
  for (size_t i = nodes_.size() - 1; i-- > 0;) h = NodeHash(std::string_view(nodes_[i].data(), 32), h);
  return h;
}

}  // namespace svc::core::merkle
