#pragma once
// Reads of the review read model combined with others, for the routes, the console and the CLI.

#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// The answer to a resolution (ReviewResolution): the case's status and its session's as the read
// models have them, with what the case decider answered (`result`: outcome,
// awaitingSecondApproval). Unavailable while the case is not readable.
core::Result<core::Json> ResolutionAnswer(const eventstore::KvStore& views, std::string_view te,
                                          std::string_view case_id, std::string_view session_id,
                                          const core::Json& result);

}  // namespace svc::projections
