#pragma once
// The review area: the human queue of cases the engine could not decide (docs/review.md) — the
// queue and its summary, and the case operations (review_api.cc), and its part of the OpenAPI
// document (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"

namespace svc::pipeline::review {
class OutcomeWriter;
}

namespace svc::api {
struct Module;
}

namespace svc::api::review {

// The area as a module (module.cc): its decider, projector, routes, console, flags and outcome writer.
const Module& ReviewModule();

// What the area's routes are given besides the shared context (filled by its module).
struct ReviewOptions : ApiContext {
  // How long a reviewer token from the console's sign-in lasts.
  int64_t reviewer_token_ttl_seconds = 3600;
  // The one writer of a final resolution's move to its session (null: it happens when the outcome
  // writer's loop gets to it).
  pipeline::review::OutcomeWriter* review_outcomes = nullptr;
};

std::vector<ApiRoute> ReviewRoutes(Runtime* r, const ReviewOptions& options);
// GET /v1/review/cases/{case_id} and GET /v1/review/media/{media_id}: the audited views (case_detail.cc).
std::vector<ApiRoute> CaseDetailRoutes(Runtime* r, const ReviewOptions& options);
OpenApiArea ReviewOpenApi();

}  // namespace svc::api::review
