#include "projections/audit/audit_reads.h"

#include "projections/audit/audit_chain.h"
#include "projections/audit/audit_view.h"
#include "projections/projector.h"

namespace svc::projections {

using AuV = AuditView;

core::Result<StoredTree> ReadStoredTree(const eventstore::KvStore& store, std::string_view te) {
  const int cf = store.Cf(kViewsCf);
  StoredTree t;
  SVC_ASSIGN_OR_RETURN(auto head, store.Get(cf, AuV::Abs(AuV::Head(te))));
  if (head.has_value()) {
    auto parsed = AuV::ParseHead(*head);
    if (!parsed.has_value()) return core::DataLoss("the audit chain's head is unreadable");
    t.size = parsed->id;
  }
  t.nodes = [&store, cf, te = std::string(te)](int level, uint64_t index) -> core::Result<std::string> {
    SVC_ASSIGN_OR_RETURN(auto node, store.Get(cf, AuV::Abs(AuV::TreeNode(te, level, index))));
    if (!node.has_value() || node->size() != 32) return core::DataLoss("an audit tree node is missing");
    return std::move(*node);
  };
  return t;
}

core::Result<std::vector<ChainHeadOf>> ReadChainHeads(const eventstore::KvStore& store) {
  const int cf = store.Cf(kViewsCf);
  const std::string prefix = AuV::Abs(AuV::Heads());
  auto it = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  std::vector<ChainHeadOf> out;
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    std::string_view te = it->key().substr(prefix.size());
    size_t slash = te.find('/');
    auto head = AuV::ParseHead(it->value());
    if (slash == std::string_view::npos || !head.has_value()) {
      return core::DataLoss("an audit chain head is unreadable: " + std::string(te));
    }
    out.push_back({std::string(te.substr(0, slash)), std::string(te.substr(slash + 1)), head->id});
  }
  SVC_RETURN_IF_ERROR(it->status());
  return out;
}

namespace {

// Walks a chain's stored entries from `from` (a key under `prefix`) on, adding each to `walk`.
core::Status WalkStored(const eventstore::KvStore& store, const std::string& prefix, const std::string& from,
                        ChainWalk& walk) {
  auto it = store.NewIterator(store.Cf(kViewsCf), prefix, eventstore::PrefixEnd(prefix));
  for (it->Seek(from); it->Valid(); it->Next()) {
    if (walk.broken_at().has_value()) {
      walk.Add({});  // counted, no longer checked
      continue;
    }
    ChainLink link = ReadLink(it->value());
    if (AuV::IdOfKey(it->key().substr(prefix.size())) != link.id) link.id.reset();  // a row under another id's key
    walk.Add(Digest(link));
  }
  return it->status();
}

}  // namespace

core::Result<ChainVerification> VerifyStoredChain(const eventstore::KvStore& store, std::string_view te) {
  const std::string prefix = AuV::Abs(AuV::Entries(te));
  ChainWalk walk;
  SVC_RETURN_IF_ERROR(WalkStored(store, prefix, prefix, walk));
  return ChainVerification{walk.count(), walk.broken_at(), walk.count()};
}

core::Result<ChainVerification> IncrementalChainVerifier::Verify(const eventstore::KvStore& store, std::string_view te) {
  std::shared_ptr<Mark> mark;
  {
    std::lock_guard lock(mu_);
    auto& slot = marks_[std::string(te)];
    if (!slot) slot = std::make_shared<Mark>();
    mark = slot;
  }
  std::lock_guard walk_lock(mark->mu);
  const std::string prefix = AuV::Abs(AuV::Entries(te));
  bool resume = mark->count > 0 && !mark->broken_at.has_value();
  if (resume) {
    // The entry at the mark must still be the one verified.
    SVC_ASSIGN_OR_RETURN(auto row, store.Get(store.Cf(kViewsCf), AuV::Abs(AuV::Entry(te, mark->count))));
    const LinkDigest at = row.has_value() ? Digest(ReadLink(*row)) : LinkDigest{};
    resume = at.readable && at.recomputes && at.id == mark->count && at.hash == mark->last_hash;
  }
  const int64_t from = resume ? mark->count : 0;
  ChainWalk walk = resume ? ChainWalk(mark->count, mark->last_hash) : ChainWalk();
  SVC_RETURN_IF_ERROR(WalkStored(store, prefix, resume ? AuV::Abs(AuV::Entry(te, mark->count + 1)) : prefix, walk));
  mark->count = walk.count();
  mark->last_hash = walk.last_hash();
  mark->broken_at = walk.broken_at();
  return ChainVerification{walk.count(), walk.broken_at(), walk.count() - from};
}

core::Result<int64_t> LastPublishedSize(const eventstore::KvStore& store, std::string_view te) {
  const std::string prefix = AuV::Abs(AuV::Checkpoints(te));
  auto it = store.NewIterator(store.Cf(kViewsCf), prefix, eventstore::PrefixEnd(prefix));
  it->SeekToLast();
  if (!it->Valid()) {
    SVC_RETURN_IF_ERROR(it->status());
    return int64_t{0};
  }
  auto size = AuV::IdOfKey(it->key().substr(prefix.size()));
  if (!size.has_value()) return core::DataLoss("an audit checkpoint row is misnamed");
  return *size;
}

}  // namespace svc::projections
