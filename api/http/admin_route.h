#pragma once
// The admin listener's building blocks (a unix socket, authenticated with the service key), used
// by the composition root's tenancy routes and by every area's operator routes (api/http/module.h).

#include <chrono>
#include <functional>
#include <string>

#include "api/http/http.h"
#include "api/http/runtime.h"
#include "commands/command.h"
#include "commands/writer.h"
#include "core/json.h"
#include "core/log.h"

namespace svc::api {

// A route of the admin listener: 401 SERVICE_KEY_REQUIRED unless the request carries the service
// key; then `fn`'s JSON with `ok_status`, or its error as problem+json.
Handler AdminRoute(std::string service_key, std::function<core::Result<core::Json>(HttpRequest&)> fn,
                   int ok_status = 200);

// An admin route's body: a JSON object ({} when empty), else BAD_REQUEST.
core::Result<core::Json> AdminBody(const HttpRequest& req);

// What every operator command shares: its context (now, ids, the operator as actor, a fresh
// request id), and running it with read-your-writes: the answer comes once the read models have
// the change, since an operator's change to keys must hold on the very next request (a revoked
// key refused). It waits longer than a public write does (the answer of a key's creation carries
// its secret, shown once: it is answered even past the wait).
commands::CommandContext AdminContext(Runtime& rt, const eventstore::Actor& actor);
template <class D, class Cmd>
core::Result<commands::CommandOutcome> AdminRun(Runtime& rt, const std::string& tenant_id, const std::string& aggregate_id,
                                                Cmd cmd, const eventstore::Actor& actor) {
  SVC_ASSIGN_OR_RETURN(auto outcome, rt.writer().ExecuteAndWait(commands::MakeCommand<D>(
                                         tenant_id, aggregate_id, std::move(cmd), AdminContext(rt, actor))));
  if (!outcome.positions.empty() && !rt.projections().WaitApplied(outcome.positions, std::chrono::seconds(60))) {
    core::LogWarn("admin change answered before the read models applied it", {{"tenantId", tenant_id}});
  }
  return outcome;
}

}  // namespace svc::api
