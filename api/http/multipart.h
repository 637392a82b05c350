#pragma once
// multipart/form-data (RFC 7578) parsing for uploads. Parts are views into the body.

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace svc::api {

struct MultipartPart {
  std::string name;
  std::string filename;
  bool has_filename = false;
  std::string content_type;  // lower-cased, parameters dropped; "" when absent
  std::string_view body;
};

// The boundary of a `multipart/form-data; boundary=…` content type; kInvalidArgument
// (UNSUPPORTED_MEDIA_TYPE) when the type is another one or has no boundary.
core::Result<std::string> MultipartBoundary(std::string_view content_type);
// The parts of `body`; kInvalidArgument (BAD_REQUEST) when it is malformed.
core::Result<std::vector<MultipartPart>> ParseMultipart(std::string_view boundary,
                                                        std::string_view body);

}  // namespace svc::api
