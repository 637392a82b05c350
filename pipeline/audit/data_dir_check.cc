#include "pipeline/audit/data_dir_check.h"

#include <map>

#include "core/ids.h"
#include "pipeline/audit/checkpoints.h"
#include "projections/audit/audit_reads.h"
#include "projections/audit/audit_view.h"
#include "projections/projector.h"

namespace svc::pipeline::audit {

using AV = projections::AuditView;

core::Json StoredChainCheck::ToJson() const {
  core::Json j = {{"tenantId", tenant}, {"environment", environment}, {"valid", valid()}};
  j.update(check.ToJson());
  j["valid"] = valid();
  j["headSize"] = head_size;
  j["storedTreeMatches"] = stored_tree_matches;
  return j;
}

namespace {

core::Result<StoredChainCheck> CheckOne(const eventstore::KvStore& store, std::string_view root_key,
                                        const std::string& tenant, const std::string& environment, unsigned threads) {
  const int cf = store.Cf(projections::kViewsCf);
  const std::string te = projections::TenantEnv(tenant, environment);
  StoredChainCheck out;
  out.tenant = tenant;
  out.environment = environment;

  std::vector<std::string> rows;
  std::vector<std::optional<int64_t>> key_ids;
  const std::string prefix = AV::Abs(AV::Entries(te));
  auto it = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    rows.emplace_back(it->value());
    key_ids.push_back(AV::IdOfKey(it->key().substr(prefix.size())));
  }
  SVC_RETURN_IF_ERROR(it->status());
  auto digests = DigestAll(
      rows.size(),
      [&](size_t i) {
        projections::ChainLink link = projections::ReadLink(rows[i]);
        if (key_ids[i] != link.id) link.id.reset();  // a row under another id's key
        return projections::Digest(link);
      },
      threads);
  rows.clear();

  std::vector<PublishedCheckpoint> published;
  const std::string cps = AV::Abs(AV::Checkpoints(te));
  auto cit = store.NewIterator(cf, cps, eventstore::PrefixEnd(cps));
  for (cit->Seek(cps); cit->Valid(); cit->Next()) {
    core::Json row = core::ParseJsonOrDiscarded(cit->value());
    published.push_back({core::IntOr(row, "treeSize", 0), core::StringOr(row, "rootHash"),
                         core::StringOr(row, "checkpoint")});
  }
  SVC_RETURN_IF_ERROR(cit->status());

  out.check = CheckChain(digests, Origin(tenant, environment), VerifierKeyOf(root_key, tenant, environment),
                         std::nullopt, std::move(published));
  out.check.key_source = "derived";

  SVC_ASSIGN_OR_RETURN(auto tree, projections::ReadStoredTree(store, te));
  out.head_size = tree.size;
  if (tree.size == out.check.count) {
    auto root = core::merkle::Root(static_cast<uint64_t>(tree.size), tree.nodes);
    out.stored_tree_matches = root.ok() && core::HexEncode(*root) == out.check.root_hash;
  }
  return out;
}

}  // namespace

core::Result<std::vector<StoredChainCheck>> CheckDataDir(const eventstore::KvStore& store, std::string_view root_key,
                                                         std::string_view tenant, std::string_view environment,
                                                         unsigned threads) {
  // The chains: those with a head row and those with entry rows (a head can be deleted too).
  std::map<std::pair<std::string, std::string>, bool> chains;
  SVC_ASSIGN_OR_RETURN(auto heads, projections::ReadChainHeads(store));
  for (const auto& h : heads) chains[{h.tenant, h.environment}] = true;
  const int cf = store.Cf(projections::kViewsCf);
  const std::string entries = AV::Abs("e/");
  auto it = store.NewIterator(cf, entries, eventstore::PrefixEnd(entries));
  for (it->Seek(entries); it->Valid();) {
    std::string_view rest = it->key().substr(entries.size());  // <ten>/<env>/<id>
    size_t a = rest.find('/');
    size_t b = a == std::string_view::npos ? a : rest.find('/', a + 1);
    if (b == std::string_view::npos) return core::DataLoss("an audit entry row is misnamed");
    std::string ten(rest.substr(0, a)), env(rest.substr(a + 1, b - a - 1));
    chains[{ten, env}] = true;
    it->Seek(AV::Abs(AV::Entries(projections::TenantEnv(ten, env))) + "\xff");  // the next chain
  }
  SVC_RETURN_IF_ERROR(it->status());
  std::vector<StoredChainCheck> out;
  for (const auto& [chain, _] : chains) {
    if (!tenant.empty() && chain.first != tenant) continue;
    if (!environment.empty() && chain.second != environment) continue;
    SVC_ASSIGN_OR_RETURN(auto c, CheckOne(store, root_key, chain.first, chain.second, threads));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace svc::pipeline::audit
