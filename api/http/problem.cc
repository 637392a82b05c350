#include "api/http/problem.h"

#include <algorithm>

#include "core/log.h"

namespace svc::api {

HttpResponse StatusToProblem(const HttpRequest& req, const core::Status& st) {
  std::string_view code = st.api_code();
  if (code.empty()) {
    switch (st.code()) {
      case core::StatusCode::kInvalidArgument: code = "BAD_REQUEST"; break;
      case core::StatusCode::kNotFound: code = "RESOURCE_NOT_FOUND"; break;
      case core::StatusCode::kAlreadyExists:
      case core::StatusCode::kAborted:
      case core::StatusCode::kFailedPrecondition: code = "CONFLICT"; break;
      case core::StatusCode::kUnauthenticated: code = "AUTHENTICATION_REQUIRED"; break;
      case core::StatusCode::kPermissionDenied: code = "PERMISSION_DENIED"; break;
      case core::StatusCode::kResourceExhausted: code = "RATE_LIMITED"; break;
      case core::StatusCode::kUnavailable:
      case core::StatusCode::kDeadlineExceeded: code = "SERVICE_UNAVAILABLE"; break;
      default: code = "INTERNAL_ERROR"; break;
    }
  }
  core::Json ext = core::Json::object();
  for (const auto& [k, v] : st.extensions()) {
    bool number = !v.empty() && v.size() < 18 &&
                  std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (number) ext[k] = std::stoll(v);
    else ext[k] = v;
  }
  for (const auto& [k, v] : st.json_extensions()) {
    core::Json parsed = core::ParseJsonOrDiscarded(v);
    if (!parsed.is_discarded()) ext[k] = std::move(parsed);
  }
  // Internal details are logged, not returned.
  if (code == "INTERNAL_ERROR") {
    core::LogError("request failed", {{"requestId", req.request_id}, {"error", st.ToString()}});
  }
  std::string detail = code == "INTERNAL_ERROR" ? "an internal error occurred" : st.message();
  return Problem(req, code, detail, ext);
}

HttpResponse ValidationProblem(const HttpRequest& req, const std::vector<FieldError>& errors) {
  // A malformed identifier is a request-shape error (400 INVALID_ID, convention 3), reported
  // before field validation, with every offending field.
  std::vector<FieldError> ids;
  for (const auto& e : errors) {
    if (e.code == "invalid_id") ids.push_back(e);
  }
  if (!ids.empty()) {
    return Problem(req, "INVALID_ID",
                   ids.size() == 1 ? ids[0].detail : "the request has malformed identifiers",
                   {{"errors", ErrorsJson(ids)}});
  }
  return Problem(req, "VALIDATION_ERROR", "the request has invalid fields",
                 {{"errors", ErrorsJson(errors)}});
}

}  // namespace svc::api
