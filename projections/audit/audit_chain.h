#pragma once
// The chain rule of the access log, in one place for every verifier: GET /v1/audit-logs/verify
// (the read model), `svc audit verify` on an export and on a stopped node's data directory.
//
// Entry n follows when its id is n, its prevHash is entry n-1's hash (32 zero bytes for entry 1)
// and its hash is SHA-256(prevHash || RFC 8785 form of the entry without prevHash and hash, and,
// in an entry holding `reasonSealed`, without `reason` and `reasonKey`). The caller's reason is
// recorded sealed under the person's key with a commitment (`reasonCommitment`); a served entry
// adds the reason and the commitment's key opened, and then follows only if
// HMAC-SHA-256(reasonKey, reason) is the commitment. Its
// leaf in the Merkle tree is RFC 9162's leaf hash of that hash: SHA-256(0x00 || hash as 32
// bytes) (of no bytes when the entry has no 64-hex hash), so the tree commits to the chain and a
// verifier hashes each entry's content once.
//
// The rule splits in two: Digest looks at one entry alone (its hashes; a verifier runs it on
// many threads), ChainWalk at each entry and its predecessor (a cheap sequential pass).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace svc::projections {

// One entry as read.
struct ChainLink {
  std::optional<int64_t> id;  // absent when the entry has no integer id
  std::string prev_hash;      // 32 raw bytes; empty when not 64 lowercase hex characters
  std::string hash;           // 32 raw bytes; empty when not 64 lowercase hex characters
  // RFC 8785 form of the entry without prevHash and hash (of the whole value when it is not an
  // object: it is still a leaf of the tree).
  std::string canonical;
  bool object = false;        // a JSON object whose canonical form was computed
  bool reason_checks = true;  // no opened reason shown, or one that matches its commitment
};

// An entry from its JSON text (a stored row, a listed entry).
ChainLink ReadLink(std::string_view text);

// What the walk needs of an entry, in fixed size.
struct LinkDigest {
  std::optional<int64_t> id;
  bool readable = false;    // an object with a 64-hex prevHash and hash
  bool recomputes = false;  // its hash is SHA-256(prevHash || canonical)
  std::array<char, 32> prev_hash{}, hash{};
  std::array<char, 32> leaf{};  // its leaf hash in the Merkle tree: LeafHash(hash)
};
LinkDigest Digest(const ChainLink& link);
// The digest of an entry's JSON text. When the text is the entry's own RFC 8785 form (what
// `svc audit export` writes), the bytes without its prevHash and hash members are hashed as they
// are: if they give the recorded hash they are, by SHA-256's preimage resistance, exactly the
// bytes the log hashed, so nothing needs parsing. Any other text (or a mismatch) is parsed and
// canonicalised: the answer is the same either way, only the cost differs.
LinkDigest DigestText(std::string_view text);

// A chain walked entry by entry, in order.
class ChainWalk {
 public:
  ChainWalk() = default;
  // A walk that goes on after `count` entries that followed, the last with hash `last_hash`.
  ChainWalk(int64_t count, const std::array<char, 32>& last_hash) : count_(count), prev_(last_hash) {}
  void Add(const LinkDigest& link);
  // The hash of the last entry that followed (zeros before the first).
  const std::array<char, 32>& last_hash() const { return prev_; }
  int64_t count() const { return count_; }
  // The first entry that does not follow (for a missing entry, the id that should have been there).
  std::optional<int64_t> broken_at() const { return broken_at_; }

 private:
  int64_t count_ = 0;
  std::optional<int64_t> broken_at_;
  std::array<char, 32> prev_{};  // the hash of the last entry that followed (zeros before the first)
};

}  // namespace svc::projections
