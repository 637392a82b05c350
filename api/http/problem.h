#pragma once
// Every error leaves through here: a Status (with the catalogue code it carries, or the generic
// one of its kind) or a list of field errors becomes RFC 9457 problem+json (http.h's Problem).

#include <vector>

#include "api/http/http.h"
#include "api/http/json_input.h"
#include "core/status.h"

namespace svc::api {

// Maps a Status to problem+json: its api code, else the generic code of its kind; its
// extensions as members; an internal error's details are logged, never returned.
HttpResponse StatusToProblem(const HttpRequest& req, const core::Status& status);

// 422 VALIDATION_ERROR with every field error, or 400 INVALID_ID when any error is a malformed
// identifier (convention 3), listing those.
HttpResponse ValidationProblem(const HttpRequest& req, const std::vector<FieldError>& errors);

}  // namespace svc::api
