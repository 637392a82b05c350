#pragma once
// Helpers of the verification-session handlers (sessions_api.cc, verification_api.cc).

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "api/http/route.h"
#include "api/http/json_input.h"
#include "api/http/problem.h"
#include "api/http/runtime.h"
#include "api/http/write_path.h"
#include "commands/command.h"
#include "commands/embedded/flow_graph.h"
#include "api/http/sessions_port.h"
#include "commands/verification/session_events.h"
#include "pipeline/verification/policy.h"

namespace svc::api {
struct ApiContext;
}

namespace svc::api::sessions_internal {

std::string Seal(Runtime& rt, std::string_view plaintext, std::string_view aad);
std::string PublicId(const std::string& id);
core::Result<std::string> RenderCreated(Runtime& rt, std::string created_row,
                                        const std::string& session_id, const std::string& environment,
                                        const ApiContext& options);

}  // namespace svc::api::sessions_internal

namespace svc::api {

// A session create body checked and turned into its creation event (sessions_api.cc): what the
// API channel's create and, through SessionsPort (api/http/sessions_port.h), the embedded
// channel's creates share. On a refusal it has answered `respond` with the problem and returns
// nullopt.
std::optional<PreparedSession> PrepareSession(Runtime& rt, const ApiContext& options, ApiCall& call,
                                              const core::Json& body, const Respond& respond);

// The flow a new session walks (session_flow.cc, docs/embedded.md#flows): named by `flow_id`,
// else by `flow_key`, else the application's default flow; none when none of them is set (unless
// the key or the application is restricted to flows: FLOW_REQUIRED). Refusals: FLOW_NOT_FOUND,
// FLOW_NOT_PUBLISHABLE (archived, or never published), FLOW_NOT_ALLOWED_FOR_APPLICATION,
// FLOW_NOT_ALLOWED_FOR_KEY (two independent guards), CHECK_NOT_ENABLED_FOR_FLOW (the request
// turns on a check the flow has off; extension `check`). The session's checks and policy are the
// flow's, with the request's turning checks off and overriding thresholds.
struct ResolvedFlow {
  bool found = false;
  std::string flow_id;
  std::string key;
  int64_t version = 0;
  commands::embedded::FlowSessionSettings settings;
  core::Json checks;
  core::Json policy;
};
// What the evidence, report and certificate are built from (verification_api.cc): the session
// of the caller's tenant and environment (SESSION_NOT_FOUND otherwise).
core::Result<pipeline::verification::ReportInputs> LoadReportInputs(Runtime& rt, const ApiCall& call,
                                                                    const std::string& id);

core::Result<ResolvedFlow> ResolveFlow(Runtime& rt, const AuthContext& auth, const core::Json& application_row,
                                       const std::string& flow_id, const std::string& flow_key,
                                       const core::Json* request_checks, const core::Json* request_policy);

}  // namespace svc::api
