#include "projections/review/review_projector.h"

#include <map>

#include "commands/review/case_decider.h"
#include "commands/review/case_events.h"
#include "commands/review/case_status.h"
#include "commands/review/reason_codes.h"
#include "commands/verification/session_events.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/json.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

namespace rv = commands::review;
using RvV = ReviewView;

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

rv::CaseActor AssigneeOf(const core::Json& row) {
  if (auto u = core::StringOr(row, "assigneeUserId"); !u.empty()) return {"user", u};
  if (auto k = core::StringOr(row, "assigneeApiKeyId"); !k.empty()) return {"api_key", k};
  return {};
}

// One actor's work counters (rstats/), read, changed and written back within the batch.
class Stats {
 public:
  Stats(ViewWriter& view, std::string te) : view_(view), te_(std::move(te)) {}
  core::Result<core::Json*> Of(const rv::CaseActor& a) {
    auto it = rows_.find(a.id);
    if (it != rows_.end()) return &it->second;
    SVC_ASSIGN_OR_RETURN(auto text, view_.Get(RvV::Stats(te_, a.id)));
    core::Json row = core::ParseJsonOrDiscarded(text.value_or("{}"));
    if (!row.is_object()) row = core::Json::object();
    row["actorType"] = a.type;
    row["actorId"] = a.id;
    for (const char* m : {"held", "claims", "proposals", "overturned", "overrides", "decisionSeconds", "timedDecisions"}) {
      if (!row.contains(m)) row[m] = 0;
    }
    for (const char* group : {"decisions", "decisionTimes"}) {
      if (!row.contains(group) || !row[group].is_object()) row[group] = core::Json::object();
    }
    return &rows_.emplace(a.id, std::move(row)).first->second;
  }
  core::Status Add(const rv::CaseActor& a, const char* member, int64_t n = 1) {
    if (a.type.empty()) return core::Status::Ok();
    SVC_ASSIGN_OR_RETURN(core::Json * row, Of(a));
    (*row)[member] = (*row)[member].get<int64_t>() + n;
    return core::Status::Ok();
  }
  // A decision (approve, decline, request_more_info, escalate) at `at`, after a claim at `claimed`.
  core::Status Decided(const rv::CaseActor& a, const std::string& action, const std::string& claimed, int64_t at_micros,
                       const std::string& at) {
    if (a.type.empty()) return core::Status::Ok();
    SVC_ASSIGN_OR_RETURN(core::Json * row, Of(a));
    core::Json& d = (*row)["decisions"];
    d[action] = d.value(action, int64_t{0}) + 1;
    (*row)["lastDecisionAt"] = at;
    auto from = core::ParseRfc3339(claimed);
    if (!from.ok()) return core::Status::Ok();
    const int64_t seconds = std::max<int64_t>(0, (at_micros - from->micros) / 1000000);
    (*row)["decisionSeconds"] = (*row)["decisionSeconds"].get<int64_t>() + seconds;
    (*row)["timedDecisions"] = (*row)["timedDecisions"].get<int64_t>() + 1;
    const char* bucket = seconds < 300 ? "lt5m" : seconds < 900 ? "lt15m" : seconds < 3600 ? "lt1h"
                         : seconds < 4 * 3600 ? "lt4h" : seconds < 24 * 3600 ? "lt24h" : "ge24h";
    core::Json& t = (*row)["decisionTimes"];
    t[bucket] = t.value(bucket, int64_t{0}) + 1;
    return core::Status::Ok();
  }
  void Write() {
    for (const auto& [id, row] : rows_) view_.Put(RvV::Stats(te_, id), core::DumpJson(row));
  }

 private:
  ViewWriter& view_;
  std::string te_;
  std::map<std::string, core::Json> rows_;
};

// True when resolving the case `row` with `action` goes against the engine's lean.
bool Overrides(const core::Json& row, std::string_view action) {
  std::vector<std::string> codes;
  for (const auto& c : row.value("reasonCodes", core::Json::array())) {
    if (c.is_string()) codes.push_back(c.get<std::string>());
  }
  return rv::IsOverride(rv::EngineLean(rv::CasePriorityFor(codes)), action);
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

namespace {

// A case event's part in its actors' counters, against the case row as it was before it.
core::Status CountWork(const rv::CaseEvent& event, const core::Json& before, Stats& stats, int64_t at_micros,
                       const std::string& at) {
  const std::string claimed = core::StringOr(before, "claimedAt");
  return std::visit(
      [&](const auto& e) -> core::Status {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, rv::CaseClaimed>) {
          return stats.Add(e.by, "claims");
        } else if constexpr (std::is_same_v<T, rv::CaseEscalated>) {
          return stats.Decided(e.by, "escalate", claimed, at_micros, at);
        } else if constexpr (std::is_same_v<T, rv::ResolutionProposed>) {
          // A second reviewer who disagrees overturns the first one's proposal.
          const core::Json p = before.value("proposedResolution", core::Json());
          if (p.is_object() && core::StringOr(p, "action") != e.action) {
            const core::Json by = p.value("by", core::Json::object());
            const rv::CaseActor first{core::StringOr(by, "type"), core::StringOr(by, "id")};
            if (!(first == e.by)) SVC_RETURN_IF_ERROR(stats.Add(first, "overturned"));
          }
          SVC_RETURN_IF_ERROR(stats.Add(e.by, "proposals"));
          if (Overrides(before, e.action)) SVC_RETURN_IF_ERROR(stats.Add(e.by, "overrides"));
          return core::Status::Ok();
        } else if constexpr (std::is_same_v<T, rv::CaseResolved>) {
          if (Overrides(before, e.action)) SVC_RETURN_IF_ERROR(stats.Add(e.by, "overrides"));
          return stats.Decided(e.by, e.action, claimed, at_micros, at);
        } else {
          return core::Status::Ok();
        }
      },
      event);
}

}  // namespace

core::Status ReviewProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type == commands::verification::kSessionAggregate) {
    // A verdict that names a case ends that case's pending move (the session recorded it).
    if (env.type.rfind("verification.", 0) != 0) return core::Status::Ok();
    core::Json d = core::ParseJsonOrDiscarded(env.data);
    const std::string case_id = core::StringOr(d, "caseId");
    if (!case_id.empty() && core::StringOr(d.value("decision", core::Json::object()), "decidedBy") == "review") {
      view.Delete(RvV::Move(TenantEnv(env.tenant_id, env.environment), case_id));
    }
    return core::Status::Ok();
  }
  if (env.aggregate_type != rv::CaseDecider::kName) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(rv::CaseEvent event, rv::Decode(env));
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  const std::string key = RvV::Case(te, id);

  SVC_ASSIGN_OR_RETURN(auto summary_text, view.Get(RvV::Summary(te)));
  core::Json summary = core::ParseJsonOrDiscarded(summary_text.value_or("{}"));
  if (!summary.is_object()) summary = core::Json::object();
  for (const char* m : {"open", "inProgress", "escalated", "resolved", "closed", "total"}) {
    if (!summary.contains(m)) summary[m] = 0;
  }

  core::Json row;
  std::string old_status;
  Stats stats(view, te);
  rv::CaseActor held_before;
  if (const auto* o = std::get_if<rv::CaseOpened>(&event)) {
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(key));
    if (stored.has_value()) return core::Status::Ok();  // opened once
    SVC_ASSIGN_OR_RETURN(auto seq_text, view.Get(RvV::Sequence(te)));
    const int64_t number = (seq_text.has_value() ? std::stoll(*seq_text) : 0) + 1;
    view.Put(RvV::Sequence(te), std::to_string(number));
    view.Put(RvV::ByNumber(te, number), id);
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
    held_before = AssigneeOf(row);
    SVC_RETURN_IF_ERROR(CountWork(event, row, stats, env.occurred_at.micros, at));
    view.Delete(RvV::Queue(te) + ReviewQueueEntry(row));
    view.Delete(RvV::OpenQueue(te) + ReviewQueueEntry(row));
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
              core::Json move = {{"tenantId", env.tenant_id},
                                 {"environment", env.environment},
                                 {"caseId", id},
                                 {"sessionId", row["sessionId"]},
                                 {"action", e.action},
                                 {"reasonCodes", e.reason_codes},
                                 {"approvers", approvers}};
              if (!e.applicant_message_sealed.empty()) move["applicantMessageSealed"] = e.applicant_message_sealed;
              view.Put(RvV::Move(te, id), core::DumpJson(move));
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
    view.Put(RvV::Events(te, id) + seq, core::DumpJson(item));
  }
  if (const auto* o = std::get_if<rv::CaseOpened>(&event); o != nullptr && !o->session_id.empty()) {
    view.Put(RvV::BySession(te, o->session_id), id);
  }
  // The queue's change feed (ids and states only).
  {
    SVC_ASSIGN_OR_RETURN(auto n_text, view.Get(RvV::FeedSequence(te)));
    const uint64_t n = (n_text.has_value() ? std::stoull(*n_text) : 0) + 1;
    view.Put(RvV::FeedSequence(te), std::to_string(n));
    std::string feed_key = RvV::Feed(te);
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
  // Who holds what (the team's workload): the claim moved from one actor to another.
  if (const rv::CaseActor held_after = rv::IsFinishedCaseStatus(new_status) ? rv::CaseActor{} : AssigneeOf(row);
      !(held_after == held_before)) {
    SVC_RETURN_IF_ERROR(stats.Add(held_before, "held", -1));
    SVC_RETURN_IF_ERROR(stats.Add(held_after, "held", 1));
  }
  stats.Write();
  row["updatedAt"] = at;
  view.Put(key, core::DumpJson(row));
  view.Put(RvV::Queue(te) + ReviewQueueEntry(row), "");
  if (!rv::IsFinishedCaseStatus(new_status)) view.Put(RvV::OpenQueue(te) + ReviewQueueEntry(row), "");
  view.Put(RvV::Summary(te), core::DumpJson(summary));
  return core::Status::Ok();
}

}  // namespace svc::projections
