#include "projections/audit/audit_projector.h"

#include "commands/audit/checkpoint.h"
#include "commands/persons/access_events.h"
#include "core/canonical_json.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/merkle.h"

namespace svc::projections {

namespace ps = commands::persons;
namespace au = commands::audit;
using AuV = AuditView;

core::Status AuditProjector::ApplyCheckpoint(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  SVC_ASSIGN_OR_RETURN(au::AuditLogEvent event, au::DecodeAuditLog(env));
  const auto& c = std::get<au::CheckpointPublished>(event);
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  core::Json row = {{"object", "audit_checkpoint"},
                    {"treeSize", c.tree_size},
                    {"rootHash", c.root_hash},
                    {"checkpoint", c.checkpoint},
                    {"publishedAt", core::FormatRfc3339(env.occurred_at)},
                    {"eventId", env.id}};
  view.Put(AuV::Checkpoint(te, c.tree_size), core::DumpJson(row));
  return core::Status::Ok();
}

core::Status AuditProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.type == au::CheckpointPublished::kType && env.aggregate_type == au::kAuditLogAggregate) {
    return ApplyCheckpoint(re, view);
  }
  if (env.type != ps::PiiAccessed::kType) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(ps::AccessEvent event, ps::DecodeAccess(env));
  const auto& a = std::get<ps::PiiAccessed>(event);
  const std::string te = TenantEnv(env.tenant_id, env.environment);

  // Where the chain stands: "<id>|<hash hex>" (none yet: id 0, 32 zero bytes).
  int64_t last = 0;
  std::string prev(32, '\0');
  SVC_ASSIGN_OR_RETURN(auto head, view.Get(AuV::Head(te)));
  if (head.has_value()) {
    auto parsed = AuV::ParseHead(*head);
    if (!parsed.has_value()) return core::DataLoss("audit chain head of " + te + " is unreadable");
    last = parsed->id;
    prev = std::move(parsed->hash);
  }
  const int64_t id = last + 1;
  auto or_null = [](const std::string& s) { return s.empty() ? core::Json(nullptr) : core::Json(s); };
  core::Json entry = {{"id", id},
                      {"object", "audit_log_entry"},
                      {"personId", or_null(a.person_id)},
                      {"applicationId", or_null(a.application_id)},
                      {"actorType", a.actor_type},
                      {"actorId", a.actor_id},
                      {"channel", a.channel},
                      {"fields", a.fields},
                      {"redaction", a.redaction},
                      {"purpose", or_null(a.purpose)},
                      {"reason", or_null(a.reason)},
                      {"requestId", or_null(env.request_id)},
                      {"createdAt", core::FormatRfc3339(env.occurred_at)},
                      {"personCount", nullptr},
                      {"eventId", env.id}};
  // Only where there is one: the entries recorded before review existed keep their hashes.
  if (!a.case_id.empty()) entry["caseId"] = a.case_id;
  // A sealed reason is recorded (and hashed) as `reasonSealed` and `reasonCommitment`, with no
  // `reason` member: the served entry adds `reason` and `reasonKey` opened, which the chain's rule
  // checks against the commitment (audit_chain.h).
  if (!a.reason_sealed.empty()) {
    entry.erase("reason");
    entry["reasonSealed"] = a.reason_sealed;
    entry["reasonCommitment"] = a.reason_commitment;
  }
  // The chain's hash, and the tree's leaf over it (audit_chain.h).
  SVC_ASSIGN_OR_RETURN(std::string canonical, core::CanonicalJson(entry));
  const std::string raw_hash = core::Sha256Concat({prev, canonical});
  const std::string hash = core::HexEncode(raw_hash);
  std::string leaf = core::merkle::LeafHash(raw_hash);
  core::merkle::NodeSource stored = [&view, &te](int level, uint64_t index) -> core::Result<std::string> {
    SVC_ASSIGN_OR_RETURN(auto node, view.Get(AuV::TreeNode(te, level, index)));
    if (!node.has_value() || node->size() != 32) return core::DataLoss("audit tree node missing");
    return std::move(*node);
  };
  SVC_ASSIGN_OR_RETURN(auto completed, core::merkle::Completed(static_cast<uint64_t>(id - 1), leaf, stored));
  for (const auto& [level, node] : completed) {
    view.Put(AuV::TreeNode(te, level, static_cast<uint64_t>(id - 1) >> level), node);
  }
  entry["prevHash"] = core::HexEncode(prev);
  entry["hash"] = hash;
  view.Put(AuV::Entry(te, id), core::DumpJson(entry));
  if (!a.person_id.empty()) view.Put(AuV::ByPerson(te, a.person_id) + AuV::IdKey(id), "");
  if (!a.actor_id.empty()) view.Put(AuV::ByActor(te, a.actor_id) + AuV::IdKey(id), "");
  if (!a.case_id.empty()) view.Put(AuV::ByCase(te, a.case_id) + AuV::IdKey(id), "");
  view.Put(AuV::Head(te), std::to_string(id) + "|" + hash);
  return core::Status::Ok();
}

}  // namespace svc::projections
