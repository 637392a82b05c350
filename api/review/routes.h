#pragma once
// The review area: the human queue of cases the engine could not decide (docs/review.md) — the
// queue and its summary, and the case operations (review_api.cc), and its part of the OpenAPI
// document (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::api::review {

std::vector<ApiRoute> ReviewRoutes(Runtime* rt, const PublicApiOptions& options);
// GET /v1/review/cases/{case_id} and GET /v1/review/media/{media_id}: the audited views (case_detail.cc).
std::vector<ApiRoute> CaseDetailRoutes(Runtime* rt, const PublicApiOptions& options);
OpenApiArea ReviewOpenApi();

}  // namespace svc::api::review
