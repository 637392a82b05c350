#pragma once
// An answer whose body is produced piece by piece off the I/O threads: a capture opened chunk by
// chunk (reveal.h) or a bulk export's dump read from the blob store (persons). Extracted at the
// second user, which would otherwise have copied the capture's stream whole.

#include <functional>
#include <memory>
#include <string>

#include "api/http/http.h"
#include "core/status.h"
#include "core/executor.h"

namespace svc::api {

// `next` gives the next piece, "" at the end, or an error: the answer is then cut off without
// HTTP's last chunk, so the client sees it incomplete, never short. Each call runs on `pool`
// (inline when null), one at a time.
std::shared_ptr<ResponseStream> PieceStream(std::function<core::Result<std::string>()> next, core::ThreadPool* pool);

}  // namespace svc::api
