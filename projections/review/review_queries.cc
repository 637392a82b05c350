#include "projections/review/review_queries.h"

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

}  // namespace svc::projections
