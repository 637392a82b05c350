// /v1/embedded/sessions (docs/embedded.md): the embedded channel's five routes.
//
//   POST /v1/embedded/sessions            secret key: a verification session (channel `embed`)
//                                         and its embedded session, in one append
//   POST /v1/embedded/sessions/browser    publishable key, from the integrator's page: only a
//                                         published flow, only the application's origins
//   POST /v1/embedded/sessions/init       the widget: the clientSecret swapped once for an
//                                         applicant token (the credential is the secret itself)
//   GET  /v1/embedded/sessions/{id}/policy   public: the origins that may frame the widget
//   POST /v1/embedded/sessions/{id}/verify   secret key: the final state, from the backend
//
// An embedded session's id is `ems_` + its verification session's hex; its clientSecret is
// `<ems id>_secret_<32 characters>`, derived under a server key (so a retry with the same
// Idempotency-Key answers the same secret without the secret ever being stored; the events hold
// only its keyed hash).
#include <algorithm>

#include "api/embedded/routes.h"
#include "api/http/json_input.h"
#include "api/http/public_api.h"
#include "api/http/write_path.h"
#include "api/http/sessions_port.h"
#include "commands/embedded/flow_graph.h"
#include "commands/embedded/origins.h"
#include "commands/tenancy/api_keys.h"
#include "commands/verification/session_decider.h"
#include "core/crypto.h"
#include "pipeline/verification/requested_input.h"
#include "pipeline/webhooks/endpoint_secrets.h"
#include "projections/embedded/embedded_queries.h"
#include "projections/embedded/embedded_view.h"
#include "projections/sessions_view.h"
#include "projections/tenancy_view.h"

namespace svc::api::embedded {

namespace vs = commands::verification;
namespace ce = commands::embedded;
namespace pv = pipeline::verification;
using EV = projections::EmbeddedView;
using SV = projections::SessionsView;
using TV = projections::TenancyView;

std::string EmbeddedIdOf(std::string_view session_id) {
  return "ems_" + std::string(session_id.substr(session_id.find('_') + 1));
}

bool ValidEmbeddedId(std::string_view id) { return IsOpaqueId(id, "ems"); }

std::string ClientSecretFor(Runtime& rt, std::string_view embedded_id) {
  std::string material = "svc/embedded-client-secret/v1";
  material.push_back('\0');
  material.append(embedded_id);
  std::string mac = core::HmacSha256(rt.api_key_lookup_key(), material);
  return std::string(embedded_id) + "_secret_" + core::Base64UrlEncode(mac).substr(0, 32);
}

std::string Phase(std::string_view status) {
  if (status == "approved" || status == "declined") return "completed";
  if (status == "expired" || status == "abandoned") return "failed";
  if (status == "review") return "review";
  return "processing";
}

namespace {

std::nullopt_t Refuse(const Respond& respond, HttpResponse r) {
  respond(std::move(r));
  return std::nullopt;
}

// The members of `body` outside `fields`: 422 unknown_field each (the session create's other
// fields are the API channel's). True when there were none.
bool OnlyFields(const HttpRequest& req, const core::Json& body, const std::vector<std::string>& fields,
                const std::string& what, const Respond& respond) {
  std::vector<FieldError> unknown;
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (std::find(fields.begin(), fields.end(), it.key()) == fields.end()) {
      unknown.push_back({it.key(), "/" + JsonPointerEscape(it.key()), "unknown_field", it.key() + " is not a field of " + what});
    }
  }
  if (!unknown.empty()) respond(ValidationProblem(req, unknown));
  return unknown.empty();
}

// allowedOrigins of a create body: required, 1-20 origins, each normalised.
std::optional<std::vector<std::string>> AllowedOrigins(const HttpRequest& req, const core::Json& body,
                                                      const Respond& respond) {
  auto it = body.find("allowedOrigins");
  if (it == body.end() || it->is_null() || (it->is_array() && it->empty())) {
    return Refuse(respond, Problem(req, "ALLOWED_ORIGINS_REQUIRED",
                                   "allowedOrigins names the origins of the pages that may mount the widget"));
  }
  std::vector<std::string> raw;
  bool strings = it->is_array() && it->size() <= 20;
  if (strings) {
    for (const auto& o : *it) {
      if (!o.is_string()) strings = false;
      else raw.push_back(o.get<std::string>());
    }
  }
  if (!strings) {
    return Refuse(respond, ValidationProblem(req, {{"allowedOrigins", "/allowedOrigins", "invalid_type",
                                                    "allowedOrigins is an array of 1 to 20 origins"}}));
  }
  auto normal = ce::NormalizeOrigins(raw, "allowedOrigins");
  if (!normal.ok()) return Refuse(respond, StatusToProblem(req, normal.status()));
  return *normal;
}

core::Result<core::Json> CreatedBody(Runtime& rt, const std::string& env, const std::string& session_id,
                                     const core::Json& created_row, const std::vector<std::string>& origins) {
  const std::string ems = EmbeddedIdOf(session_id);
  core::Json body = {{"id", ems},
                     {"object", "embedded_session"},
                     {"allowedOrigins", origins},
                     {"clientSecret", ClientSecretFor(rt, ems)},
                     {"expiresAt", created_row.value("expiresAt", core::Json(nullptr))},
                     {"status", "open"},
                     {"personId", created_row.value("personId", core::Json(nullptr))},
                     {"verificationSessionId", session_id},
                     {"callbackSecret", nullptr}};
  // A callbackUrl's secret (docs/webhooks.md#session-callbacks), shown here as in a session's 201.
  if (const std::string sealed = core::StringOr(created_row, "callbackSecretSealed"); !sealed.empty()) {
    SVC_ASSIGN_OR_RETURN(std::string secret, pipeline::webhooks::OpenCallbackSecret(
                                                 rt.seal_key(), core::StringOr(created_row, "tenantId"), env,
                                                 session_id, sealed));
    body["callbackSecret"] = secret;
    core::SecureZero(secret);
  }
  return body;
}

// The answer to a create, once the read models have it (the session's creation-time row); a retry
// with the same Idempotency-Key answers the original session.
HttpResponse CreatedAnswer(Runtime& rt, const std::string& te, const std::string& env, const std::string& session_id,
                           const HttpRequest& slim) {
  auto row = ReadView(rt, SV::Abs(SV::Created(te, session_id)));
  auto ems = ReadView(rt, EV::Abs(EV::Embedded(EmbeddedIdOf(session_id))));
  if (!row.ok() || !ems.ok() || !row->has_value() || !ems->has_value()) {
    return Problem(slim, "SERVICE_UNAVAILABLE",
                   "the session is stored but not readable yet; retry with the same Idempotency-Key");
  }
  auto body = CreatedBody(rt, env, session_id, **row, (*ems)->value("allowedOrigins", std::vector<std::string>{}));
  if (!body.ok()) return StatusToProblem(slim, body.status());
  return JsonResponse(201, *body);
}

// Both creates: the session prepared from `session_body`, opened with its embedded session.
void OpenEmbedded(Runtime& rt, const ApiContext& options, ApiCall& call, core::Json session_body,
                  std::vector<std::string> origins, const std::string& opened_by, Respond respond) {
  HttpRequest& req = *call.request;
  if (options.sessions == nullptr) return respond(Problem(req, "SERVICE_UNAVAILABLE", "sessions are not served here"));
  session_body["channel"] = "embed";
  auto prepared = options.sessions->prepare(rt, options, call, session_body, respond);
  if (!prepared) return;
  const AuthContext& a = call.auth;
  vs::EmbeddedOpened opened;
  opened.embedded_id = EmbeddedIdOf(prepared->id);
  opened.allowed_origins = origins;
  opened.client_secret_hash =
      commands::tenancy::HashApiKey(rt.api_key_lookup_key(), ClientSecretFor(rt, opened.embedded_id));
  opened.opened_by = opened_by;
  opened.key_id = a.key_id;
  // What the widget walks: the flow's steps, or the steps the session's checks use.
  const core::Json& checks = prepared->created.checks;
  opened.liveness_mode = checks.is_object() ? checks.value("livenessMode", "passive") : "passive";
  if (checks.is_object() && checks.value("livenessFileAllowed", false) == true) opened.liveness_file = "allowed";
  opened.steps = ce::WidgetSteps(checks, prepared->created.flow_captures);
  auto cmd = commands::MakeCommand<vs::SessionDecider>(
      a.tenant_id, prepared->id, vs::SessionCommand(vs::CreateSession{std::move(prepared->created), opened}),
      Context(rt, call));
  cmd.fresh_id = true;
  RunThenRender(rt, req, std::move(cmd), {SV::kName, EV::kName},
                [&rt, te = projections::TenantEnv(a.tenant_id, a.environment), env = a.environment,
                 slim = SlimRequest(req)](const commands::CommandOutcome& o) {
                  return CreatedAnswer(rt, te, env, o.aggregate_id, slim);
                },
                std::move(respond));
}

void CreateBackend(Runtime& rt, const ApiContext& options, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  if (call.auth.key_type != "secret") {
    return respond(Problem(req, "INSUFFICIENT_SCOPE", "a backend embedded session needs a secret key"));
  }
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  static const std::vector<std::string> kFields = {"allowedOrigins", "callbackUrl", "checks", "clientReference",
                                                   "country", "flowId", "locale", "notificationsMode",
                                                   "personId", "policy", "testMode"};
  if (!OnlyFields(req, *body, kFields, "an embedded session", respond)) return;
  if (auto tm = body->find("testMode"); tm != body->end() && !tm->is_null()) {
    if (!tm->is_boolean()) {
      return respond(ValidationProblem(req, {{"testMode", "/testMode", "invalid_type", "testMode is a boolean"}}));
    }
    if (tm->get<bool>() && call.auth.environment == "live") {
      return respond(Problem(req, "TEST_MODE_CONFLICTS_WITH_KEY_ENVIRONMENT",
                             "testMode is deprecated: the key's environment decides, and this key is live"));
    }
  }
  auto origins = AllowedOrigins(req, *body, respond);
  if (!origins) return;
  core::Json session_body = *body;
  session_body.erase("allowedOrigins");
  session_body.erase("testMode");
  OpenEmbedded(rt, options, call, std::move(session_body), std::move(*origins), "backend", std::move(respond));
}

// A browser create's origins against its application's: the page calling must be one of them (a
// browser sends Origin on every cross-origin POST; a page cannot forge it), and so must every
// origin the widget may be mounted on.
core::Status CheckBrowserOrigins(const core::Json& application, const std::string& page_origin,
                                 const std::vector<std::string>& origins) {
  const auto allowed = application.value("allowedOrigins", std::vector<std::string>{});
  auto page = ce::NormalizeOrigin(page_origin);
  if (!page.ok() || std::find(allowed.begin(), allowed.end(), *page) == allowed.end()) {
    return core::PermissionDenied("the request's Origin is not among the application's allowed origins",
                                  "ORIGIN_NOT_ALLOWED");
  }
  for (const auto& o : origins) {
    if (std::find(allowed.begin(), allowed.end(), o) == allowed.end()) {
      return core::PermissionDenied(
          "allowedOrigins may only name the application's allowed origins; " + o + " is not one",
          "NOT_ALLOWED_BY_APPLICATION");
    }
  }
  return core::Status::Ok();
}

void CreateBrowser(Runtime& rt, const ApiContext& options, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  if (a.key_type != "publishable") {
    return respond(Problem(req, "PUBLISHABLE_KEY_REQUIRED",
                           "the browser create takes a publishable key (svc_<env>_pk_…); a backend uses "
                           "POST /v1/embedded/sessions with a secret key"));
  }
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  static const std::vector<std::string> kFields = {"allowedOrigins", "clientReference", "country", "flow", "locale"};
  if (!OnlyFields(req, *body, kFields, "a browser embedded session", respond)) return;
  auto origins = AllowedOrigins(req, *body, respond);
  if (!origins) return;
  auto app = ReadView(rt, TV::Abs(TV::Application(a.tenant_id, a.application_id)));
  if (!app.ok()) return respond(StatusToProblem(req, app.status()));
  const core::Json app_row = app->value_or(core::Json::object());
  if (auto st = CheckBrowserOrigins(app_row, req.Header("origin"), *origins); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  core::Json session_body = *body;
  session_body.erase("allowedOrigins");
  // Only a published flow: named by its key, else the application's default; none is refused.
  if (core::StringOr(session_body, "flow").empty() && core::StringOr(app_row, "defaultFlow").empty()) {
    return respond(Problem(req, "FLOW_REQUIRED",
                           "a browser session walks a published flow: send flow (its key), or set the "
                           "application's default flow"));
  }
  OpenEmbedded(rt, options, call, std::move(session_body), std::move(*origins), "browser", std::move(respond));
}

// The embedded session a clientSecret names (what the credential guard counts refusals against).
std::string EmbeddedIdOfSecret(const HttpRequest& req) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return "";
  const std::string secret = core::StringOr(*body, "clientSecret");
  const std::string ems = secret.substr(0, secret.find("_secret_"));
  return ValidEmbeddedId(ems) ? ems : "";
}

// The embedded session a clientSecret names, its row; nullopt once answered (SESSION_INVALID for
// a secret that names none).
std::optional<core::Json> EmbeddedOfSecret(Runtime& rt, const HttpRequest& req, const std::string& secret,
                                           const Respond& respond) {
  const std::string ems = secret.substr(0, secret.find("_secret_"));
  auto row = ValidEmbeddedId(ems) && ems.size() != secret.size()
                 ? ReadView(rt, EV::Abs(EV::Embedded(ems)))
                 : core::Result<std::optional<core::Json>>(std::optional<core::Json>());
  if (!row.ok()) return Refuse(respond, StatusToProblem(req, row.status()));
  if (!row->has_value()) return Refuse(respond, Problem(req, "SESSION_INVALID", "the clientSecret is not valid"));
  return std::move(**row);
}

void Init(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto secret = v.String("clientSecret", true, 200);
  auto parent = v.String("parentOrigin", false, 255);
  v.RejectUnknown();
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  auto e = EmbeddedOfSecret(rt, req, *secret, respond);
  if (!e) return;
  auto parent_origin = parent.has_value() ? ce::NormalizeOrigin(*parent) : core::Result<std::string>(std::string());
  if (!parent_origin.ok()) return respond(Problem(req, "ORIGIN_NOT_ALLOWED", "parentOrigin is not an origin the session allows"));
  const std::string token = "atok_" + core::Base64UrlEncode(core::RandomBytes(32));
  const std::string ems = secret->substr(0, secret->find("_secret_"));
  vs::MountEmbedded m{commands::tenancy::HashApiKey(rt.api_key_lookup_key(), *secret), *parent_origin,
                      commands::tenancy::HashApiKey(rt.api_key_lookup_key(), token)};
  // The call runs as the session's applicant (the actor of the events it records).
  call.auth.tenant_id = core::StringOr(*e, "tenantId");
  call.auth.environment = core::StringOr(*e, "environment");
  call.auth.key_type = "applicant";
  call.auth.key_id = ems;
  auto cmd = commands::MakeCommand<vs::SessionDecider>(call.auth.tenant_id, core::StringOr(*e, "sessionId"),
                                                       vs::SessionCommand(m), Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {SV::kName, EV::kName},
                [&rt, ems, token, e = std::move(*e), slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  auto answer = projections::MountAnswer(
                      rt.store(), e, ems, token, [&rt, &e](core::Json& asked) {
                        pipeline::verification::OpenRequestedInput(
                            rt.key_store(), core::StringOr(e, "tenantId"), core::StringOr(e, "environment"),
                            core::StringOr(e, "sessionId"), asked);
                      });
                  return answer.ok() ? JsonResponse(200, *answer)
                                     : Problem(slim, "SERVICE_UNAVAILABLE", "the session is not readable yet");
                },
                std::move(respond));
}

void Policy(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string& id = req.path_params["session_id"];
  if (!ValidEmbeddedId(id)) return respond(Problem(req, "SESSION_NOT_FOUND", "no such embedded session"));
  auto row = ReadView(rt, EV::Abs(EV::Embedded(id)));
  if (!row.ok()) return respond(StatusToProblem(req, row.status()));
  if (!row->has_value()) return respond(Problem(req, "SESSION_NOT_FOUND", "no such embedded session"));
  const auto origins = (*row)->value("allowedOrigins", std::vector<std::string>{});
  HttpResponse r = JsonResponse(200, {{"sessionId", id},
                                      {"allowedOrigins", origins},
                                      {"frameAncestors", ce::FrameAncestors(origins)}});
  r.headers.emplace_back("Access-Control-Allow-Origin", "*");
  r.headers.emplace_back("Cache-Control", "no-store");
  respond(std::move(r));
}

// The answer to an embedded session's verify (EmbeddedSessionVerifyResponse): the embedded
// session `e` (its row) with its verification session's state and evidence.
core::Json VerifyBody(const std::string& id, const core::Json& e, const pv::ReportInputs& in) {
  const core::Json evidence = pv::BuildEvidence(in);
  const core::Json& s = in.session;
  const std::string status = core::StringOr(s, "status");
  const std::string phase = Phase(status);
  core::Json out = {{"id", id},
                    {"object", "embedded_session"},
                    {"verificationSessionId", core::StringOr(e, "sessionId")},
                    {"allowedOrigins", e.value("allowedOrigins", core::Json::array())},
                    {"createdAt", s.value("createdAt", core::Json(nullptr))},
                    {"expiresAt", s.value("expiresAt", core::Json(nullptr))},
                    {"completedAt", s.value("completedAt", core::Json(nullptr))},
                    {"mountedAt", e.value("mountedAt", core::Json(nullptr))},
                    {"status", phase == "completed" || phase == "failed" ? "completed"
                               : e.value("mountedAt", core::Json()).is_null() ? "open" : "mounted"},
                    {"verificationStatus", status},
                    {"phase", phase},
                    {"isFinal", phase == "completed" || phase == "failed"},
                    {"trustScore", evidence.value("trustScore", core::Json(nullptr))},
                    {"decision", evidence.value("decision", core::Json(nullptr))},
                    {"decisionMode", in.verdict.is_object() ? core::Json(s.value("decidedBy", core::Json()).is_null()
                                                                              ? "automatic" : "manual")
                                                             : core::Json(nullptr)},
                    {"clientReference", s.value("clientReference", core::Json(nullptr))},
                    {"personId", s.value("personId", core::Json(nullptr))},
                    {"document", evidence.value("document", core::Json(nullptr))},
                    {"gov", evidence.value("gov", core::Json::array())},
                    {"humanReviewAvailable", true}};
  core::Json match = nullptr;
  for (const auto& b : evidence.value("biometric", core::Json::array())) {
    if (core::StringOr(b, "checkType") == "face_match") {
      match = {{"score", b.value("score", core::Json(nullptr))},
               {"threshold", b.value("threshold", core::Json(nullptr))},
               {"passed", b.value("passed", core::Json(nullptr))},
               {"matchedAgainst", "document_photo"}};
    }
  }
  out["biometricMatch"] = match;
  return out;
}

void Verify(Runtime& rt, const ApiContext& options, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string& id = req.path_params["session_id"];
  const AuthContext& a = call.auth;
  auto not_found = [&] { respond(Problem(req, "SESSION_NOT_FOUND", "no such embedded session")); };
  if (!ValidEmbeddedId(id)) return not_found();
  auto row = ReadView(rt, EV::Abs(EV::Embedded(id)));
  if (!row.ok()) return respond(StatusToProblem(req, row.status()));
  if (!row->has_value() || core::StringOr(**row, "tenantId") != a.tenant_id ||
      core::StringOr(**row, "environment") != a.environment) {
    return not_found();
  }
  const core::Json& e = **row;
  if (options.sessions == nullptr) return respond(Problem(req, "SERVICE_UNAVAILABLE", "sessions are not served here"));
  auto in = options.sessions->report_inputs(rt, call, core::StringOr(e, "sessionId"));
  if (!in.ok()) return respond(StatusToProblem(req, in.status()));
  respond(JsonResponse(200, VerifyBody(id, e, *in)));
}

}  // namespace

std::vector<ApiRoute> EmbeddedRoutes(Runtime* r, const ApiContext& options) {
  std::vector<ApiRoute> routes;
  const ApiContext* o = &options;
  const std::string tag = "Embedded channel";
  const std::vector<std::string> session_errors = {
      "VALIDATION_ERROR", "BAD_REQUEST", "UNSUPPORTED_MEDIA_TYPE", "INVALID_ID", "ALLOWED_ORIGINS_REQUIRED",
      "ORIGIN_INVALID", "APPLICATION_NOT_FOUND", "FLOW_NOT_FOUND", "FLOW_NOT_PUBLISHABLE",
      "FLOW_NOT_ALLOWED_FOR_APPLICATION", "FLOW_NOT_ALLOWED_FOR_KEY", "FLOW_REQUIRED", "CHECK_NOT_ENABLED_FOR_FLOW",
      "PERSON_NOT_FOUND", "PERSON_PURGED", "PERSON_ALREADY_MERGED", "PRIVACY_NOTICE_REQUIRED"};
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/embedded/sessions", .operation_id = "createEmbeddedSession", .tag = tag,
      .scope = "verification:write", .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kOptional,
      .has_body = true, .request_schema = "EmbeddedSessionCreate", .success_status = 201,
      .response_schema = "EmbeddedSessionCreateResponse",
      .error_codes = Codes({session_errors, {"TEST_MODE_CONFLICTS_WITH_KEY_ENVIRONMENT"}, IdempotencyErrors()}),
      .handler = [r, o](ApiCall& c, Respond respond) { CreateBackend(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/embedded/sessions/browser", .operation_id = "createEmbeddedSessionBrowser",
      .tag = tag, .scope = "embedded:create_session", .family = RateFamily::kWrite, .cors = true, .has_body = true,
      .request_schema = "EmbeddedSessionBrowserCreate", .success_status = 201,
      .response_schema = "EmbeddedSessionCreateResponse",
      .error_codes = Codes({session_errors, {"PUBLISHABLE_KEY_REQUIRED", "ORIGIN_NOT_ALLOWED", "NOT_ALLOWED_BY_APPLICATION"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { CreateBrowser(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/embedded/sessions/init", .operation_id = "initEmbeddedSession", .tag = tag,
      .link_credential = true,
      .guard = {"embedded_init", "SESSION_INVALID", EmbeddedIdOfSecret},
      .has_body = true, .request_schema = "EmbeddedInitRequest",
      .response_schema = "EmbeddedInitResponse",
      .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST", "SESSION_INVALID", "SESSION_EXPIRED", "SESSION_COMPLETED",
                      "SESSION_ALREADY_USED", "ORIGIN_NOT_ALLOWED", "RATE_LIMITED"},
      .handler = [r](ApiCall& c, Respond respond) { Init(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/embedded/sessions/{session_id}/policy", .operation_id = "getEmbeddedPolicy",
      .tag = tag, .link_credential = true, .response_schema = "EmbeddedPolicyResponse", .error_codes = {"SESSION_NOT_FOUND"},
      .handler = [r](ApiCall& c, Respond respond) { Policy(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/embedded/sessions/{session_id}/verify", .operation_id = "verifyEmbeddedSession",
      .tag = tag, .scope = "verification:write", .family = RateFamily::kWrite, .response_schema = "EmbeddedVerifyResponse",
      .error_codes = {"SESSION_NOT_FOUND"},
      .handler = [r, o](ApiCall& c, Respond respond) { Verify(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::embedded
