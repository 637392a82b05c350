#include "projections/sessions_queries.h"

#include "core/clock.h"
#include "projections/projector.h"
#include "projections/sessions_view.h"
#include "projections/view_rows.h"

namespace svc::projections {

core::Result<core::Json> ConsentAnswer(const eventstore::KvStore& views, std::string_view te, std::string_view session_id) {
  SVC_ASSIGN_OR_RETURN(auto consent, ReadRow(views, SessionsView::Abs(SessionsView::Consent(te, session_id))));
  SVC_ASSIGN_OR_RETURN(auto record, ReadRow(views, SessionsView::Abs(SessionsView::Record(te, session_id))));
  if (!consent.has_value() || !record.has_value()) return core::Unavailable("consent stored; read it again");
  core::Json out;
  out["consentGiven"] = (*consent)["consentGiven"];
  out["recordedAt"] = (*consent)["recordedAt"];
  out["status"] = (*record)["status"];
  return out;
}

// The verification volume of the key's environment, from the sessions read model's counters:
// where every session stands now, and what the last 30 UTC days saw.
core::Result<core::Json> VerificationVolume(const eventstore::KvStore& store, const std::string& te, core::Timestamp now) {
  using SV = SessionsView;
  const int cf = store.Cf(kViewsCf);
  auto count = [&](const std::string& key) -> core::Result<int64_t> {
    SVC_ASSIGN_OR_RETURN(auto row, store.Get(cf, SV::Abs(key)));
    return row.has_value() ? std::stoll(*row) : 0;
  };
  static constexpr const char* kStatuses[] = {"pending", "in_progress", "awaiting_input", "review",
                                              "approved", "declined", "expired", "abandoned"};
  core::Json by_status = core::Json::object();
  for (const char* s : kStatuses) {
    SVC_ASSIGN_OR_RETURN(by_status[s], count(SV::Counter(te, SV::ByStatus(s))));
  }
  SVC_ASSIGN_OR_RETURN(int64_t total, count(SV::Counter(te, SV::All())));
  const int64_t approved = by_status["approved"].get<int64_t>(), declined = by_status["declined"].get<int64_t>();
  // The last 30 UTC days, today included: the daily counters from the first day to the last.
  const std::string from = core::FormatDate(core::Timestamp{now.micros - 29 * 86'400'000'000});
  const std::string to = core::FormatDate(now);
  core::Json window = {{"from", from}, {"to", to}, {"created", 0}};
  for (const char* s : kStatuses) {
    if (std::string_view(s) != "pending") window[s] = 0;  // the statuses a session reaches
  }
  const std::string days = SV::Abs(SV::Volumes(te));
  auto it = store.NewIterator(cf, days + from, days + to + "0");  // "<to>/…" < "<to>0"
  for (it->Seek(days + from); it->Valid(); it->Next()) {
    std::string_view rest = it->key().substr(days.size());  // <day>/<what>
    std::string what(rest.substr(rest.find('/') + 1));
    if (window.contains(what)) window[what] = window[what].get<int64_t>() + std::stoll(std::string(it->value()));
  }
  SVC_RETURN_IF_ERROR(it->status());
  return core::Json{{"environment", te.substr(te.find('/') + 1)},
                    {"total", total},
                    {"byStatus", by_status},
                    {"decided", approved + declined},
                    {"approvalRate", approved + declined > 0
                                         ? core::Json(static_cast<double>(approved) / static_cast<double>(approved + declined))
                                         : core::Json(nullptr)},
                    {"last30Days", window}};
}

}  // namespace svc::projections
