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

// Who viewed a review case (the console's panel, docs/review.md#who-viewed): the case's entries of
// the audit chain (its openings, channel review_case, and its captures' views, review_media),
// newest first, at most `limit`, each {id, at, actorType, actorId, actorLabel, actorRole, channel,
// fields}; `total` counts them all. A reviewer is named by the label and role the operator gave
// them; no value of personal data is read.
struct CaseViewers {
  core::Json entries = core::Json::array();
  int64_t total = 0;
  int64_t openings = 0;  // channel review_case
};
core::Result<CaseViewers> CaseViews(const eventstore::KvStore& views, std::string_view tenant, std::string_view te,
                                    std::string_view case_id, size_t limit);

// The team's workload (GET /v1/review/team, supervisors): every user of the tenant with a
// reviewer role, and every API key that worked cases, with their counters (review_view.h,
// rstats/) and the mean decision time; members sorted by what they hold, then by label.
core::Result<core::Json> TeamWorkload(const eventstore::KvStore& views, std::string_view tenant, std::string_view te);

}  // namespace svc::projections
