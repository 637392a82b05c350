#include "core/status.h"

namespace svc::core {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kAlreadyExists: return "ALREADY_EXISTS";
    case StatusCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case StatusCode::kAborted: return "ABORTED";
    case StatusCode::kUnauthenticated: return "UNAUTHENTICATED";
    case StatusCode::kPermissionDenied: return "PERMISSION_DENIED";
    case StatusCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case StatusCode::kUnavailable: return "UNAVAILABLE";
    case StatusCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case StatusCode::kDataLoss: return "DATA_LOSS";
    case StatusCode::kInternal: return "INTERNAL";
    case StatusCode::kCancelled: return "CANCELLED";
  }
  return "UNKNOWN";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code_));
  if (!api_code_.empty()) {
    out += " [";
    out += api_code_;
    out += "]";
  }
  out += ": ";
  out += message_;
  return out;
}

#define SVC_DEFINE_BUILDER_(Name, Code)                                   \
  Status Name(std::string message, std::string_view api_code) {           \
    return Status(StatusCode::Code, std::move(message), api_code);        \
  }
SVC_DEFINE_BUILDER_(InvalidArgument, kInvalidArgument)
SVC_DEFINE_BUILDER_(NotFound, kNotFound)
SVC_DEFINE_BUILDER_(AlreadyExists, kAlreadyExists)
SVC_DEFINE_BUILDER_(FailedPrecondition, kFailedPrecondition)
SVC_DEFINE_BUILDER_(Aborted, kAborted)
SVC_DEFINE_BUILDER_(Unauthenticated, kUnauthenticated)
SVC_DEFINE_BUILDER_(PermissionDenied, kPermissionDenied)
SVC_DEFINE_BUILDER_(ResourceExhausted, kResourceExhausted)
SVC_DEFINE_BUILDER_(Unavailable, kUnavailable)
SVC_DEFINE_BUILDER_(DeadlineExceeded, kDeadlineExceeded)
#undef SVC_DEFINE_BUILDER_

Status DataLoss(std::string message) { return Status(StatusCode::kDataLoss, std::move(message)); }
Status Internal(std::string message) {
  return Status(StatusCode::kInternal, std::move(message), "INTERNAL_ERROR");
}
Status Cancelled(std::string message) { return Status(StatusCode::kCancelled, std::move(message)); }

}  // namespace svc::core
