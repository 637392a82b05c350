#pragma once
// The verification progress stream: GET /v1/verification-sessions/{id}/events as Server-Sent
// Events (api/http/sse_hub.h). Entries come from the verification read model's `sse/` rows, in
// log order; each carries `id:` = its log position ("<partition>-<offset>"). The stream ends
// after a final entry (a verdict, expiry, or refused consent).

#include <optional>
#include <string>

#include "api/http/sse_hub.h"
#include "eventstore/envelope.h"

namespace svc::api {

// The progress feed of one session, after `after` (nullopt: from the start).
SseFeed SessionProgressFeed(const std::string& tenant, const std::string& env, const std::string& session,
                            std::optional<eventstore::LogPosition> after);

// True for entry types after which the progress stream ends.
bool IsFinalProgress(const core::Json& entry);

}  // namespace svc::api
