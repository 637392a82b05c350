#pragma once
// Reads of the sessions read model combined for one answer.

#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// The answer to a session's consent (SessionConsentResponse): consentGiven and recordedAt as the
// consent row has them, the session's status; Unavailable while either is not projected.
core::Result<core::Json> ConsentAnswer(const eventstore::KvStore& views, std::string_view te, std::string_view session_id);

}  // namespace svc::projections
