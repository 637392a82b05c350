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

namespace svc::api {
struct PublicApiOptions;
}

namespace svc::api::sessions_internal {

std::string Seal(Runtime& rt, std::string_view plaintext, std::string_view aad);
std::string PublicId(const std::string& id);
core::Result<std::string> RenderCreated(Runtime& rt, std::string created_row,
                                        const std::string& session_id,
                                        const PublicApiOptions& options);

}  // namespace svc::api::sessions_internal
