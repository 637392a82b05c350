// RFC 9162 Merkle trees: the heads of the RFC 6962 reference tree (the eight leaves of
// certificate-transparency's test data), and for every tree up to 40 leaves every inclusion and
// consistency proof verifies while a proof with one byte changed, a wrong index or size does not.
#include "core/merkle.h"

#include <doctest/doctest.h>

#include <bit>
#include <map>

#include "core/crypto.h"
#include "core/ids.h"

namespace core_merkle_test {

namespace m = svc::core::merkle;

namespace {

std::string Unhex(std::string_view hex) {
  auto r = svc::core::HexDecode(hex);
  REQUIRE(r.ok());
  return *r;
}

// Leaf hashes, and their perfect subtrees computed straight from the definition.
struct Tree {
  std::vector<std::string> leaves;  // leaf hashes
  std::string Perfect(int level, uint64_t index) const {
    if (level == 0) return leaves.at(index);
    return m::NodeHash(Perfect(level - 1, index * 2), Perfect(level - 1, index * 2 + 1));
  }
  m::NodeSource Source() const {
    return [this](int level, uint64_t index) -> svc::core::Result<std::string> {
      REQUIRE(((index + 1) << level) <= leaves.size());  // only complete subtrees are asked for
      return Perfect(level, index);
    };
  }
  // MTH by the RFC's recursion, independently of core/merkle.
  std::string Mth(uint64_t start, uint64_t n) const {
    if (n == 0) return svc::core::Sha256("");
    if (n == 1) return leaves[start];
    uint64_t k = 1;
    while (k * 2 < n) k *= 2;
    return m::NodeHash(Mth(start, k), Mth(start + k, n - k));
  }
};

Tree Sized(uint64_t n) {
  Tree t;
  for (uint64_t i = 0; i < n; ++i) t.leaves.push_back(m::LeafHash("leaf " + std::to_string(i)));
  return t;
}

}  // namespace

TEST_CASE("merkle: the RFC 6962 reference tree's heads") {
  const char* leaves[] = {"", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                          "606162636465666768696a6b6c6d6e6f"};
  const char* roots[] = {"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                         "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
                         "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
                         "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                         "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
                         "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
                         "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
                         "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"};
  Tree t;
  for (const char* l : leaves) t.leaves.push_back(m::LeafHash(Unhex(l)));
  CHECK(svc::core::HexEncode(m::EmptyRoot()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  for (uint64_t n = 1; n <= 8; ++n) {
    auto root = m::Root(n, t.Source());
    REQUIRE(root.ok());
    CHECK(svc::core::HexEncode(*root) == roots[n - 1]);
  }
}

TEST_CASE("merkle: every proof of every tree up to 40 leaves verifies, and nothing else does") {
  for (uint64_t n = 1; n <= 40; ++n) {
    Tree t = Sized(n);
    auto root = m::Root(n, t.Source());
    REQUIRE(root.ok());
    CHECK(*root == t.Mth(0, n));
    for (uint64_t i = 0; i < n; ++i) {
      auto proof = m::InclusionProof(i, n, t.Source());
      REQUIRE(proof.ok());
      CHECK(m::VerifyInclusion(t.leaves[i], i, n, *proof, *root));
      // Against the head of a bigger tree (the size and head of a signed checkpoint go together).
      Tree bigger = Sized(n + 1);
      auto bigger_root = m::Root(n + 1, bigger.Source());
      REQUIRE(bigger_root.ok());
      CHECK_FALSE(m::VerifyInclusion(t.leaves[i], i, n + 1, *proof, *bigger_root));
      if (n > 1) CHECK_FALSE(m::VerifyInclusion(t.leaves[i], (i + 1) % n, n, *proof, *root));
      CHECK_FALSE(m::VerifyInclusion(m::LeafHash("other"), i, n, *proof, *root));
      if (!proof->empty()) {
        auto bad = *proof;
        bad.back()[7] ^= 0x01;
        CHECK_FALSE(m::VerifyInclusion(t.leaves[i], i, n, bad, *root));
        bad = *proof;
        bad.pop_back();
        CHECK_FALSE(m::VerifyInclusion(t.leaves[i], i, n, bad, *root));
      }
    }
    for (uint64_t old = 1; old <= n; ++old) {
      auto old_root = m::Root(old, t.Source());
      REQUIRE(old_root.ok());
      auto proof = m::ConsistencyProof(old, n, t.Source());
      REQUIRE(proof.ok());
      CHECK(m::VerifyConsistency(old, n, *old_root, *root, *proof));
      if (old < n) {
        CHECK_FALSE(m::VerifyConsistency(old, n, *root, *root, *proof));
        auto bad = *proof;
        bad.front()[0] ^= 0x80;
        CHECK_FALSE(m::VerifyConsistency(old, n, *old_root, *root, bad));
        CHECK_FALSE(m::VerifyConsistency(old - 1 == 0 ? n : old - 1, n, *old_root, *root, *proof));
        // A rewritten tail: the same old head, a different newest leaf.
        Tree other = t;
        other.leaves.back() = m::LeafHash("rewritten");
        auto other_root = m::Root(n, other.Source());
        REQUIRE(other_root.ok());
        if (old < n) CHECK_FALSE(m::VerifyConsistency(old, n, *old_root, *other_root, *proof));
      }
    }
  }
  CHECK_FALSE(m::InclusionProof(3, 3, Sized(3).Source()).ok());
  CHECK_FALSE(m::ConsistencyProof(0, 3, Sized(3).Source()).ok());
  CHECK_FALSE(m::ConsistencyProof(4, 3, Sized(3).Source()).ok());
}

TEST_CASE("merkle: a log stores the subtrees each leaf completes") {
  std::map<std::pair<int, uint64_t>, std::string> stored;
  m::NodeSource source = [&](int level, uint64_t index) -> svc::core::Result<std::string> {
    auto it = stored.find({level, index});
    if (it == stored.end()) return svc::core::NotFound("no such node");
    return it->second;
  };
  Tree t = Sized(37);
  for (uint64_t i = 0; i < 37; ++i) {
    auto done = m::Completed(i, t.leaves[i], source);
    REQUIRE(done.ok());
    CHECK(done->size() == static_cast<size_t>(std::countr_one(i)) + 1);
    for (const auto& [level, hash] : *done) stored[{level, i >> level}] = hash;
    auto root = m::Root(i + 1, source);
    REQUIRE(root.ok());
    CHECK(*root == t.Mth(0, i + 1));
  }
}

TEST_CASE("merkle: a compact range gives the head of every size on the way") {
  const char* leaves[] = {"", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                          "606162636465666768696a6b6c6d6e6f"};
  m::CompactRange range;
  CHECK(range.Root() == m::EmptyRoot());
  Tree reference;
  for (const char* l : leaves) reference.leaves.push_back(m::LeafHash(Unhex(l)));
  for (size_t i = 0; i < 8; ++i) {
    range.Append(reference.leaves[i]);
    CHECK(range.size() == i + 1);
    CHECK(range.Root() == reference.Mth(0, i + 1));  // the RFC 6962 reference heads above
  }
  // And up to 300 leaves against the RFC's recursion.
  Tree t = Sized(300);
  m::CompactRange grown;
  for (uint64_t n = 1; n <= 300; ++n) {
    grown.Append(t.leaves[n - 1]);
    REQUIRE(grown.Root() == t.Mth(0, n));
  }
}

}  // namespace core_merkle_test
