#pragma once
// The audit read model's keys (prefix "audit/"), for AuditProjector and its readers: the
// hash-chained log of personal-data accesses, one chain per tenant and environment. No row
// holds a value of personal data (the access events carry none).
//
//   head/<ten>/<env>                   "<last id>|<its hash, hex>": where the chain stands
//   e/<ten>/<env>/<id>                 the AuditLogEntry (with prevHash and hash), by id
//   p/<ten>/<env>/<per>/<id>           "": one person's entries
//   a/<ten>/<env>/<actorId>/<id>       "": one actor's entries (a key, a client token)
//   c/<ten>/<env>/<cas>/<id>           "": the entries of one review case (its openings and
//                                      its captures' views: the console's "who viewed")
//   t/<ten>/<env>/<level>/<index>      32 bytes: the perfect subtree (level, index) of the
//                                      chain's RFC 9162 Merkle tree (entry n is leaf n-1;
//                                      level 2 digits, index 20 digits)
//   cp/<ten>/<env>/<treeSize>          a published checkpoint (audit.checkpoint_published), as
//                                      served: treeSize, rootHash, the signed note, publishedAt
//
// `<id>` is the entry's integer id, 20 decimal digits, zero-padded (keys sort as the ids do).
// `te` is "<ten>/<env>" (TenantEnv).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "projections/view_key.h"

namespace svc::projections {

struct AuditView {
  static constexpr std::string_view kName = "audit";

  static std::string IdKey(int64_t id) {
    std::string digits = std::to_string(id);
    return std::string(digits.size() < 20 ? 20 - digits.size() : 0, '0') + digits;
  }
  static std::optional<int64_t> IdOfKey(std::string_view key) {
    if (key.size() != 20) return std::nullopt;
    int64_t v = 0;
    for (char c : key) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  }

  static std::string Heads() { return "head/"; }  // every chain's head, for the publisher
  static std::string Head(std::string_view te) { return Heads() + std::string(te); }
  // The head row read back: the last id and its hash (32 raw bytes).
  struct ChainHead {
    int64_t id = 0;
    std::string hash;
  };
  static std::optional<ChainHead> ParseHead(std::string_view row) {
    size_t bar = row.find('|');
    if (bar == std::string_view::npos || bar == 0 || bar > 19 || row.size() != bar + 1 + 64) return std::nullopt;
    ChainHead h;
    for (char c : row.substr(0, bar)) {
      if (c < '0' || c > '9') return std::nullopt;
      h.id = h.id * 10 + (c - '0');
    }
    for (size_t i = bar + 1; i < row.size(); i += 2) {
      auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
      };
      int hi = nibble(row[i]), lo = nibble(row[i + 1]);
      if (hi < 0 || lo < 0) return std::nullopt;
      h.hash.push_back(static_cast<char>(hi * 16 + lo));
    }
    return h;
  }
  static std::string Entries(std::string_view te) { return ScopedKey("e/", te, ""); }
  static std::string Entry(std::string_view te, int64_t id) { return Entries(te) + IdKey(id); }
  static std::string ByPerson(std::string_view te, std::string_view person) {
    return ScopedKey("p/", te, person) + "/";
  }
  static std::string ByActor(std::string_view te, std::string_view actor) {
    return ScopedKey("a/", te, actor) + "/";
  }
  static std::string ByCase(std::string_view te, std::string_view case_id) {
    return ScopedKey("c/", te, case_id) + "/";
  }

  static std::string TreeNode(std::string_view te, int level, uint64_t index) {
    std::string l = std::to_string(level);
    return ScopedKey("t/", te, (l.size() < 2 ? "0" + l : l) + "/" + IdKey(static_cast<int64_t>(index)));
  }

  static std::string Checkpoints(std::string_view te) { return ScopedKey("cp/", te, ""); }
  static std::string Checkpoint(std::string_view te, int64_t size) { return Checkpoints(te) + IdKey(size); }

  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }
};

}  // namespace svc::projections
