#include "projections/review/review_queries.h"

#include <algorithm>
#include <map>

#include "projections/audit/audit_view.h"
#include "projections/projector.h"
#include "projections/review/review_view.h"
#include "projections/tenancy_view.h"
#include "projections/sessions_view.h"
#include "projections/view_rows.h"

namespace svc::projections {

core::Result<core::Json> ResolutionAnswer(const eventstore::KvStore& views, std::string_view te,
                                          std::string_view case_id, std::string_view session_id,
                                          const core::Json& result) {
  SVC_ASSIGN_OR_RETURN(auto row, ReadRow(views, ReviewView::Abs(ReviewView::Case(te, case_id))));
  if (!row.has_value()) return core::Unavailable("the case is not readable yet");
  std::string session_status;
  if (!session_id.empty()) {
    auto session = ReadRow(views, SessionsView::Abs(SessionsView::Record(te, session_id)));
    if (session.ok() && session->has_value()) session_status = core::StringOr(**session, "status");
  }
  return core::Json{{"caseId", case_id},
                    {"caseStatus", (*row)["status"]},
                    {"sessionStatus", session_status},
                    {"awaitingSecondApproval", result.value("awaitingSecondApproval", false)},
                    {"outcome", result.value("outcome", core::Json(nullptr))}};
}

core::Result<CaseViewers> CaseViews(const eventstore::KvStore& views, std::string_view tenant, std::string_view te,
                                    std::string_view case_id, size_t limit) {
  CaseViewers out;
  const std::string prefix = AuditView::Abs(AuditView::ByCase(te, case_id));
  const int cf = views.Cf(kViewsCf);
  auto it = views.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  std::vector<int64_t> ids;
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    ++out.total;
    if (ids.size() < limit) {
      auto id = AuditView::IdOfKey(it->key().substr(prefix.size()));
      if (id.has_value()) ids.push_back(*id);
    }
  }
  SVC_RETURN_IF_ERROR(it->status());
  std::map<std::string, core::Json> users;  // the reviewers named, read once each
  for (int64_t id : ids) {
    SVC_ASSIGN_OR_RETURN(auto entry, ReadRow(views, AuditView::Abs(AuditView::Entry(te, id))));
    if (!entry.has_value()) continue;
    const std::string actor_type = core::StringOr(*entry, "actorType"), actor = core::StringOr(*entry, "actorId");
    core::Json label = nullptr, role = nullptr;
    if (actor_type == "user") {
      auto u = users.find(actor);
      if (u == users.end()) {
        SVC_ASSIGN_OR_RETURN(auto row, ReadRow(views, TenancyView::Abs(TenancyView::User(tenant, actor))));
        u = users.emplace(actor, row.value_or(core::Json::object())).first;
      }
      label = u->second.value("label", core::Json(nullptr));
      role = u->second.value("role", core::Json(nullptr));
    }
    out.entries.push_back({{"id", id},
                           {"at", (*entry)["createdAt"]},
                           {"actorType", actor_type},
                           {"actorId", actor},
                           {"actorLabel", label},
                           {"actorRole", role},
                           {"channel", (*entry)["channel"]},
                           {"fields", entry->value("fields", core::Json::array())}});
  }
  // The openings among all (not only the newest `limit`): a second pass only when cut.
  if (out.total <= static_cast<int64_t>(limit)) {
    for (const auto& e : out.entries) out.openings += e["channel"] == "review_case" ? 1 : 0;
  } else {
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      auto id = AuditView::IdOfKey(it->key().substr(prefix.size()));
      if (!id.has_value()) continue;
      SVC_ASSIGN_OR_RETURN(auto entry, ReadRow(views, AuditView::Abs(AuditView::Entry(te, *id))));
      if (entry.has_value() && core::StringOr(*entry, "channel") == "review_case") ++out.openings;
    }
    SVC_RETURN_IF_ERROR(it->status());
  }
  return out;
}

core::Result<core::Json> TeamWorkload(const eventstore::KvStore& views, std::string_view tenant, std::string_view te) {
  SVC_ASSIGN_OR_RETURN(auto counted, ScanRows(views, ReviewView::Abs(ReviewView::AllStats(te))));
  std::map<std::string, core::Json> stats;
  for (auto& r : counted) stats.emplace(core::StringOr(r, "actorId"), std::move(r));
  auto member = [&stats](const std::string& id, const std::string& type) {
    core::Json st = stats.count(id) ? stats[id] : core::Json::object();
    const int64_t timed = st.value("timedDecisions", int64_t{0});
    core::Json decisions = st.value("decisions", core::Json::object());
    int64_t total = 0;
    for (const auto& [k, v] : decisions.items()) total += v.get<int64_t>();
    for (const char* a : {"approve", "decline", "request_more_info", "escalate"}) {
      if (!decisions.contains(a)) decisions[a] = 0;
    }
    return core::Json{{"actorType", type},
                      {"actorId", id},
                      {"held", st.value("held", int64_t{0})},
                      {"claims", st.value("claims", int64_t{0})},
                      {"decided", total},
                      {"decisions", decisions},
                      {"proposals", st.value("proposals", int64_t{0})},
                      {"overturned", st.value("overturned", int64_t{0})},
                      {"overrides", st.value("overrides", int64_t{0})},
                      {"meanDecisionSeconds", timed > 0 ? core::Json(st.value("decisionSeconds", int64_t{0}) / timed)
                                                        : core::Json(nullptr)},
                      {"decisionTimes", st.value("decisionTimes", core::Json::object())},
                      {"lastDecisionAt", st.value("lastDecisionAt", core::Json(nullptr))}};
  };
  core::Json members = core::Json::array();
  SVC_ASSIGN_OR_RETURN(auto users, ScanRows(views, TenancyView::Abs(TenancyView::Users(tenant))));
  for (const auto& u : users) {
    const std::string role = core::StringOr(u, "role");
    if (role != "reviewer" && role != "supervisor") continue;
    const std::string id = core::StringOr(u, "id");
    core::Json m = member(id, "user");
    m["label"] = u.value("label", "");
    m["role"] = role;
    m["disabled"] = !u.value("disabledAt", core::Json()).is_null();
    members.push_back(std::move(m));
    stats.erase(id);
  }
  for (const auto& [id, st] : stats) {  // the keys that worked cases (integrations)
    if (core::StringOr(st, "actorType") != "api_key") continue;
    core::Json m = member(id, "api_key");
    m["label"] = nullptr;
    m["role"] = nullptr;
    m["disabled"] = false;
    members.push_back(std::move(m));
  }
  std::sort(members.begin(), members.end(), [](const core::Json& a, const core::Json& b) {
    if (a["held"] != b["held"]) return a["held"].get<int64_t>() > b["held"].get<int64_t>();
    return a.value("label", core::Json("")).dump() < b.value("label", core::Json("")).dump();
  });
  SVC_ASSIGN_OR_RETURN(auto summary, ReadRow(views, ReviewView::Abs(ReviewView::Summary(te))));
  return core::Json{{"object", "review_team"}, {"members", std::move(members)},
                    {"queue", summary.value_or(core::Json::object())}};
}

}  // namespace svc::projections
