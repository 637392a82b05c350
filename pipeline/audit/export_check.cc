#include "pipeline/audit/export_check.h"

#include "core/canonical_json.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "core/merkle.h"
#include "core/signed_note.h"

namespace svc::pipeline::audit {

core::Json ExportCheck::ToJson() const {
  return {{"valid", valid()},
          {"count", count},
          {"brokenAt", broken_at.has_value() ? core::Json(*broken_at) : core::Json(nullptr)},
          {"treeRootHash", root_hash},
          {"checkpointSize", checkpoint_size},
          {"checkpointSignatureValid", checkpoint_signature_valid},
          {"checkpointMatchesEntries", checkpoint_matches},
          {"verifierKeyFrom", key_source}};
}

core::Result<ExportCheck> CheckExport(std::string_view text, std::string_view verifier_key) {
  core::Json doc = core::ParseJsonOrDiscarded(text);
  if (!doc.is_object() || core::StringOr(doc, "format") != kExportFormat || !doc.contains("entries") ||
      !doc["entries"].is_array()) {
    return core::InvalidArgument("not an access-log export (format " + std::string(kExportFormat) + ")");
  }
  ExportCheck out;
  out.key_source = verifier_key.empty() ? "export" : "given";
  const std::string vkey = verifier_key.empty() ? core::StringOr(doc, "verifierKey") : std::string(verifier_key);

  // The chain, and the leaves of the tree (the same canonical bytes).
  std::vector<std::string> leaves;
  std::string prev(32, '\0');
  int64_t expected = 1;
  for (const auto& row : doc["entries"]) {
    ++out.count;
    core::Json entry = row;
    if (!entry.is_object()) {
      if (!out.broken_at) out.broken_at = expected;
      continue;
    }
    const std::string hash = core::StringOr(entry, "hash");
    const std::string prev_hex = core::StringOr(entry, "prevHash");
    entry.erase("hash");
    entry.erase("prevHash");
    auto canonical = core::CanonicalJson(entry);
    leaves.push_back(core::merkle::LeafHash(canonical.ok() ? *canonical : std::string()));
    if (out.broken_at) continue;
    const bool id_ok = entry.contains("id") && entry["id"].is_number_integer() && entry["id"].get<int64_t>() == expected;
    const bool hash_ok = canonical.ok() && prev_hex == core::HexEncode(prev) && core::Sha256Hex(prev + *canonical) == hash;
    auto raw = core::HexDecode(hash);
    if (!id_ok || !hash_ok || !raw.ok()) {
      out.broken_at = expected;
      continue;
    }
    prev = std::move(*raw);
    ++expected;
  }
  core::merkle::NodeSource nodes = [&leaves](int level, uint64_t index) -> core::Result<std::string> {
    // Perfect subtrees straight from the leaves (an export is verified once: O(n) is fine).
    std::function<std::string(int, uint64_t)> perfect = [&](int l, uint64_t i) {
      return l == 0 ? leaves[i] : core::merkle::NodeHash(perfect(l - 1, 2 * i), perfect(l - 1, 2 * i + 1));
    };
    return perfect(level, index);
  };
  auto root = core::merkle::Root(leaves.size(), nodes);
  if (!root.ok()) return root.status();
  out.root_hash = core::HexEncode(*root);

  // The checkpoint: signed by the key, of this origin, of exactly these entries.
  auto opened = core::note::Open(core::StringOr(doc, "checkpoint"), vkey);
  out.checkpoint_signature_valid = opened.ok();
  if (opened.ok()) {
    auto cp = core::note::ParseCheckpoint(*opened);
    if (cp.ok()) {
      out.checkpoint_size = cp->size;
      out.checkpoint_matches = cp->origin == core::StringOr(doc, "origin") && cp->size == leaves.size() &&
                               cp->root_hash == *root;
    }
  }
  return out;
}

}  // namespace svc::pipeline::audit
