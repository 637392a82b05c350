#pragma once
// multipart/form-data (RFC 7578) parsing for uploads, as the body arrives: a part's headers, then
// its bytes in pieces, so a file part of any size passes through a window of about 64 KiB.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/http/http.h"
#include "core/status.h"

namespace svc::api {

struct MultipartPart {
  std::string name;
  std::string filename;
  bool has_filename = false;
  std::string content_type;  // lower-cased, parameters dropped; "" when absent
  std::string body;          // ParseMultipart only; MultipartReader hands the body out in pieces
};

// The boundary of a `multipart/form-data; boundary=…` content type; kInvalidArgument
// (UNSUPPORTED_MEDIA_TYPE) when the type is another one or has no boundary.
core::Result<std::string> MultipartBoundary(std::string_view content_type);

// Reads the parts of a body one after the other. Errors are kInvalidArgument (BAD_REQUEST) for a
// malformed body, or the body reader's own (PAYLOAD_TOO_LARGE, UNAVAILABLE).
class MultipartReader {
 public:
  MultipartReader(std::string_view boundary, BodyReader* in);
  // The next part's headers (its body left to ReadBody; what of the current part was not read is
  // skipped); nullopt after the closing boundary.
  core::Result<std::optional<MultipartPart>> NextPart();
  // The current part's next bytes, at most `max`; "" at its end.
  core::Result<std::string> ReadBody(size_t max);
  static constexpr size_t kMaxParts = 16;

 private:
  core::Status Fill();  // reads more of the body into buf_; false eof_ afterwards, or an error
  BodyReader* in_;
  std::string delim_;   // "--" boundary
  std::string marker_;  // CRLF "--" boundary: where a part's body ends
  std::string buf_;
  bool eof_ = false, started_ = false, in_body_ = false, closed_ = false;
  size_t parts_ = 0;
};

// The parts of a body held in memory; kInvalidArgument (BAD_REQUEST) when it is malformed.
core::Result<std::vector<MultipartPart>> ParseMultipart(std::string_view boundary, std::string_view body);

}  // namespace svc::api
