#pragma once
// A stage result's personal details (what the document said, the selfie's embedding, …) are kept
// sealed under the session's data key, with associated data naming the tenant, environment,
// session, submission and stage: sealed by the verification pipeline, opened by it (the decision
// reads the document's), by the vault's verified-data writer and by face re-authentication.

#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"

namespace svc::pipeline::verification {

struct StageRef {
  std::string tenant, environment, session, tracking, stage;
};

// base64 of the sealed JSON of `details`.
std::string SealStageDetails(std::string_view session_key, const StageRef& ref, const core::Json& details);
// DataLoss when `sealed` does not open as `ref`'s details under `session_key`.
core::Result<core::Json> OpenStageDetails(std::string_view session_key, const StageRef& ref, std::string_view sealed);

}  // namespace svc::pipeline::verification
