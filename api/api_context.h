#pragma once
// What every /v1 handler knows about its caller, and the description of a route: the one table
// that drives dispatch, scopes, rate-limit families, idempotency rules, the OpenAPI document and
// the scope/isolation tests.

#include <functional>
#include <string>
#include <vector>

#include "api/http.h"

namespace svc::api {

struct AuthContext {
  std::string tenant_id;
  std::string key_id;
  std::string application_id;  // the key's application
  std::string environment;     // "live" | "test": fixed by the key
  std::string key_type;        // "secret" | "publishable"
  std::vector<std::string> scopes;
};

struct ApiCall {
  HttpRequest* request = nullptr;
  AuthContext auth;
  std::string idempotency_key;      // validated; empty when none
  std::string request_fingerprint;  // SHA-256 hex of method, path and body
  std::string correlation_id;       // the caller's X-Request-Id when given, else our request id
};

enum class RateFamily { kRead, kWrite, kReveal };
enum class IdempotencyRule { kNone, kOptional, kRequired };

using ApiHandler = std::function<void(ApiCall&, Respond)>;

struct ApiRoute {
  std::string method;
  std::string path;   // template, e.g. /v1/verification-sessions/{session_id}
  std::string scope;  // required scope
  RateFamily family = RateFamily::kRead;
  IdempotencyRule idempotency = IdempotencyRule::kNone;
  bool versioned = false;        // accepts Service-Version (person endpoints)
  bool has_body = false;         // expects a JSON body
  int success_status = 200;
  std::vector<std::string> error_codes;  // catalogue codes this route can answer with
  std::string summary;
  std::string response_schema;   // OpenAPI component name of the 2xx body
  std::string request_schema;    // OpenAPI component name of the body, if any
  ApiHandler handler;
};

}  // namespace svc::api
