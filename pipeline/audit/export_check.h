#pragma once
// An access log checked without the service (docs/audit.md#offline-verification): the hash chain
// from entry 1, the Merkle tree of the entries, the checkpoint an export was cut at, and every
// checkpoint published in the log (audit.checkpoint_published) against the tree of its size.
// docs/verify_audit_export.py does the same in Python, so an auditor need not trust this binary.
//
// The export (JSON lines): the header {"format": "svc-audit-export/2", "origin", "verifierKey",
// "checkpoint" (the signed note the export was cut at), "checkpoints": [published checkpoints up
// to that size: {"treeSize", "rootHash", "checkpoint", ...}]} on the first line, then one
// AuditLogEntry per line, oldest first; blank lines are ignored.
//
// The file is mapped, its lines found with memchr, each entry parsed with simdjson and hashed on
// every core; the chain and the tree are then one sequential pass (projections/audit/
// audit_chain.h holds the rule).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "projections/audit/audit_chain.h"

namespace svc::pipeline::audit {

inline constexpr std::string_view kExportFormat = "svc-audit-export/2";

struct PublishedCheckpoint {
  int64_t tree_size = 0;
  std::string root_hash;  // hex, as recorded
  std::string note;       // the signed checkpoint
};

struct ChainCheck {
  int64_t count = 0;                 // entries
  std::optional<int64_t> broken_at;  // the first entry whose id, prevHash or hash does not follow
  std::string root_hash;             // of the entries' tree, hex
  std::string key_source;            // "given", "export" (the file's own) or "derived" (a data directory's)
  // The checkpoint an export was cut at (absent for a data directory).
  bool has_checkpoint = false;
  bool checkpoint_signature_valid = false;
  bool checkpoint_matches = false;   // its origin, size and root are the entries' tree
  uint64_t checkpoint_size = 0;
  // Published checkpoints: each must open with the key and be the tree of its size.
  int64_t published = 0;
  std::optional<int64_t> first_bad_published;  // the tree size of the first that is not
  bool valid() const {
    return !broken_at.has_value() && !first_bad_published.has_value() &&
           (!has_checkpoint || (checkpoint_signature_valid && checkpoint_matches));
  }
  core::Json ToJson() const;
};

// The digests of `n` entries (digest(i)), computed on `threads` threads (0: one per core).
// `digest` must be safe to call from several threads at once.
std::vector<projections::LinkDigest> DigestAll(size_t n, const std::function<projections::LinkDigest(size_t)>& digest,
                                               unsigned threads = 0);

// Checks digested entries (oldest first) of the log `origin` with the verifier key `vkey`.
// `checkpoint`: the note an export was cut at (none for a data directory).
ChainCheck CheckChain(const std::vector<projections::LinkDigest>& entries, std::string_view origin,
                      std::string_view vkey, std::optional<std::string_view> checkpoint,
                      std::vector<PublishedCheckpoint> published);

// `verifier_key`: the C2SP verifier key the auditor trusts; empty: the export's own (reported).
// An error only when the input is not an export at all.
core::Result<ChainCheck> CheckExport(std::string_view text, std::string_view verifier_key, unsigned threads = 0);
core::Result<ChainCheck> CheckExportFile(const std::string& path, std::string_view verifier_key, unsigned threads = 0);

}  // namespace svc::pipeline::audit
