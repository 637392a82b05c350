#pragma once
// Rebuilding read models from the log (`svc replay`), and proving the rebuild is byte-identical
// to the live read model (`svc replay --verify`).

#include <string>
#include <vector>

#include "api/http/runtime.h"
#include "core/json.h"

namespace svc::api {

// Drops and rebuilds the named projectors (all when `names` is empty).
core::Result<core::Json> ReplayProjectors(Runtime& rt, const std::vector<std::string>& names);

// Rebuilds every projector into a scratch store beside the data directory and compares each
// read model byte for byte with the live one. {"identical": bool, "projectors": [...]}.
core::Result<core::Json> VerifyReplay(Runtime& rt, const std::vector<std::string>& names);

}  // namespace svc::api
