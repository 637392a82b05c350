#pragma once
// Reads of the sessions read model combined for one answer.

#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// The answer to a session's consent (SessionConsentResponse): consentGiven and recordedAt as the
// consent row has them, the session's status; Unavailable while either is not projected.
core::Result<core::Json> ConsentAnswer(const eventstore::KvStore& views, std::string_view te, std::string_view session_id);

// The verification volume of tenant and environment `te` (the compliance report's section), from
// the sessions read model's counters: where every session stands, and the 30 UTC days up to `now`.
core::Result<core::Json> VerificationVolume(const eventstore::KvStore& views, const std::string& te, core::Timestamp now);

}  // namespace svc::projections
