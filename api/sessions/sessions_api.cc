// /v1/verification-sessions: create, consent, get, list.
#include <chrono>

#include "api/http/catch_up.h"
#include "api/http/json_input.h"
#include "api/http/cursor_list.h"
#include "api/http/pagination.h"
#include "api/sessions/routes.h"
#include "api/sessions/sessions_common.h"
#include "api/http/public_api.h"
#include "commands/tenancy/api_keys.h"
#include "commands/verification/session_decider.h"
#include "commands/verification/session_status.h"
#include "pipeline/net/url_guard.h"
#include "pipeline/verification/builtin_engines.h"
#include "pipeline/verification/requested_input.h"
#include "pipeline/webhooks/endpoint_secrets.h"
#include "pipeline/webhooks/signing.h"
#include "core/crypto.h"
#include "core/log.h"
#include "projections/projector.h"
#include "projections/sessions_queries.h"
#include "projections/sessions_view.h"
#include "projections/persons/persons_view.h"
#include "projections/tenancy_view.h"

namespace svc::api {

namespace vs = commands::verification;
using SV = projections::SessionsView;
using TV = projections::TenancyView;
using PV = projections::PersonsView;

namespace {

using namespace sessions_internal;

const std::vector<std::string> kChannels = {"api", "sdk", "link", "embed"};
const std::vector<std::string> kNotificationModes = {"service_managed", "integrator_managed"};
// CheckSelectionInput and PolicyOverrideInput are not shown by the spec; ours are documented in
// docs/verification-sessions.md.
const std::vector<std::string> kCheckNames = {"document", "liveness", "faceMatch",
                                              "governmentLookup", "deepfake", "efirma"};
const std::vector<std::string> kPolicyThresholds = {"faceMatchThreshold", "livenessThreshold",
                                                    "imageQualityThreshold", "deepfakeThreshold"};

std::nullopt_t Refuse(const Respond& respond, HttpResponse r) {
  respond(std::move(r));
  return std::nullopt;
}

}  // namespace

std::optional<PreparedSession> PrepareSession(Runtime& rt, const ApiContext& options, ApiCall& call,
                                              const core::Json& body, const Respond& respond) {
  HttpRequest& req = *call.request;
  Validator v(body);
  auto channel = v.Enum("channel", true, kChannels);
  auto application_id = v.OpaqueId("applicationId", "app");
  auto callback_url = v.Url("callbackUrl");
  const core::Json* checks = v.Object("checks", 4096);
  auto client_reference = v.String("clientReference", false, 255);
  auto country = v.String("country", false, 2);
  auto flow = v.String("flow", false, 64);
  auto flow_id = v.OpaqueId("flowId", "flw");
  auto locale = v.String("locale", false, 35);
  const core::Json* meta = v.Object("meta", 16 * 1024);
  auto notifications = v.Enum("notificationsMode", false, kNotificationModes);
  auto person_id = v.OpaqueId("personId", "per");
  const core::Json* policy = v.Object("policy", 4096);
  auto redirect_url = v.Url("redirectUrl");
  v.RejectUnknown();
  if (country.has_value()) {
    bool ok = country->size() == 2 && std::isupper(static_cast<unsigned char>((*country)[0])) &&
              std::isupper(static_cast<unsigned char>((*country)[1]));
    if (!ok) v.Add({"country", "/country", "invalid_format", "country must be ISO 3166-1 alpha-2, e.g. MX"});
  }
  if (locale.has_value()) {
    bool ok = locale->size() >= 2;
    for (char c : *locale) ok &= std::isalnum(static_cast<unsigned char>(c)) || c == '-';
    if (!ok) v.Add({"locale", "/locale", "invalid_format", "locale must be a BCP 47 tag, e.g. es-MX"});
  }
  if (checks != nullptr) {
    for (auto it = checks->begin(); it != checks->end(); ++it) {
      std::string f = "checks." + it.key(), p = "/checks/" + JsonPointerEscape(it.key());
      if (it.key() == "livenessMode") {
        if (!it->is_string() || (*it != "passive" && *it != "active")) {
          v.Add({f, p, "invalid_enum", "checks.livenessMode must be one of: passive, active"});
        } else if (*it == "active" && checks->contains("liveness") && (*checks)["liveness"] == false) {
          v.Add({f, p, "invalid_value", "active liveness needs the liveness check on"});
        }
      } else if (std::find(kCheckNames.begin(), kCheckNames.end(), it.key()) == kCheckNames.end()) {
        v.Add({f, p, "unknown_field", it.key() + " is not a known check"});
      } else if (!it->is_boolean()) {
        v.Add({f, p, "invalid_type", f + " must be a boolean"});
      }
    }
  }
  if (policy != nullptr) {
    for (auto it = policy->begin(); it != policy->end(); ++it) {
      std::string f = "policy." + it.key(), p = "/policy/" + JsonPointerEscape(it.key());
      bool threshold = std::find(kPolicyThresholds.begin(), kPolicyThresholds.end(), it.key()) !=
                       kPolicyThresholds.end();
      if (threshold) {
        if (!it->is_number() || it->get<double>() < 0 || it->get<double>() > 1) {
          v.Add({f, p, "out_of_range", f + " must be a number from 0 to 1"});
        }
      } else if (it.key() == "requireGovernmentLookup") {
        if (!it->is_boolean()) v.Add({f, p, "invalid_type", f + " must be a boolean"});
      } else if (it.key() == "testOutcome") {
        // Test inputs (docs/verification-pipeline.md): test keys only; a live key is refused
        // rather than silently ignored.
        bool known = false;
        for (auto t : pipeline::verification::kTestOutcomes) {
          known |= it->is_string() && it->get<std::string>() == t;
        }
        if (call.auth.environment != "test") {
          v.Add({f, p, "not_allowed", "testOutcome is honoured only with test keys"});
        } else if (!known) {
          v.Add({f, p, "invalid_enum",
                 "testOutcome must be approved, declined, review, analysis_error or more_info"});
        }
      } else {
        v.Add({f, p, "unknown_field", it.key() + " is not a policy override"});
      }
    }
  }
  std::optional<HttpResponse> not_public;
  if (callback_url.has_value()) {
    // The guard of the webhooks (SSRF), without resolving the name on this path: the delivery
    // client checks every address it connects to.
    auto checked = pipeline::net::CheckWebhookUrlShape(*callback_url, options.private_urls_allowed);
    if (!checked.ok() && checked.status().api_code() == "URL_NOT_PUBLIC") {
      not_public = StatusToProblem(req, checked.status());
    } else if (!checked.ok()) {
      v.Add({"callbackUrl", "/callbackUrl", "invalid_format", checked.status().message()});
    }
  }
  if (!v.ok()) return Refuse(respond, ValidationProblem(req, v.errors()));
  if (not_public) return Refuse(respond, std::move(*not_public));

  const AuthContext& a = call.auth;
  // References must exist in the caller's tenant (another tenant's id is "not found").
  std::string app = application_id.value_or(a.application_id);
  // The flow (docs/embedded.md#flows): named by id or key, else the application's default.
  auto app_row = ReadView(rt, TV::Abs(TV::Application(a.tenant_id, app)));
  if (!app_row.ok()) return Refuse(respond, StatusToProblem(req, app_row.status()));
  if (!app_row->has_value()) {  // a key always names an existing application; a named one may not exist
    return Refuse(respond, Problem(req, "APPLICATION_NOT_FOUND", "no such application"));
  }
  auto resolved = ResolveFlow(rt, a, **app_row, flow_id.value_or(""), flow.value_or(""), checks, policy);
  if (!resolved.ok()) return Refuse(respond, StatusToProblem(req, resolved.status()));
  if (person_id.has_value()) {
    // The person must be an active person of the key's tenant and environment.
    auto row = ReadViewCaughtUp(rt, a.tenant_id, PV::Abs(PV::Record(projections::TenantEnv(a.tenant_id, a.environment), *person_id)));
    if (!row.ok()) return Refuse(respond, StatusToProblem(req, row.status()));
    if (!row->has_value()) return Refuse(respond, Problem(req, "PERSON_NOT_FOUND", "no such person"));
    std::string status = core::StringOr(**row, "status");
    if (status == "redacted") return Refuse(respond, Problem(req, "PERSON_PURGED", "the person was erased"));
    if (status == "merged") return Refuse(respond, Problem(req, "PERSON_ALREADY_MERGED", "the person was merged into another"));
  }

  std::string id = rt.ids().NewIdString(core::IdKind::kVerification);
  vs::SessionCreated c;
  c.public_id = PublicId(id);
  c.channel = *channel;
  c.application_id = app;
  c.flow = flow.value_or("");
  if (resolved->found) {
    c.flow_id = resolved->flow_id;
    c.flow = resolved->key;
    c.flow_version = resolved->version;
    c.flow_captures = resolved->settings.captures;
  }
  c.person_id = person_id.value_or("");
  c.client_reference = client_reference;
  c.country = country.value_or("MX");
  c.locale = locale.value_or("es-MX");
  c.notifications_mode = notifications.value_or("service_managed");
  c.callback_url = callback_url.value_or("");
  if (callback_url.has_value()) {
    // The callback's own secret, shown once in the 201 (and to a replay of its Idempotency-Key).
    std::string secret = pipeline::webhooks::NewSecret();
    c.callback_secret_sealed = pipeline::webhooks::SealCallbackSecret(rt.seal_key(), a.tenant_id, a.environment, id, secret);
    core::SecureZero(secret);
  }
  c.redirect_url = redirect_url.value_or("");
  // The notice the applicant's pages link (the decider refuses a live one without it).
  if (c.channel == "link" || c.channel == "embed") c.privacy_notice_url = core::StringOr(**app_row, "privacyNoticeUrl");
  c.checks = resolved->found ? resolved->checks : checks != nullptr ? *checks : core::Json(nullptr);
  c.policy = resolved->found ? resolved->policy : policy != nullptr ? *policy : core::Json(nullptr);
  if (meta != nullptr) c.meta_sealed = Seal(rt, core::DumpJson(*meta), id + "|meta");
  if (c.channel == "link") {
    const std::string token = core::Base64UrlEncode(core::RandomBytes(24));
    c.link_token_sealed = Seal(rt, token, id);
    c.link_token_hash = commands::tenancy::HashApiKey(rt.api_key_lookup_key(), token);
  }
  c.expires_at_micros = rt.clock().Now().micros + options.limits.session_ttl_seconds * 1000000;
  PreparedSession out;
  out.id = id;
  out.created = std::move(c);
  if (resolved->found) out.flow_steps = resolved->settings.steps;
  return out;
}

namespace {

void CreateSession(Runtime& rt, const SessionsOptions& options, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  auto prepared = PrepareSession(rt, options, call, *body, respond);
  if (!prepared) return;
  const AuthContext& a = call.auth;
  const std::string id = prepared->id;
  commands::CommandContext ctx = Context(rt, call);
  auto cmd = commands::MakeCommand<vs::SessionDecider>(a.tenant_id, id,
                                                       vs::SessionCommand(vs::CreateSession{std::move(prepared->created), std::nullopt}),
                                                       ctx);
  cmd.fresh_id = true;
  std::string te = projections::TenantEnv(a.tenant_id, a.environment);
  HttpRequest req_copy;
  req_copy.path = req.path;
  req_copy.request_id = req.request_id;
  RunThenRender(rt, req, std::move(cmd), {SV::kName},
                [&rt, &options, te, env = a.environment, req_copy](const commands::CommandOutcome& o) {
                  // A retry with the same key answers with the original session.
                  const std::string& sid = o.aggregate_id;
                  auto row = rt.store().Get(rt.store().Cf(projections::kViewsCf),
                                            SV::Abs(SV::Created(te, sid)));
                  if (!row.ok()) return StatusToProblem(req_copy, row.status());
                  if (!row->has_value()) {
                    return Problem(req_copy, "SERVICE_UNAVAILABLE",
                                   "the session is stored but not readable yet; retry with the "
                                   "same Idempotency-Key");
                  }
                  auto created = RenderCreated(rt, std::move(**row), sid, env, options);
                  if (!created.ok()) return StatusToProblem(req_copy, created.status());
                  HttpResponse r;
                  r.status = 201;
                  r.body = std::move(*created);
                  return r;
                },
                std::move(respond));
}

void GetSession(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string& id = req.path_params["session_id"];
  if (auto st = core::ValidateId(core::IdKind::kVerification, id); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  // The read-model row is the record as the JSON writer produced it: served as stored, but for the
  // words asked of the applicant, opened on the way out.
  auto row = ReadRawCaughtUp(rt, call.auth.tenant_id,
                             SV::Abs(SV::Record(projections::TenantEnv(call.auth.tenant_id, call.auth.environment), id)));
  if (!row.ok()) return respond(StatusToProblem(req, row.status()));
  if (!row->has_value()) return respond(Problem(req, "SESSION_NOT_FOUND", "no such session"));
  HttpResponse r;
  r.body = pipeline::verification::ServedSessionRecord(rt.key_store(), call.auth.tenant_id, call.auth.environment,
                                                       std::move(**row));
  respond(std::move(r));
}

void ListSessions(Runtime& rt, const SessionsOptions& options, ApiCall& call, Respond respond) {
  auto query = ParseQuery(call.request->query);
  CursorList list;
  list.filters = {"status", "applicationId"};
  std::string status, app;
  if (auto it = query.find("status"); it != query.end()) {
    status = it->second;
    const auto& statuses = commands::verification::SessionStatuses();
    if (std::find(statuses.begin(), statuses.end(), status) == statuses.end()) {
      list.errors.push_back({"status", "", "invalid_enum", "status must be one of the session statuses"});
    }
  }
  if (auto it = query.find("applicationId"); it != query.end()) {
    app = it->second;
    if (!core::ValidateId(core::IdKind::kApplication, app).ok()) {
      list.errors.push_back({"applicationId", "", "invalid_id", "applicationId must be app_<32 lowercase hex>"});
    }
  }
  const AuthContext& a = call.auth;
  const std::string te = projections::TenantEnv(a.tenant_id, a.environment);
  list.scope = "sessions|" + te + "/|" + status + "|" + app;
  // One index per filter; with both, the status index and the application checked on the row.
  std::string filter = !status.empty() ? SV::ByStatus(status) : !app.empty() ? SV::ByApplication(app) : SV::All();
  list.index = SV::Abs(SV::Index(te, filter));
  list.counter = SV::Abs(SV::Counter(te, filter));
  list.row_key = [te](std::string_view entry) { return SV::Abs(SV::Record(te, SV::IdOfOrder(entry))); };
  list.covering = filter == SV::All();  // that index holds the records (sessions_view.h)
  if (!status.empty() && !app.empty()) {
    list.accept = [app](const core::Json& row) { return core::StringOr(row, "applicationId") == app; };
  }
  list.render = [&rt, tenant = a.tenant_id, env = a.environment](std::string stored) {
    return pipeline::verification::ServedSessionRecord(rt.key_store(), tenant, env, std::move(stored));
  };
  ServeCursorList(rt, options, call, list, std::move(respond));
}

// The body of a consent as the session's command (the subject's IP and user agent sealed under
// the session's key), or nullopt once answered.
std::optional<vs::RecordConsent> ParseConsent(Runtime& rt, const HttpRequest& req, const std::string& id,
                                              const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return Refuse(respond, StatusToProblem(req, body.status()));
  Validator v(*body);
  auto accepted = v.Bool("accepted", true);
  auto consented_at = v.DateTime("consentedAt");
  auto policy_version = v.String("policyVersion", false, 64);
  auto ip = v.String("subjectIpAddress", false, 45);
  auto ua = v.String("subjectUserAgent", false, 512);
  v.RejectUnknown();
  if (policy_version.has_value() && policy_version->empty()) {
    v.Add({"policyVersion", "/policyVersion", "invalid_format",
           "policyVersion names the policy the subject accepted; omit it (or send null) when none"});
  }
  if (ip.has_value()) {
    bool ok = !ip->empty();
    for (char c : *ip) ok &= std::isxdigit(static_cast<unsigned char>(c)) || c == '.' || c == ':';
    if (!ok) v.Add({"subjectIpAddress", "/subjectIpAddress", "invalid_format", "subjectIpAddress must be an IPv4 or IPv6 address"});
  }
  if (!v.ok()) return Refuse(respond, ValidationProblem(req, v.errors()));
  vs::RecordConsent c;
  c.accepted = *accepted;
  if (consented_at.has_value()) c.consented_at_micros = core::ParseRfc3339(*consented_at)->micros;
  c.policy_version = policy_version.value_or("");
  if (ip.has_value() || ua.has_value()) {
    core::Json subject = {{"ip", ip.has_value() ? core::Json(*ip) : core::Json(nullptr)},
                          {"userAgent", ua.has_value() ? core::Json(*ua) : core::Json(nullptr)}};
    c.subject_sealed = Seal(rt, core::DumpJson(subject), id + "|consent");
  }
  return c;
}

void RecordConsent(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string& id = req.path_params["session_id"];
  if (auto st = core::ValidateId(core::IdKind::kVerification, id); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  auto c = ParseConsent(rt, req, id, respond);
  if (!c) return;
  const AuthContext& a = call.auth;
  std::string te = projections::TenantEnv(a.tenant_id, a.environment);
  // Sessions of another tenant or environment are not found (checked on the read model; the
  // aggregate is per tenant partition, so a foreign id could not be decided on anyway).
  auto rec = ReadViewCaughtUp(rt, a.tenant_id, SV::Abs(SV::Record(te, id)));
  if (!rec.ok()) return respond(StatusToProblem(req, rec.status()));
  if (!rec->has_value()) return respond(Problem(req, "SESSION_NOT_FOUND", "no such session"));
  auto cmd = commands::MakeCommand<vs::SessionDecider>(a.tenant_id, id, vs::SessionCommand(*c), Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {SV::kName},
                [&rt, te, id, slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  auto answer = projections::ConsentAnswer(rt.store(), te, id);
                  return answer.ok() ? JsonResponse(200, *answer)
                                     : Problem(slim, "SERVICE_UNAVAILABLE", "consent stored; read it again");
                },
                std::move(respond));
}

}  // namespace

const SessionsPort& SessionsPortOf() {
  static const SessionsPort port{&PrepareSession, &LoadReportInputs};
  return port;
}

std::vector<ApiRoute> SessionRoutes(Runtime* r, const SessionsOptions& options) {
  std::vector<ApiRoute> routes;
  const SessionsOptions* o = &options;
  const std::string tag = "Verification sessions";
  std::vector<QueryParam> list_query = {
      {"status", {{"type", "string"}, {"enum", commands::verification::SessionStatuses()}}, "only sessions in this status"},
      {"applicationId", {{"type", "string"}, {"pattern", "^app_[0-9a-f]{32}$"}},
       "only sessions of this application"}};
  for (auto& q : PageParams()) list_query.push_back(q);
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/verification-sessions",
      .operation_id = "createVerificationSession", .tag = tag,
      .scope = "verification:write", .family = RateFamily::kWrite,
      .idempotency = IdempotencyRule::kRequired, .has_body = true,
      .request_schema = "VerificationSessionCreate", .success_status = 201,
      .response_schema = "VerificationSessionCreated",
      .error_codes = {"IDEMPOTENCY_KEY_REQUIRED", "IDEMPOTENCY_KEY_INVALID",
                      "IDEMPOTENCY_KEY_IN_PROGRESS", "IDEMPOTENCY_KEY_REUSED", "VALIDATION_ERROR",
                      "BAD_REQUEST", "UNSUPPORTED_MEDIA_TYPE", "INVALID_ID",
                      "APPLICATION_NOT_FOUND", "FLOW_NOT_FOUND", "FLOW_NOT_PUBLISHABLE",
                      "FLOW_NOT_ALLOWED_FOR_APPLICATION", "FLOW_NOT_ALLOWED_FOR_KEY", "FLOW_REQUIRED",
                      "CHECK_NOT_ENABLED_FOR_FLOW", "APPLICATION_ARCHIVED", "PRIVACY_NOTICE_REQUIRED", "PERSON_NOT_FOUND",
                      "PERSON_PURGED", "PERSON_ALREADY_MERGED"},
      .handler = [r, o](ApiCall& c, Respond respond) { CreateSession(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/verification-sessions/{session_id}/consent",
      .operation_id = "recordVerificationConsent", .tag = tag,
      .scope = "verification:write", .family = RateFamily::kWrite, .applicant_token = true, .has_body = true,
      .request_schema = "ConsentRequest", .response_schema = "ConsentResponse",
      .error_codes = {"INVALID_ID", "SESSION_NOT_FOUND", "SESSION_EXPIRED", "SESSION_COMPLETED",
                      "INVALID_STATE_TRANSITION", "VALIDATION_ERROR", "BAD_REQUEST",
                      "UNSUPPORTED_MEDIA_TYPE"},
      .handler = [r](ApiCall& c, Respond respond) { RecordConsent(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/verification-sessions",
      .operation_id = "listVerificationSessions", .tag = tag,
      .scope = "verification:read", .query = list_query,
      .response_schema = "VerificationSessionList",
      .error_codes = {"BAD_REQUEST", "INVALID_ID", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE",
                      "VALIDATION_ERROR"},
      .handler = [r, o](ApiCall& c, Respond respond) { ListSessions(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/verification-sessions/{session_id}",
      .operation_id = "getVerificationSession", .tag = tag,
      .scope = "verification:read", .applicant_token = true, .response_schema = "VerificationSessionResponse",
      .error_codes = {"INVALID_ID", "SESSION_NOT_FOUND"},
      .handler = [r](ApiCall& c, Respond respond) { GetSession(*r, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api
