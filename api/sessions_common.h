#pragma once
// Helpers shared by the verification-session handlers (sessions_api.cc, verification_api.cc).

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "api/api_context.h"
#include "api/json_input.h"
#include "api/runtime.h"
#include "commands/command.h"

namespace svc::api {
struct PublicApiOptions;
}

namespace svc::api::sessions_internal {

inline constexpr std::chrono::milliseconds kReadYourWrites{5000};

std::string ViewsKey(std::string_view rest);
// The request's path and id only: what a problem rendered later (after a write) needs.
HttpRequest SlimRequest(const HttpRequest& req);  // "sessions/<rest>"
core::Result<std::optional<core::Json>> ReadView(Runtime& rt, const std::string& key);
HttpResponse ValidationProblem(const HttpRequest& req, const std::vector<FieldError>& errors);
std::string Seal(Runtime& rt, std::string_view plaintext, std::string_view aad);
std::string PublicId(const std::string& id);
core::Result<std::string> RenderCreated(Runtime& rt, std::string created_row,
                                        const std::string& session_id,
                                        const PublicApiOptions& options);
commands::CommandContext Context(Runtime& rt, const ApiCall& call);
void RunThenRender(Runtime& rt, const HttpRequest& req, commands::Command cmd,
                   std::function<HttpResponse(const commands::CommandOutcome&)> render,
                   Respond respond);

}  // namespace svc::api::sessions_internal
