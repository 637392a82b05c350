#include "projections/review/review_projector.h"

#include "commands/review/case_decider.h"
#include "commands/review/case_events.h"
#include "commands/review/case_status.h"
#include "commands/verification/session_events.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/json.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

namespace rv = commands::review;
using V = ReviewView;

namespace {

int PriorityRank(std::string_view p) {  // queue order: critical first
  if (p == "critical") return 0;
  if (p == "high") return 1;
  if (p == "medium") return 2;
  return 3;
}

core::Json ActorOrNull(const rv::CaseActor& a) {
  if (a.type.empty()) return nullptr;
  return {{"type", a.type}, {"id", a.id}};
}

// The summary's member a status counts under.
std::string SummaryMember(std::string_view status) {
  if (status == "in_progress") return "inProgress";
  return std::string(status);
}

}  // namespace

int64_t ReviewSlaSeconds(std::string_view priority) {
  if (priority == "critical") return 3600;
  if (priority == "high") return 4 * 3600;
  if (priority == "low") return 72 * 3600;
  return 24 * 3600;
}

std::string ReviewQueueEntry(const core::Json& row) {
  std::string entry;
  entry.push_back(static_cast<char>('0' + PriorityRank(core::StringOr(row, "priority"))));
  auto due = core::ParseRfc3339(core::StringOr(row, "slaDueAt"));
  eventstore::PutFixed64BE(entry, static_cast<uint64_t>(due.ok() ? due->micros : 0));
  entry += core::StringOr(row, "caseId");
  return entry;
}

core::Status ReviewProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type == commands::verification::kSessionAggregate) {
    // A verdict that names a case ends that case's pending move (the session recorded it).
    if (env.type.rfind("verification.", 0) != 0) return core::Status::Ok();
    core::Json d = core::ParseJsonOrDiscarded(env.data);
    const std::string case_id = core::StringOr(d, "caseId");
    if (!case_id.empty() && core::StringOr(d.value("decision", core::Json::object()), "decidedBy") == "review") {
      view.Delete(V::Move(TenantEnv(env.tenant_id, env.environment), case_id));
    }
    return core::Status::Ok();
  }
  if (env.aggregate_type != rv::CaseDecider::kName) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(rv::CaseEvent event, rv::Decode(env));
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  const std::string key = V::Case(te, id);

  SVC_ASSIGN_OR_RETURN(auto summary_text, view.Get(V::Summary(te)));
  core::Json summary = core::ParseJsonOrDiscarded(summary_text.value_or("{}"));
  if (!summary.is_object()) summary = core::Json::object();
  for (const char* m : {"open", "inProgress", "escalated", "resolved", "closed", "total"}) {
    if (!summary.contains(m)) summary[m] = 0;
  }

  core::Json row;
  std::string old_status;
  if (const auto* o = std::get_if<rv::CaseOpened>(&event)) {
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(key));
    if (stored.has_value()) return core::Status::Ok();  // opened once
    SVC_ASSIGN_OR_RETURN(auto seq_text, view.Get(V::Sequence(te)));
    const int64_t number = (seq_text.has_value() ? std::stoll(*seq_text) : 0) + 1;
    view.Put(V::Sequence(te), std::to_string(number));
    const std::string priority = rv::CanonicalPriority(o->priority);
    char public_id[32];
    std::snprintf(public_id, sizeof public_id, "CASE-%06lld", static_cast<long long>(number));
    row = {{"object", "review_case"},
           {"caseId", id},
           {"publicId", public_id},
           {"caseNumber", number},
           {"tenantId", env.tenant_id},
           {"environment", env.environment},
           {"applicationId", o->application_id.empty() ? core::Json(nullptr) : core::Json(o->application_id)},
           {"sessionId", o->session_id.empty() ? core::Json(nullptr) : core::Json(o->session_id)},
           {"status", *rv::CaseStatusAfter(event, 0)},
           {"priority", priority},
           {"reason", o->reason.empty() ? core::Json(nullptr) : core::Json(o->reason)},
           {"reasonCodes", o->reason_codes},
           {"assigneeUserId", nullptr},
           {"assigneeApiKeyId", nullptr},
           {"claimedAt", nullptr},
           {"slaDueAt", core::FormatRfc3339(core::Timestamp{env.occurred_at.micros + ReviewSlaSeconds(priority) * 1000000})},
           {"escalatedAt", nullptr},
           {"escalationLevel", 0},
           {"awaitingSecondApproval", false},
           {"proposedResolution", nullptr},
           {"resolution", nullptr},
           {"resolvedAt", nullptr},
           {"createdAt", at},
           {"updatedAt", at}};
    summary["total"] = summary["total"].get<int64_t>() + 1;
  } else {
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(key));
    if (!stored.has_value()) return core::DataLoss("review case event before its opening: " + id);
    row = core::ParseJsonOrDiscarded(*stored);
    old_status = core::StringOr(row, "status");
    view.Delete(V::Queue(te) + ReviewQueueEntry(row));
    view.Delete(V::OpenQueue(te) + ReviewQueueEntry(row));
    if (auto status = rv::CaseStatusAfter(event, row.value("escalationLevel", int64_t{0}))) row["status"] = *status;
    auto assign = [&row, &at](const rv::CaseActor& a) {
      row["assigneeUserId"] = a.type == "user" ? core::Json(a.id) : core::Json(nullptr);
      row["assigneeApiKeyId"] = a.type == "api_key" ? core::Json(a.id) : core::Json(nullptr);
      row["claimedAt"] = a.type.empty() ? core::Json(nullptr) : core::Json(at);
    };
    std::visit(
        [&](const auto& e) {
          using T = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<T, rv::CaseClaimed>) {
            assign(e.by);
          } else if constexpr (std::is_same_v<T, rv::CaseReleased>) {
            assign({});
          } else if constexpr (std::is_same_v<T, rv::CaseReassigned>) {
            assign({"user", e.user_id});
          } else if constexpr (std::is_same_v<T, rv::CaseEscalated>) {
            assign({});
            row["priority"] = e.priority;
            row["escalationLevel"] = e.level;
            row["escalatedAt"] = at;
            row["slaDueAt"] = core::FormatRfc3339(core::Timestamp{env.occurred_at.micros + ReviewSlaSeconds(e.priority) * 1000000});
          } else if constexpr (std::is_same_v<T, rv::ResolutionProposed>) {
            assign({});
            row["awaitingSecondApproval"] = true;
            row["proposedResolution"] = {{"action", e.action}, {"reasonCodes", e.reason_codes}, {"by", ActorOrNull(e.by)}};
          } else if constexpr (std::is_same_v<T, rv::CaseResolved>) {
            if (!core::StringOr(row, "sessionId").empty()) {
              core::Json approvers = core::Json::array();
              for (const auto& a : e.approvers) approvers.push_back({{"type", a.type}, {"id", a.id}});
              view.Put(V::Move(te, id), core::DumpJson({{"tenantId", env.tenant_id},
                                                        {"environment", env.environment},
                                                        {"caseId", id},
                                                        {"sessionId", row["sessionId"]},
                                                        {"action", e.action},
                                                        {"reasonCodes", e.reason_codes},
                                                        {"approvers", approvers}}));
            }
            row["resolution"] = e.action;
            row["resolvedAt"] = at;
            row["awaitingSecondApproval"] = false;
            row["proposedResolution"] = nullptr;
          }
        },
        event);
  }
  // The case's log: what happened, by whom, when (a note's body stays sealed in the log).
  {
    const int64_t n = env.aggregate_version;
    char seq[24];
    std::snprintf(seq, sizeof seq, "%012lld", static_cast<long long>(n));
    core::Json item = {{"eventType", env.type}, {"createdAt", at}};
    std::visit(
        [&](const auto& e) {
          using T = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<T, rv::CaseOpened>) {
            item["actorType"] = "system";
          } else {
            item["actorType"] = e.by.type;
            item["actorId"] = e.by.id;
          }
          if constexpr (std::is_same_v<T, rv::CaseNoteAdded> || std::is_same_v<T, rv::CaseEscalated> ||
                        std::is_same_v<T, rv::ResolutionProposed> || std::is_same_v<T, rv::CaseResolved>) {
            item["hasNote"] = !e.note_sealed.empty();
            if (!e.note_sealed.empty()) item["noteSealed"] = e.note_sealed;
          }
          if constexpr (std::is_same_v<T, rv::ResolutionProposed> || std::is_same_v<T, rv::CaseResolved>) {
            item["action"] = e.action;
          }
          if constexpr (std::is_same_v<T, rv::CaseReassigned>) item["assigneeUserId"] = e.user_id;
        },
        event);
    view.Put(V::Events(te, id) + seq, core::DumpJson(item));
  }
  if (const auto* o = std::get_if<rv::CaseOpened>(&event); o != nullptr && !o->session_id.empty()) {
    view.Put(V::BySession(te, o->session_id), id);
  }
  // The queue's change feed (ids and states only).
  {
    SVC_ASSIGN_OR_RETURN(auto n_text, view.Get(V::FeedSequence(te)));
    const uint64_t n = (n_text.has_value() ? std::stoull(*n_text) : 0) + 1;
    view.Put(V::FeedSequence(te), std::to_string(n));
    std::string feed_key = V::Feed(te);
    eventstore::PutFixed64BE(feed_key, n);
    view.Put(feed_key, core::DumpJson({{"type", env.type},
                                       {"caseId", id},
                                       {"status", row["status"]},
                                       {"priority", row["priority"]},
                                       {"assigneeUserId", row["assigneeUserId"]},
                                       {"assigneeApiKeyId", row["assigneeApiKeyId"]},
                                       {"at", at}}));
  }
  const std::string new_status = core::StringOr(row, "status");
  if (!old_status.empty() && old_status != new_status) {
    const std::string m = SummaryMember(old_status);
    summary[m] = summary[m].get<int64_t>() - 1;
  }
  if (old_status != new_status) {
    const std::string m = SummaryMember(new_status);
    summary[m] = summary[m].get<int64_t>() + 1;
  }
  row["updatedAt"] = at;
  view.Put(key, core::DumpJson(row));
  view.Put(V::Queue(te) + ReviewQueueEntry(row), "");
  if (!rv::IsFinishedCaseStatus(new_status)) view.Put(V::OpenQueue(te) + ReviewQueueEntry(row), "");
  view.Put(V::Summary(te), core::DumpJson(summary));
  return core::Status::Ok();
}

}  // namespace svc::projections
