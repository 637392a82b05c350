#include "api/http/public_api.h"

#include "api/http/asyncapi.h"
#include "api/http/catch_up.h"

#include <chrono>

#include "api/http/openapi.h"
#include "api/http/pagination.h"
#include "api/http/problem.h"
#include "api/http/request_fingerprint.h"
#include "commands/tenancy/api_keys.h"
#include "commands/tenancy/scopes.h"
#include "core/crypto.h"
#include "core/jwt.h"
#include "core/log.h"
#include "projections/embedded/embedded_view.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/tenancy_projector.h"

namespace svc::api {

namespace tn = commands::tenancy;
using TV = projections::TenancyView;
using PV = projections::PersonsView;

core::Result<AuthContext> Authenticate(Runtime& rt, const HttpRequest& req) {
  std::string h = req.Header("authorization");
  if (h.empty()) {
    return core::Unauthenticated("send Authorization: Bearer <API key>", "AUTHENTICATION_REQUIRED");
  }
  constexpr std::string_view kBearer = "Bearer ";
  if (h.size() <= kBearer.size() || h.compare(0, kBearer.size(), kBearer) != 0) {
    return core::Unauthenticated("the Authorization header must be Bearer <API key>",
                                 "AUTHENTICATION_REQUIRED");
  }
  std::string key = h.substr(kBearer.size());
  SVC_ASSIGN_OR_RETURN(tn::KeyShape shape, tn::ParseApiKeyShape(key));
  std::string hash = tn::HashApiKey(rt.api_key_lookup_key(), key);
  core::SecureZero(key);
  int cf = rt.store().Cf(projections::kViewsCf);
  auto invalid = [] { return core::Unauthenticated("the API key is not valid", "API_KEY_INVALID"); };
  SVC_ASSIGN_OR_RETURN(auto ref, rt.store().Get(cf, TV::Abs(TV::KeyBySecretHash(hash))));
  if (!ref.has_value()) {
    // A key made on another node a moment ago may not have reached this node's read models yet:
    // caught up with the log first, a miss is a real one (a node that cannot tell answers 503).
    SVC_RETURN_IF_ERROR(CatchUpAll(rt));
    SVC_ASSIGN_OR_RETURN(ref, rt.store().Get(cf, TV::Abs(TV::KeyBySecretHash(hash))));
  }
  if (!ref.has_value()) return invalid();
  core::Json r = core::ParseJsonOrDiscarded(*ref);
  std::string tenant = core::StringOr(r, "tenantId"), key_id = core::StringOr(r, "keyId");
  SVC_ASSIGN_OR_RETURN(auto row, rt.store().Get(cf, TV::Abs(TV::Key(tenant, key_id))));
  if (!row.has_value()) return invalid();
  core::Json k = core::ParseJsonOrDiscarded(*row);
  if (!k.is_object() || !k["revokedAt"].is_null()) return invalid();  // revoked: next request
  if (core::StringOr(k, "environment") != shape.environment ||
      core::StringOr(k, "keyType") != shape.key_type) {
    return invalid();
  }
  SVC_ASSIGN_OR_RETURN(auto app, rt.store().Get(cf, TV::Abs(TV::Application(tenant, core::StringOr(k, "applicationId")))));
  if (app.has_value() && !core::ParseJsonOrDiscarded(*app).value("archivedAt", core::Json()).is_null()) {
    return core::PermissionDenied("the key's application is archived", "APPLICATION_ARCHIVED");
  }
  AuthContext a;
  a.tenant_id = tenant;
  a.key_id = key_id;
  a.application_id = core::StringOr(k, "applicationId");
  a.environment = shape.environment;
  a.key_type = shape.key_type;
  a.scopes = k.value("scopes", std::vector<std::string>{});
  a.key_flows = k.value("flows", std::vector<std::string>{});
  return a;
}

std::string BearerOf(const HttpRequest& req) {
  std::string h = req.Header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (h.size() <= kBearer.size() || h.compare(0, kBearer.size(), kBearer) != 0) return "";
  return h.substr(kBearer.size());
}

core::Result<AuthContext> AuthenticateClientToken(Runtime& rt, const HttpRequest& req) {
  auto invalid = [] {
    return core::Unauthenticated("the client token is not valid (unknown, expired, revoked or already used)",
                                 "CLIENT_TOKEN_INVALID");
  };
  std::string token = BearerOf(req);
  std::string id = token.substr(0, token.find('.'));
  if (!core::ValidateId(core::IdKind::kClientToken, id).ok() || id.size() == token.size()) return invalid();
  int cf = rt.store().Cf(projections::kViewsCf);
  SVC_ASSIGN_OR_RETURN(auto ref, rt.store().Get(cf, PV::Abs(PV::ClientTokenRef(id))));
  if (!ref.has_value()) return invalid();
  core::Json r = core::ParseJsonOrDiscarded(*ref);
  AuthContext a;
  a.tenant_id = core::StringOr(r, "tenantId");
  a.environment = core::StringOr(r, "environment");
  a.application_id = core::StringOr(r, "applicationId");
  a.key_id = id;
  a.key_type = "client_token";
  return a;
}

// An applicant token (docs/embedded.md#credentials): the widget's credential after init, bound to
// one verification session. Looked up by its keyed hash, like an API key.
core::Result<AuthContext> AuthenticateApplicant(Runtime& rt, std::string_view token) {
  auto invalid = [] {
    return core::Unauthenticated("the applicant token is not valid", "SESSION_INVALID");
  };
  if (token.size() < 10 || token.size() > 128) return invalid();
  const std::string hash = tn::HashApiKey(rt.api_key_lookup_key(), token);
  SVC_ASSIGN_OR_RETURN(auto ref, rt.store().Get(rt.store().Cf(projections::kViewsCf),
                                                projections::EmbeddedView::Abs(projections::EmbeddedView::ApplicantToken(hash))));
  if (!ref.has_value()) return invalid();
  core::Json r = core::ParseJsonOrDiscarded(*ref);
  AuthContext a;
  a.tenant_id = core::StringOr(r, "tenantId");
  a.environment = core::StringOr(r, "environment");
  a.session_id = core::StringOr(r, "sessionId");
  a.embedded_session_id = core::StringOr(r, "embeddedSessionId");
  a.key_id = a.embedded_session_id.empty() ? a.session_id : a.embedded_session_id;  // rate limits: per session
  a.key_type = "applicant";
  a.scopes = {"verification:read", "verification:write"};
  return a;
}

bool ActiveReviewer(const core::Json& u) {
  const std::string role = core::StringOr(u, "role");
  return u.is_object() && u.value("disabledAt", core::Json()).is_null() && (role == "reviewer" || role == "supervisor");
}

const std::vector<std::string>& ReviewerScopes() {
  static const std::vector<std::string> kScopes = {"review:read", "review:write", "verification:read"};
  return kScopes;
}

core::Result<AuthContext> AuthenticateReviewer(Runtime& rt, std::string_view token) {
  SVC_ASSIGN_OR_RETURN(core::Json claims, core::JwtVerifyHs256(rt.reviewer_token_key(), token, rt.clock().Now()));
  auto invalid = [] { return core::Unauthenticated("the reviewer token is not valid", "API_KEY_INVALID"); };
  const std::string tenant = core::StringOr(claims, "ten"), user = core::StringOr(claims, "sub"),
                    env = core::StringOr(claims, "env");
  if (core::StringOr(claims, "iss") != "svc" || core::StringOr(claims, "aud") != "review-console" ||
      !core::ValidateId(core::IdKind::kTenant, tenant).ok() || !core::ValidateId(core::IdKind::kUser, user).ok() ||
      (env != "live" && env != "test")) {
    return invalid();
  }
  // The tenant membership check, on every request: a disabled user's tokens stop at once.
  SVC_ASSIGN_OR_RETURN(auto row, rt.store().Get(rt.store().Cf(projections::kViewsCf), TV::Abs(TV::User(tenant, user))));
  if (!row.has_value()) return invalid();
  if (!ActiveReviewer(core::ParseJsonOrDiscarded(*row))) {
    return core::Unauthenticated("the user is disabled or no longer a reviewer of the tenant", "API_KEY_INVALID");
  }
  AuthContext a;
  a.tenant_id = tenant;
  a.environment = env;
  a.user_id = user;
  a.key_id = user;
  a.key_type = "user";
  a.scopes = ReviewerScopes();
  return a;
}

core::Result<AuthContext> AuthCache::Authenticate(Runtime& rt, const HttpRequest& req) {
  std::string h = req.Header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (h.size() > kBearer.size() && h.compare(0, kBearer.size(), kBearer) == 0) {
    // The generation is read before the lookup: a change committed meanwhile makes the entry we
    // store stale-marked, never stale-valid.
    uint64_t generation = projections::TenancyProjector::KeyGeneration();
    std::string hash = tn::HashApiKey(rt.api_key_lookup_key(), std::string_view(h).substr(kBearer.size()));
    {
      std::lock_guard lock(mu_);
      auto it = entries_.find(hash);
      if (it != entries_.end() && it->second.generation == generation) return it->second.auth;
    }
    auto a = svc::api::Authenticate(rt, req);
    if (a.ok()) {
      std::lock_guard lock(mu_);
      if (entries_.size() > 100000) entries_.clear();  // bounded; keys are few in practice
      entries_[hash] = Entry{*a, generation};
    }
    return a;
  }
  return svc::api::Authenticate(rt, req);
}

PublicApi::PublicApi(Runtime& rt, ApiContext options, std::vector<ApiRoute> routes)
    : rt_(rt), options_(std::move(options)), routes_(std::move(routes)) {
  limiter_ = std::make_unique<RateLimiter>(options_.limits, rt_.clock());
}

namespace {

// Idempotency-Key: 1..255 printable ASCII characters.
core::Status ValidateIdempotencyKey(const std::string& k) {
  if (k.empty() || k.size() > 255) {
    return core::InvalidArgument("Idempotency-Key must be 1 to 255 characters",
                                 "IDEMPOTENCY_KEY_INVALID");
  }
  for (unsigned char c : k) {
    if (c < 0x20 || c > 0x7e) {
      return core::InvalidArgument("Idempotency-Key must be printable ASCII",
                                   "IDEMPOTENCY_KEY_INVALID");
    }
  }
  return core::Status::Ok();
}

// The caller's X-Request-Id is recorded (logs, event correlation id) when it is sane.
std::string CallerRequestId(const HttpRequest& req) {
  std::string v = req.Header("x-request-id");
  if (v.empty() || v.size() > 128) return "";
  for (unsigned char c : v) {
    if (c < 0x21 || c > 0x7e) return "";
  }
  return v;
}

}  // namespace

void PublicApi::Wrap(Router& router, const ApiRoute& route) {
  auto* self = this;
  router.Add(route.method, route.path, [self, &route](HttpRequest& req, Respond respond) {
    auto started = std::chrono::steady_clock::now();
    std::string caller_id = CallerRequestId(req);
    if (route.client_token || route.cors) {
      // A browser's call: readable cross-origin (the token is the credential; no cookies).
      respond = [inner = std::move(respond)](HttpResponse r) {
        r.headers.emplace_back("Access-Control-Allow-Origin", "*");
        r.headers.emplace_back("Access-Control-Expose-Headers", "Service-Request-Id, Retry-After");
        inner(std::move(r));
      };
    }
    // Access log on the way out: ids, route, status, duration; never bodies or personal data.
    auto logged = [respond, &route, started, rid = req.request_id, caller_id](
                      HttpResponse r, const std::string& tenant, const std::string& key) {
      if (!core::LogEnabled(core::LogLevel::kInfo)) return respond(std::move(r));
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                            started).count();
      core::LogInfo("request", {{"requestId", rid},
                                {"callerRequestId", caller_id},
                                {"method", route.method},
                                {"route", route.path},
                                {"status", r.status},
                                {"ms", ms},
                                {"tenantId", tenant},
                                {"keyId", key}});
      respond(std::move(r));
    };
    auto fail = [&](const core::Status& st, const std::string& tenant = "",
                    const std::string& key = "") {
      HttpResponse r = StatusToProblem(req, st);
      logged(std::move(r), tenant, key);
    };

    if (route.link_credential) {
      ApiCall call;
      call.request = &req;
      call.correlation_id = caller_id.empty() ? req.request_id : caller_id;
      Respond out = [logged](HttpResponse r) { logged(std::move(r), "", ""); };
      CredentialGuard* guard = self->options_.credential_guard;
      if (guard == nullptr || route.guard.name.empty()) return route.handler(call, std::move(out));
      const std::string target = route.guard.target ? route.guard.target(req) : std::string();
      return guard->Run(route.guard.name, route.guard.refused_code, req, target, std::move(out),
                        [&route, &call](Respond r) { route.handler(call, std::move(r)); });
    }
    std::string bearer = BearerOf(req);
    // The widget's EventSource sends no headers: its applicant token may come as access_token.
    if (bearer.empty() && route.applicant_token && route.method == "GET" && req.Header("authorization").empty()) {
      const auto q = ParseQuery(req.query);
      if (auto it = q.find("access_token"); it != q.end() && it->second.rfind("atok_", 0) == 0) bearer = it->second;
    }
    const bool applicant = bearer.rfind("atok_", 0) == 0;
    if (applicant && !route.applicant_token) {
      return fail(core::Unauthenticated("an applicant token is accepted only by the capture routes of its session",
                                        "SESSION_INVALID"));
    }
    const bool token = bearer.rfind("ctok_", 0) == 0;
    if (token && !route.client_token) {
      return fail(core::Unauthenticated("a client token is accepted only by POST /v1/persons/{person_id}/decrypt",
                                        "CLIENT_TOKEN_INVALID"));
    }
    // A reviewer token: in the header, or (a GET from a browser's EventSource) in the query.
    std::string reviewer = core::LooksLikeJwt(bearer) ? bearer : "";
    if (reviewer.empty() && !applicant && route.reviewer_token && route.method == "GET" &&
        req.Header("authorization").empty()) {
      const auto q = ParseQuery(req.query);
      if (auto it = q.find("access_token"); it != q.end()) reviewer = it->second;
    }
    if (!reviewer.empty() && !route.reviewer_token) {
      return fail(core::Unauthenticated("a reviewer token is accepted only by the review routes and the verification "
                                        "events stream; use an API key",
                                        "API_KEY_INVALID"));
    }
    // A client token comes from a browser, without an API key: guarded (credential_guard.h); the
    // other bearer credentials by their refusals per source.
    CredentialGuard* guard = self->options_.credential_guard;
    const std::string token_id = token ? bearer.substr(0, std::min<size_t>(bearer.find('.'), 64)) : "";
    const std::string_view kind = applicant ? "applicant_token" : !reviewer.empty() ? "reviewer_token" : "api_key";
    const std::string& credential = reviewer.empty() ? bearer : reviewer;
    if (guard != nullptr && token) {
      if (auto throttled = guard->Admit("client_token", req, token_id)) return logged(std::move(*throttled), "", "");
    } else if (guard != nullptr && !credential.empty()) {
      if (auto throttled = guard->AdmitBearer(kind, req, credential)) return logged(std::move(*throttled), "", "");
    }
    auto auth = applicant         ? AuthenticateApplicant(self->rt_, bearer)
                : !reviewer.empty() ? AuthenticateReviewer(self->rt_, reviewer)
                : token             ? AuthenticateClientToken(self->rt_, req)
                                    : self->auth_cache_.Authenticate(self->rt_, req);
    if (!auth.ok()) {
      if (guard != nullptr && token && auth.status().api_code() == "CLIENT_TOKEN_INVALID") {
        guard->Failed("client_token", req, token_id);
      } else if (guard != nullptr && !token && !credential.empty() && auth.status().code() == core::StatusCode::kUnauthenticated) {
        guard->FailedBearer(kind, req);
      }
      return fail(auth.status());
    }
    if (guard != nullptr && !token && !credential.empty()) guard->Accepted(kind, req, credential);
    const AuthContext& a = *auth;
    if (applicant && req.path_params["session_id"] != a.session_id) {  // its one session only
      return fail(core::Unauthenticated("the applicant token belongs to another session", "SESSION_INVALID"),
                  a.tenant_id, a.key_id);
    }
    if (!token && !tn::ScopesAllow(a.scopes, route.scope)) {
      core::Status st = core::PermissionDenied("this key lacks the scope " + route.scope,
                                               "INSUFFICIENT_SCOPE");
      st.WithExtension("requiredScope", route.scope);
      return fail(st, a.tenant_id, a.key_id);
    }
    if (int64_t wait = self->limiter_->Take(a.key_id, route.family); wait > 0) {
      HttpResponse r = Problem(req, "RATE_LIMITED", "too many requests for this key; retry later");
      r.headers.emplace_back("Retry-After", std::to_string(wait));
      return logged(std::move(r), a.tenant_id, a.key_id);
    }
    if (route.versioned) {
      std::string v = req.Header("service-version");
      bool known = v.empty();
      for (auto accepted : kServiceVersions) known |= v == accepted;
      if (!known) {
        return fail(core::InvalidArgument("unknown Service-Version " + v,
                                          "UNSUPPORTED_API_VERSION"),
                    a.tenant_id, a.key_id);
      }
    }
    ApiCall call;
    call.request = &req;
    call.auth = a;
    call.correlation_id = caller_id.empty() ? req.request_id : caller_id;
    if (route.idempotency != IdempotencyRule::kNone) {
      auto it = req.headers.find("idempotency-key");
      if (it == req.headers.end()) {
        if (route.idempotency == IdempotencyRule::kRequired) {
          return fail(core::InvalidArgument("this operation requires an Idempotency-Key header",
                                            "IDEMPOTENCY_KEY_REQUIRED"),
                      a.tenant_id, a.key_id);
        }
      } else {
        if (auto st = ValidateIdempotencyKey(it->second); !st.ok()) {
          return fail(st, a.tenant_id, a.key_id);
        }
        call.idempotency_key = it->second;
        call.request_fingerprint = RequestFingerprint(self->rt_.request_fingerprint_key(), req);
      }
    }
    // An empty body needs no content type (the handler says whether one was needed).
    if (route.has_body && !req.body.empty()) {
      std::string ct = req.Header("content-type");
      std::string base = ct.substr(0, ct.find(';'));
      while (!base.empty() && base.back() == ' ') base.pop_back();
      for (auto& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (base != "application/json") {
        return fail(core::InvalidArgument("send the body as application/json",
                                          "UNSUPPORTED_MEDIA_TYPE"),
                    a.tenant_id, a.key_id);
      }
    }
    route.handler(call, [logged, tenant = a.tenant_id, key = a.key_id](HttpResponse r) {
      logged(std::move(r), tenant, key);
    });
  });
}

void PublicApi::Register(Router& router, const core::Json& openapi_document) {
  for (const auto& r : routes_) {
    Wrap(router, r);
    if (r.client_token || r.cors) {  // the CORS preflight of a browser's call
      router.Add("OPTIONS", r.path, Sync([method = r.method](HttpRequest&) {
                   HttpResponse resp;
                   resp.status = 204;
                   resp.content_type.clear();
                   resp.headers = {{"Access-Control-Allow-Origin", "*"},
                                   {"Access-Control-Allow-Methods", method},
                                   {"Access-Control-Allow-Headers", "Authorization, Content-Type, Service-Version, Idempotency-Key"},
                                   {"Access-Control-Max-Age", "600"}};
                   return resp;
                 }));
    }
  }
  auto doc = std::make_shared<std::string>(core::DumpJson(openapi_document));
  router.Add("GET", "/v1/openapi.json", Sync([doc](HttpRequest&) {
               HttpResponse r;
               r.body = *doc;
               return r;
             }));
  auto events_doc = std::make_shared<std::string>(core::DumpJson(AsyncApiDocument(options_.public_base_url)));
  router.Add("GET", "/v1/asyncapi.json", Sync([events_doc](HttpRequest&) {
               HttpResponse r;
               r.body = *events_doc;
               return r;
             }));
}

}  // namespace svc::api
