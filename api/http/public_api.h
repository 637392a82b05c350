#pragma once
// The public /v1 API: the route table and the middleware every route goes through, in order:
// request id -> authentication (key -> tenant, environment, scopes) -> scope -> rate limit ->
// Service-Version -> Idempotency-Key -> content type -> handler. Every error leaves as RFC 9457
// problem+json with the catalogue's code.

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "api/http/credential_guard.h"
#include "api/http/route.h"
#include "api/http/http.h"
#include "api/http/rate_limit.h"
#include "api/http/runtime.h"
#include "core/executor.h"
#include "pipeline/verification/engines.h"

namespace svc::api {
struct SessionsPort;
}


namespace svc::api {

class SseHub;

// What every area's routes are given: the edge's limits and guards, and the services one area
// runs and another uses (a port: an area never includes another, scripts/layers). Each area's
// own dependencies are its own options struct deriving from this one (api/<area>/routes.h), filled
// by its module (api/<area>/module.cc); nothing here names an area's managers.
struct ApiContext {
  ApiLimits limits;
  // Routes whose credential is no API key (null: unguarded; tools that build routes only).
  CredentialGuard* credential_guard = nullptr;
  std::string public_base_url = "http://127.0.0.1:8080";  // hosted links, problem `type` links
  // CPU work off the I/O threads (null: run inline; tools that build routes only).
  core::ThreadPool* work_pool = nullptr;
  // Progress streams (sessions' events, the console's live queue; null: 503).
  SseHub* sse_hub = nullptr;
  // The face engine this server runs (the sessions module's; persons' reauth compares with it;
  // null: analysis answers status=error and reauth 503).
  pipeline::verification::VerificationEngine* engine = nullptr;
  // The sessions area's part the embedded channel uses (api/http/sessions_port.h; null: the
  // embedded creates and verify answer 503).
  const SessionsPort* sessions = nullptr;
  // A time-stamping authority is configured (--tsa-url, the audit module): certificates and
  // published checkpoints show their trusted timestamps, `pending` until obtained.
  bool evidence_timestamps = false;
  // The webhooks area's --webhooks-allow-private-urls (development and tests only): a session's
  // callbackUrl may then be http and name any address, as an endpoint's URL may.
  bool private_urls_allowed = false;
};

// Authentication of `Authorization: Bearer <key>` against the tenancy read model.
core::Result<AuthContext> Authenticate(Runtime& rt, const HttpRequest& req);

// Authentication of `Authorization: Bearer ctok_<id>.<secret>` (a client token): which tenant and
// environment the token belongs to. Its secret, expiry and single use are checked when it is
// spent (commands/persons/client_token.h).
core::Result<AuthContext> AuthenticateClientToken(Runtime& rt, const HttpRequest& req);

// Authentication of a reviewer token (a JWT from POST /console/api/sign-in): its signature and
// expiry, then the tenant membership check — the user exists in the token's tenant, is not
// disabled, and holds a reviewer role. Scopes: review:read, review:write, verification:read.
core::Result<AuthContext> AuthenticateReviewer(Runtime& rt, std::string_view token);
// Whether a user row (TenancyView::User) is an enabled user with a reviewer role (reviewer or
// supervisor): the rule of the sign-in, of every reviewer token's use and of reassignment.
bool ActiveReviewer(const core::Json& user_row);
// The scopes a reviewer token carries.
const std::vector<std::string>& ReviewerScopes();
// The bearer credential, or "".
std::string BearerOf(const HttpRequest& req);

// Caches successful authentications by key hash. An entry is valid only while the tenancy read
// model's key generation is unchanged, so a revocation is seen on the next request.
class AuthCache {
 public:
  core::Result<AuthContext> Authenticate(Runtime& rt, const HttpRequest& req);

 private:
  struct Entry {
    AuthContext auth;
    uint64_t generation;
  };
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

class PublicApi {
 public:
  // `routes`: the route table (api/server/routes.h).
  PublicApi(Runtime& rt, ApiContext options, std::vector<ApiRoute> routes);
  // Adds the routes, behind the middleware, and GET /v1/openapi.json serving `openapi_document`.
  void Register(Router& router, const core::Json& openapi_document);
  // Puts one route behind the same middleware (used by tests for routes not yet in the table,
  // e.g. a Service-Version route before the person endpoints exist). `route` must outlive router.
  void Wrap(Router& router, const ApiRoute& route);
  const std::vector<ApiRoute>& routes() const { return routes_; }
  const ApiContext& options() const { return options_; }

 private:
  Runtime& rt_;
  ApiContext options_;
  std::unique_ptr<RateLimiter> limiter_;
  AuthCache auth_cache_;
  std::vector<ApiRoute> routes_;
};

// Accepted values of the Service-Version header (person endpoints) and the default.
inline constexpr std::string_view kServiceVersions[] = {"2026-01-01"};
inline constexpr std::string_view kDefaultServiceVersion = "2026-01-01";


}  // namespace svc::api
