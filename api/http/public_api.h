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
#include "pipeline/net/outbound_client.h"
#include "api/http/http.h"
#include "api/http/rate_limit.h"
#include "api/http/runtime.h"
#include "core/executor.h"
#include "pipeline/webhooks/catalogue.h"
#include "pipeline/verification/engines.h"

namespace svc::api {
struct SessionsPort;
}

namespace svc::pipeline::retention {
class Sweeper;
}
namespace svc::pipeline::persons {
class Purger;
class Consolidator;
class BulkExporter;
}

namespace svc::pipeline::kyb {
class CompanyVerifier;
class ListRegistry;
}
namespace svc::pipeline::review {
class OutcomeWriter;
}

namespace svc::api {

class SseHub;

struct PublicApiOptions {
  ApiLimits limits;
  // Routes whose credential is no API key (null: unguarded; tools that build routes only).
  CredentialGuard* credential_guard = nullptr;
  std::string public_base_url = "http://127.0.0.1:8080";  // hosted links, problem `type` links
  // Capture analysis (analyze=true) and upload work; null engines answer status=error.
  pipeline::verification::VerificationEngine* engine = nullptr;
  pipeline::verification::VerificationEngine* sandbox_engine = nullptr;
  core::ThreadPool* work_pool = nullptr;
  size_t max_uploads_in_flight = 32;  // beyond it: 503 ADMISSION_FULL
  std::chrono::seconds sse_heartbeat{15};
  SseHub* sse_hub = nullptr;  // progress streams; null: 503
  // Webhooks. Development and tests only: allow http and private/loopback receivers.
  bool webhooks_allow_private_urls = false;
  pipeline::net::SendOptions webhook_send;  // the test operation's client settings (as the dispatcher's)
  pipeline::webhooks::DeliveryPolicy webhook_policy;
  // Persons: persons revealed per tenant, environment and UTC day (decrypt, batch decrypt, an
  // expanded read, client-token use, integrity, export, reauth); beyond it 429
  // PII_DECRYPT_CAP_REACHED until the next UTC midnight.
  int64_t reveal_budget_per_day = 10000;
  // Compliance: where the data is kept and who processes it, from the operator's compliance file
  // (--compliance-file, docs/compliance.md): {"datacenters": [...], "subprocessors": [...]}.
  core::Json compliance_config = {{"datacenters", core::Json::array()}, {"subprocessors", core::Json::array()}};
  // Retention: the policies in force and what the sweeper's last run did (reports, limits); null:
  // no sweeper (tools that build routes without serving).
  const pipeline::retention::Sweeper* retention = nullptr;
  // Forget: how long `mode: block` keeps the data before the purge, and the purger to wake for
  // `mode: purge` (null: the purge waits for the purger's timer).
  int64_t forget_grace_seconds = 30 * 86400;
  pipeline::persons::Purger* purger = nullptr;
  // Consolidation: the process manager a request wakes (null: it wakes on its own).
  pipeline::persons::Consolidator* consolidator = nullptr;
  // Bulk export: the process manager a request wakes (null: it wakes on its own), and how long a
  // written dump stays downloadable.
  pipeline::persons::BulkExporter* exporter = nullptr;
  int64_t export_ttl_seconds = 86400;
  // Review: how long a reviewer token from the console's sign-in lasts.
  int64_t reviewer_token_ttl_seconds = 3600;
  // Review: the one writer of a final resolution's move to its session (null: it happens when the
  // outcome writer's loop gets to it).
  pipeline::review::OutcomeWriter* review_outcomes = nullptr;
  // Audit: how often a signed checkpoint of each access log that grew is published.
  int64_t audit_checkpoint_interval_seconds = 60;
  // KYB: the company verifier (null: verify answers `verifying` and the run waits for a server
  // that runs one) and the screening lists in force (null: screenings see no list).
  pipeline::kyb::CompanyVerifier* kyb_verifier = nullptr;
  pipeline::kyb::ListRegistry* aml_lists = nullptr;
  std::chrono::milliseconds kyb_verify_wait{10000};
  // The sessions area's part the embedded channel uses (api/http/sessions_port.h; null: the
  // embedded creates and verify answer 503).
  const SessionsPort* sessions = nullptr;
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
  PublicApi(Runtime& rt, PublicApiOptions options, std::vector<ApiRoute> routes);
  // Adds the routes, behind the middleware, and GET /v1/openapi.json serving `openapi_document`.
  void Register(Router& router, const core::Json& openapi_document);
  // Puts one route behind the same middleware (used by tests for routes not yet in the table,
  // e.g. a Service-Version route before the person endpoints exist). `route` must outlive router.
  void Wrap(Router& router, const ApiRoute& route);
  const std::vector<ApiRoute>& routes() const { return routes_; }
  const PublicApiOptions& options() const { return options_; }

 private:
  Runtime& rt_;
  PublicApiOptions options_;
  std::unique_ptr<RateLimiter> limiter_;
  AuthCache auth_cache_;
  std::vector<ApiRoute> routes_;
};

// Accepted values of the Service-Version header (person endpoints) and the default.
inline constexpr std::string_view kServiceVersions[] = {"2026-01-01"};
inline constexpr std::string_view kDefaultServiceVersion = "2026-01-01";


}  // namespace svc::api
