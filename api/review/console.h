#pragma once
// The review console's pages and private endpoints (console.cc), added to the public listener
// beside the /v1 routes.

#include <cstdint>

#include "api/http/http.h"
#include "api/http/runtime.h"

namespace svc::api {
class CredentialGuard;
class SseHub;
}

namespace svc::api::review {

struct ConsoleOptions {
  int64_t token_ttl_seconds = 3600;  // a reviewer token's life (--reviewer-token-ttl-minutes)
  SseHub* hub = nullptr;             // the live queue feed; null: 503
  CredentialGuard* guard = nullptr;  // sign-in attempts (null: unguarded)
};

void AddConsoleRoutes(Router& router, Runtime& rt, ConsoleOptions options);

}  // namespace svc::api::review
