#pragma once
// What every /v1 handler knows about its caller, and the description of a route: the one table
// that drives dispatch, scopes, rate-limit families, idempotency rules, the OpenAPI document and
// the scope/isolation tests.

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "api/http/http.h"
#include "core/json.h"

namespace svc::api {

struct AuthContext {
  std::string tenant_id;
  std::string key_id;
  std::string application_id;  // the key's application
  std::string environment;     // "live" | "test": fixed by the key
  std::string key_type;        // "secret" | "publishable" | "client_token" | "user"
  std::vector<std::string> scopes;
  // A reviewer signed in to the console (key_type "user", a reviewer token): the user (usr_…).
  // key_id then holds the same id (rate limits and access logs count per user).
  std::string user_id;
  // The flows the key is restricted to (flow ids; empty: any flow its application allows).
  std::vector<std::string> key_flows;
  // An applicant token (key_type "applicant", from POST /v1/embedded/sessions/init): the one
  // verification session it works on, and its embedded session.
  std::string session_id;
  std::string embedded_session_id;
};

struct ApiCall {
  HttpRequest* request = nullptr;
  AuthContext auth;
  std::string idempotency_key;      // validated; empty when none
  std::string request_fingerprint;  // a keyed MAC of the request's parameters (request_fingerprint.h)
  std::string correlation_id;       // the caller's X-Request-Id when given, else our request id
};

enum class RateFamily { kRead, kWrite, kReveal };
enum class IdempotencyRule { kNone, kOptional, kRequired };

using ApiHandler = std::function<void(ApiCall&, Respond)>;

// A query parameter of a route, for validation messages and the OpenAPI document.
struct QueryParam {
  std::string name;
  core::Json schema = {};  // JSON Schema of the value
  std::string description = {};
};

// The list parameters every cursor list takes (the spec's "LP").
std::vector<QueryParam> PageParams(bool include_total = true);

// Error-code lists of route declarations: the codes an accepted Idempotency-Key can answer with,
// and a concatenation helper.
const std::vector<std::string>& IdempotencyErrors();
std::vector<std::string> Codes(std::initializer_list<std::vector<std::string>> lists);

// One route, declared with designated initialisers in the order below. The OpenAPI document is
// generated from these declarations alone (openapi.cc has no per-route branch).
struct ApiRoute {
  std::string method = {};
  std::string path = {};          // template, e.g. /v1/verification-sessions/{session_id}
  std::string operation_id = {};  // camelCase, unique: createVerificationSession
  std::string tag = {};           // the area, as OpenAPI groups it: "Verification sessions"
  // Left empty in the declaration: filled from the area's operations.md by operation_id
  // (route_docs.h), where the prose of every operation is written.
  std::string summary = {};       // one line
  std::string description = {};   // what a client needs to know beyond the summary (Markdown)
  std::string scope = {};         // required scope
  RateFamily family = RateFamily::kRead;
  IdempotencyRule idempotency = IdempotencyRule::kNone;
  bool versioned = false;  // accepts Service-Version (person endpoints)
  // Also accepts `Authorization: Bearer ctok_…` (a client token, from a browser) in place of an
  // API key: the handler then sees key_type "client_token" and enforces the token's limits; the
  // route answers CORS preflights and carries Access-Control-Allow-Origin: *.
  bool client_token = false;
  // No Authorization: the credential is a signed link in the path (a media link, opened by a
  // browser or an <img>). No scope, no per-key rate; the handler verifies the link itself.
  bool link_credential = false;
  // A link_credential route behind the credential guard (credential_guard.h): its name there, the
  // problem code of a refused credential, and what the request names as the guessed target ("":
  // nothing). Client-token routes are guarded by the middleware, by the token's id.
  struct Guard {
    std::string name;
    std::string refused_code;
    std::function<std::string(const HttpRequest&)> target = {};
  };
  Guard guard = {};
  // Also accepts a reviewer token (`Authorization: Bearer <JWT>` from POST /console/api/sign-in,
  // docs/review.md#signing-in): the handler sees key_type "user" with the user's review scopes;
  // the user must still be an active reviewer of the tenant. A GET may carry it as the
  // `access_token` query parameter instead (a browser's EventSource sends no headers).
  bool reviewer_token = false;
  // Also accepts an applicant token (`Authorization: Bearer atok_…`, docs/embedded.md#credentials),
  // the widget's credential after init: key_type "applicant", bound to one verification session;
  // the route's {session_id} must be that session (SESSION_INVALID otherwise).
  bool applicant_token = false;
  // Called from an integrator's web page (browser embedded create): readable cross-origin
  // (Access-Control-Allow-Origin: *, bearer credentials, no cookies) and answers CORS preflights.
  bool cors = false;
  bool has_body = false;   // expects a JSON body
  std::string request_schema = {};  // OpenAPI component name of the body, if any
  bool body_optional = false;       // the body may be left out (OpenAPI requestBody.required false)
  std::string request_content_type = "application/json";
  std::vector<QueryParam> query = {};
  std::vector<std::string> headers = {};  // extra request headers it reads (Last-Event-ID)
  int success_status = 200;
  std::string response_schema = {};  // OpenAPI component name of the 2xx body
  std::string response_content_type = "application/json";
  std::vector<std::string> error_codes = {};  // catalogue codes this route can answer with
  ApiHandler handler = {};
};

}  // namespace svc::api
