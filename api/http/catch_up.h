#pragma once
// Read-your-writes across nodes for "not found". A node's read models trail the log by the time it
// takes to apply what other nodes wrote, so a row missing here may be a write another node
// acknowledged a moment ago (a session created through one node of a cluster, its consent sent
// through another). Before a route answers a read-model miss as 404, the node waits until its
// read models hold every event the tenant's partition had when it asked; only then is the miss an
// answer. Misses are rare on purpose-built clients, so the log's end is asked for on misses only.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "api/http/runtime.h"
#include "core/json.h"
#include "core/status.h"

namespace svc::api {

// How long a miss waits for this node's read models before it answers 503 instead.
inline constexpr std::chrono::milliseconds kCatchUpLimit{5000};

// Waits until this node's read models have applied every event `tenant`'s partition held when
// called. Unavailable when they have not within `limit` (the node is behind: the miss is no answer).
core::Status CatchUpTenant(Runtime& rt, std::string_view tenant, std::chrono::milliseconds limit = kCatchUpLimit);
// The same for every partition of the log: for a miss whose tenant is not known yet (an API key
// made on another node a moment ago: its lookup row names the tenant).
core::Status CatchUpAll(Runtime& rt, std::chrono::milliseconds limit = kCatchUpLimit);

// The read-model row at `key` (ReadView); on a miss, CatchUpTenant and a second read.
core::Result<std::optional<core::Json>> ReadViewCaughtUp(Runtime& rt, std::string_view tenant, const std::string& key);
// The same row as stored (the JSON writer's bytes), for routes that serve it as it is.
core::Result<std::optional<std::string>> ReadRawCaughtUp(Runtime& rt, std::string_view tenant, const std::string& key);

}  // namespace svc::api
