#pragma once
// The audit chain (architecture.md, "Audit chain"): every access event becomes an AuditLogEntry
// with an integer id that counts per tenant and environment from 1, and
//   hash = SHA-256(previous hash || RFC 8785 canonical form of the entry)
// (the first entry's previous hash is 32 zero bytes; the entry is hashed without its prevHash
// and hash members). The same entries are the leaves of an RFC 9162 Merkle tree per tenant and
// environment (leaf n = SHA-256(0x00 || hash(n) as 32 bytes): the tree commits to the chain),
// whose perfect subtrees are kept as they complete (core/merkle.h), and the
// checkpoints published of it (commands/audit/checkpoint.h). Events of a tenant sit in one log
// partition, in one order, so a rebuild (`svc replay`) gives the same ids and hashes byte for
// byte. Keys: audit_view.h.

#include "core/json.h"
#include "projections/audit/audit_view.h"
#include "projections/projector.h"

namespace svc::projections {

// 3: a leaf is the RFC 9162 leaf hash of the entry's chain hash (was: of its canonical bytes).
// 4: an index of each review case's entries (c/).
class AuditProjector final : public ViewProjector<AuditView, 4> {
 public:
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;

 private:
  core::Status ApplyCheckpoint(const eventstore::RecordedEvent& event, ViewWriter& view);
};

}  // namespace svc::projections
