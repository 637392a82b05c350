#pragma once
// The write path every area's routes share: the command context of a call, and "run this
// command, wait (without holding a thread) until the read models have it, then render" —
// read-your-writes — plus reading one JSON row of a read model.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/http/http.h"
#include "api/http/problem.h"
#include "api/http/route.h"
#include "api/http/runtime.h"
#include "commands/command.h"
#include "core/executor.h"
#include "core/ids.h"

namespace svc::api {

// How long a write waits for the read models before it answers anyway.
inline constexpr std::chrono::milliseconds kReadYourWrites{5000};

// The request's path and id only: what a problem rendered later (after a write) needs.
HttpRequest SlimRequest(const HttpRequest& req);
// One row of the read models (column family views), parsed; nullopt when absent.
core::Result<std::optional<core::Json>> ReadView(Runtime& rt, const std::string& key);
// Every row under a prefix of the read models, parsed, in key order.
core::Result<std::vector<core::Json>> ScanView(Runtime& rt, const std::string& prefix);
// The read-model row a path parameter names: `param` must be an id of `kind` (else 400 INVALID_ID)
// whose row, at `key(id)`, exists (else `missing_code` with `missing_detail`); nullopt once
// answered. (Extracted at the third area: review cases, companies, screening hits.)
std::optional<core::Json> PathRow(Runtime& rt, ApiCall& call, const Respond& respond, const std::string& param,
                                  core::IdKind kind, const std::function<std::string(const std::string& id)>& key,
                                  const std::string& missing_code, const std::string& missing_detail);
// Time, ids, actor, environment, request and idempotency metadata of an API call.
commands::CommandContext Context(Runtime& rt, const ApiCall& call);
// Runs `cmd`, waits until the read models `reads` (projector names, e.g. SessionsView::kName)
// have applied its events (or kReadYourWrites), then answers with `render(outcome)`, which reads
// only those; an idempotent replay gets `Idempotent-Replayed: true`. `render` runs on the
// projections' waiter thread. A write never waits for a projector its answer does not read.
void RunThenRender(Runtime& rt, const HttpRequest& req, commands::Command cmd,
                   std::vector<std::string_view> reads,
                   std::function<HttpResponse(const commands::CommandOutcome&)> render,
                   Respond respond);

// The second half of RunThenRender, for a use case that ran its commands itself: its outcome
// (or its problem), rendered once the read models `reads` have the outcome's events.
void RenderWhenApplied(Runtime& rt, const HttpRequest& req, core::Result<commands::CommandOutcome> outcome,
                       std::vector<std::string_view> reads,
                       std::function<HttpResponse(const commands::CommandOutcome&)> render, Respond respond);
// Reads that must see every write answered before the request arrived (the access log, the
// compliance report): `serve` runs once the read models `reads` have applied the tenant's
// partition of the log as it stood then (or after kReadYourWrites, with what there is), on the
// projections' waiter thread. (Extracted when the second area needed it: audit, compliance.)
void WhenCaughtUp(Runtime& rt, ApiCall& call, std::vector<std::string_view> reads, Respond respond,
                  std::function<void(ApiCall&, Respond)> serve);

// Runs `serve` on `pool` (CPU-heavy reads, such as a walk of the whole access log, leave the
// projections' waiter thread free), with copies of the call that outlive the caller's; inline
// when there is no pool.
void OnWorkPool(core::ThreadPool* pool, ApiCall& call, Respond respond, std::function<void(ApiCall&, Respond)> serve);

}  // namespace svc::api
