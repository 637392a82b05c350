#include "api/http/catch_up.h"

#include <algorithm>
#include <vector>

#include "api/http/write_path.h"
#include "eventstore/event_log.h"
#include "projections/projector.h"

namespace svc::api {

core::Status CatchUpTenant(Runtime& rt, std::string_view tenant, std::chrono::milliseconds limit) {
  const uint32_t p = rt.log().PartitionFor(tenant);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  // The log's end within the same limit: a node cut from its brokers cannot know what it misses,
  // so its miss is no answer either (503, not a stale 404).
  auto end = rt.log().EndOffset(p, limit);
  if (!end.ok()) return core::Unavailable("this node cannot reach the event log to confirm the miss; try again");
  if (*end == 0) return core::Status::Ok();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (!rt.projections().WaitApplied({{p, *end - 1}}, std::max(left, std::chrono::milliseconds(0)))) {
    return core::Unavailable("this node's read models are behind the log; try again");
  }
  return core::Status::Ok();
}

core::Status CatchUpAll(Runtime& rt, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<eventstore::LogPosition> last;
  for (uint32_t p = 0; p < rt.log().PartitionCount(); ++p) {
    auto end = rt.log().EndOffset(p, limit);
    if (!end.ok()) return core::Unavailable("this node cannot reach the event log to confirm the miss; try again");
    if (*end > 0) last.push_back({p, *end - 1});
  }
  if (last.empty()) return core::Status::Ok();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (!rt.projections().WaitApplied(std::move(last), std::max(left, std::chrono::milliseconds(0)))) {
    return core::Unavailable("this node's read models are behind the log; try again");
  }
  return core::Status::Ok();
}

core::Result<std::optional<core::Json>> ReadViewCaughtUp(Runtime& rt, std::string_view tenant, const std::string& key) {
  SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, key));
  if (row.has_value()) return row;
  SVC_RETURN_IF_ERROR(CatchUpTenant(rt, tenant));
  return ReadView(rt, key);
}

core::Result<std::optional<std::string>> ReadRawCaughtUp(Runtime& rt, std::string_view tenant, const std::string& key) {
  const int cf = rt.store().Cf(projections::kViewsCf);
  SVC_ASSIGN_OR_RETURN(auto row, rt.store().Get(cf, key));
  if (row.has_value()) return row;
  SVC_RETURN_IF_ERROR(CatchUpTenant(rt, tenant));
  return rt.store().Get(cf, key);
}

}  // namespace svc::api
