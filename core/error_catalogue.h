#pragma once
// The spec's error catalogue: every code an API caller can program against, with its HTTP
// status. Append-only: a published code is never renamed or removed (tests/core pins it with a
// golden file).

#include <span>
#include <string_view>

namespace svc::core {

struct ErrorCodeInfo {
  std::string_view code;
  int http_status;
  std::string_view title;
  bool reserved;               // exists, but no endpoint emits it today
  std::string_view remedy;     // the spec's note, if any
};

std::span<const ErrorCodeInfo> ErrorCatalogue();
// nullptr when `code` is not in the catalogue.
const ErrorCodeInfo* FindErrorCode(std::string_view code);

}  // namespace svc::core
