#pragma once
// Reads of the e.firma read model (projections/efirma_view.h) for one answer.

#include <string>
#include <string_view>

#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// The challenge id of the session's latest recorded e.firma check ("" when none). A submit names
// it, so that a check answered since the last submission counts as new input (the answer route
// waits for this read model before it answers: the applicant's next call sees it).
core::Result<std::string> LatestEfirmaCheckId(const eventstore::KvStore& views, std::string_view te,
                                              std::string_view session_id);

}  // namespace svc::projections
