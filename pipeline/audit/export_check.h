#pragma once
// An export of the access log (`svc audit export`, docs/audit.md#offline-verification), checked
// without the service: the hash chain from entry 1, the Merkle tree of the entries against the
// signed checkpoint, and the checkpoint's signature. docs/verify_audit_export.py does the same
// in Python, so an auditor need not trust this binary.
//
// The export (JSON): {"format": "svc-audit-export/1", "origin", "verifierKey", "checkpoint"
// (the signed note), "entries": [AuditLogEntry, oldest first]}.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"

namespace svc::pipeline::audit {

inline constexpr std::string_view kExportFormat = "svc-audit-export/1";

struct ExportCheck {
  int64_t count = 0;                 // entries in the export
  std::optional<int64_t> broken_at;  // the first entry whose id, prevHash or hash does not follow
  bool checkpoint_signature_valid = false;
  bool checkpoint_matches = false;   // the checkpoint's size and root are the entries' tree
  uint64_t checkpoint_size = 0;
  std::string root_hash;             // of the entries' tree, hex
  std::string key_source;            // "given" (--verifier-key) or "export" (the file's own)
  bool valid() const { return !broken_at.has_value() && checkpoint_signature_valid && checkpoint_matches; }
  core::Json ToJson() const;
};

// `verifier_key`: the C2SP verifier key the auditor trusts; empty: the export's own (reported).
// An error only when the text is not an export at all.
core::Result<ExportCheck> CheckExport(std::string_view text, std::string_view verifier_key);

}  // namespace svc::pipeline::audit
