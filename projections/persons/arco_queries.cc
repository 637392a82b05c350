#include "projections/persons/arco_queries.h"

#include <algorithm>

#include "commands/persons/arco_request.h"
#include "core/clock.h"
#include "projections/persons/arco_view.h"
#include "projections/view_rows.h"

namespace svc::projections {

using ArV = ArcoView;

bool ArcoOverdue(const core::Json& row, int64_t now_micros) {
  const std::string status = core::StringOr(row, "status");
  const char* field = status == "received" ? "responseDueAt" : status == "accepted" ? "effectDueAt" : nullptr;
  if (field == nullptr) return false;
  auto due = core::ParseRfc3339(core::StringOr(row, field));
  return due.ok() && now_micros > due->micros;
}

core::Result<core::Json> ArcoRequestAt(const eventstore::KvStore& views, std::string_view te, std::string_view id,
                                       int64_t now_micros) {
  SVC_ASSIGN_OR_RETURN(auto row, ReadRow(views, ArV::Abs(ArV::Request(te, id))));
  if (!row.has_value()) return core::NotFound("no such ARCO request", "ARCO_REQUEST_NOT_FOUND");
  (*row)["overdue"] = ArcoOverdue(*row, now_micros);
  return std::move(*row);
}

core::Status CheckArcoFulfilment(const eventstore::KvStore& views, std::string_view te, std::string_view id,
                                 std::string_view operation, std::string_view subject_id, std::string_view purpose) {
  SVC_ASSIGN_OR_RETURN(auto row, ReadRow(views, ArV::Abs(ArV::Request(te, id))));
  if (!row.has_value()) return core::NotFound("no such ARCO request", "ARCO_REQUEST_NOT_FOUND");
  const std::string status = core::StringOr(*row, "status"), right = core::StringOr(*row, "right");
  if (status != "received" && status != "accepted") {
    return core::FailedPrecondition("the ARCO request is " + status + ": only a received or accepted request is fulfilled",
                                    "ARCO_INVALID_TRANSITION");
  }
  if (!commands::persons::FulfilsRight(right, operation)) {
    return core::FailedPrecondition("the ARCO request is of " + right + ", which " + std::string(operation) +
                                        " does not fulfil",
                                    "ARCO_INVALID_TRANSITION");
  }
  const core::Json subject = row->value("subject", core::Json::object());
  const std::string type = core::StringOr(subject, "type");
  const std::string of = type == "company_member" ? core::StringOr(subject, "memberId")
                         : type == "ubo_node"     ? core::StringOr(subject, "uboNodeId")
                                                  : core::StringOr(subject, "personId");
  if (of != subject_id) {
    return core::FailedPrecondition("the ARCO request is of another subject", "CONFLICT");
  }
  if (!purpose.empty()) {
    const core::Json purposes = row->value("purposes", core::Json::array());
    if (std::find(purposes.begin(), purposes.end(), std::string(purpose)) == purposes.end()) {
      return core::FailedPrecondition("the ARCO request objects to other purposes than " + std::string(purpose), "CONFLICT");
    }
  }
  return core::Status::Ok();
}

core::Result<core::Json> ArcoCounts(const eventstore::KvStore& views, std::string_view te, int64_t now_micros) {
  SVC_ASSIGN_OR_RETURN(auto rows, ScanRows(views, ArV::Abs(ArV::Requests(te))));
  core::Json by_status = core::Json::object(), by_right = core::Json::object();
  for (const auto& s : commands::persons::kArcoStatuses) by_status[s] = 0;
  for (const auto& r : commands::persons::kArcoRights) by_right[r] = 0;
  int64_t open = 0, overdue = 0;
  for (const auto& row : rows) {
    const std::string status = core::StringOr(row, "status");
    if (by_status.contains(status)) by_status[status] = by_status[status].get<int64_t>() + 1;
    const std::string right = core::StringOr(row, "right");
    if (by_right.contains(right)) by_right[right] = by_right[right].get<int64_t>() + 1;
    open += status == "received" || status == "awaiting_information" || status == "accepted" ? 1 : 0;
    overdue += ArcoOverdue(row, now_micros) ? 1 : 0;
  }
  return core::Json{{"total", static_cast<int64_t>(rows.size())},
                    {"open", open},
                    {"overdue", overdue},
                    {"byStatus", by_status},
                    {"byRight", by_right}};
}

}  // namespace svc::projections
