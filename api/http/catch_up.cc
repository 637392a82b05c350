#include "api/http/catch_up.h"

#include <vector>

#include "api/http/write_path.h"
#include "eventstore/event_log.h"
#include "projections/projector.h"

namespace svc::api {

core::Status CatchUpTenant(Runtime& rt, std::string_view tenant, std::chrono::milliseconds limit) {
  const uint32_t p = rt.log().PartitionFor(tenant);
  SVC_ASSIGN_OR_RETURN(std::vector<uint64_t> ends, rt.log().EndOffsets());
  if (p >= ends.size() || ends[p] == 0) return core::Status::Ok();
  if (!rt.projections().WaitApplied({{p, ends[p] - 1}}, limit)) {
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
