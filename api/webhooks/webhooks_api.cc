// /v1/developer/webhooks: endpoint management (list, create, get, PATCH, rotate-secret), the event
// catalogue, the delivery policy and signature verification. Deliveries come with the delivery
// worker (issue 6 continues).
#include <set>

#include "api/http/cursor_list.h"
#include "api/http/pagination.h"
#include "api/http/public_api.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/webhooks/routes.h"
#include "pipeline/net/url_guard.h"
#include "pipeline/webhooks/dispatcher.h"
#include "commands/webhooks/delivery_decider.h"
#include "commands/webhooks/endpoint_decider.h"
#include "core/crypto.h"
#include "eventstore/key_store.h"
#include "pipeline/webhooks/catalogue.h"
#include "pipeline/verification/requested_input.h"
#include "pipeline/webhooks/endpoint_secrets.h"
#include "pipeline/webhooks/signing.h"
#include "pipeline/webhooks/test_delivery.h"
#include "projections/projector.h"
#include "projections/webhooks_projector.h"
#include "projections/webhooks_queries.h"

namespace svc::api {

namespace wh = commands::webhooks;
using pipeline::net::CheckWebhookUrl;
using pipeline::net::OutboundClient;
using pipeline::net::SendResult;
using pipeline::webhooks::OpenWebhookSecrets;
namespace pw = pipeline::webhooks;

namespace {

using WV = projections::WebhooksView;

std::string TeOf(const AuthContext& a) { return projections::TenantEnv(a.tenant_id, a.environment); }
// Validates `events` (null or an array of known types/patterns, at most 32).
void CheckEvents(const core::Json* events, std::vector<FieldError>& errors, std::string* unknown) {
  if (events == nullptr || events->is_null()) return;
  if (!events->is_array() || events->size() > 32) {
    errors.push_back({"events", "/events", "invalid_type", "events must be null or an array of at most 32 event types"});
    return;
  }
  for (size_t i = 0; i < events->size(); ++i) {
    const auto& e = (*events)[i];
    if (!e.is_string()) {
      errors.push_back({"events", "/events/" + std::to_string(i), "invalid_type", "event types are strings"});
    } else if (!pw::IsKnownSubscription(e.get<std::string>()) && unknown->empty()) {
      *unknown = e.get<std::string>();
    }
  }
}

HttpResponse UnknownEvent(const HttpRequest& req, const std::string& type) {
  return Problem(req, "UNKNOWN_EVENT_TYPE",
                 "'" + type + "' is not in the event catalogue (GET /v1/developer/webhooks/event-types)");
}

core::Result<core::Json> EndpointRow(Runtime& rt, const AuthContext& a, const std::string& id) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kWebhook, id));
  SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, WV::Abs(WV::Endpoint(TeOf(a), id))));
  if (!row.has_value()) return core::NotFound("no such webhook endpoint", "WEBHOOK_NOT_FOUND");
  return std::move(*row);
}

core::Result<std::string> SealSecret(Runtime& rt, const AuthContext& a, const std::string& id, const std::string& secret) {
  return pw::SealEndpointSecret(rt.key_store(), a.tenant_id, a.environment, id, secret);
}

// A URL a webhook may be sent to: a problem when not (URL_NOT_PUBLIC as itself, a malformed one as
// the field error `field`).
std::optional<HttpResponse> CheckUrl(const HttpRequest& req, const std::string& url, bool allow_private,
                                     std::vector<FieldError>& errors, const std::string& field) {
  auto checked = CheckWebhookUrl(url, allow_private);
  if (checked.ok()) return std::nullopt;
  if (checked.status().api_code() == "URL_NOT_PUBLIC") return StatusToProblem(req, checked.status());
  errors.push_back({field, "/" + field, "invalid_format", checked.status().message()});
  return std::nullopt;
}

// A new signing secret of a scheme: a whsec_ secret (v1), or a whsk_ Ed25519 signing key (v1a),
// whose public key goes to `public_key`.
core::Result<std::string> NewEndpointSecret(std::string_view scheme, std::string& public_key) {
  if (scheme != "v1a") return pw::NewSecret();
  std::string key = pw::NewSigningKey();
  SVC_ASSIGN_OR_RETURN(public_key, pw::PublicKeyOf(key));
  return key;
}

// What the integrator is shown of the secret a create or rotation issued (`secret`): the one just
// made, or, for a replay of the same Idempotency-Key, the one the original issued (kept sealed);
// a v1 secret itself, for v1a the public key ("whpk_…") it verifies with — the signing key never
// leaves.
core::Result<std::string> ShownSecret(Runtime& rt, const AuthContext& a, const std::string& id,
                                      const commands::CommandOutcome& out, const std::string& secret) {
  auto issued = out.replayed ? pw::IssuedSecret(rt.store(), rt.key_store(), a.tenant_id, a.environment, id,
                                                out.aggregate_version)
                             : core::Result<std::string>(secret);
  if (!issued.ok() || !pw::IsSigningKey(*issued)) return issued;
  return pw::PublicKeyOf(*issued);
}

// The body of a create as the endpoint's command (its secret still to make and seal: `scheme`
// says which), or nullopt once answered.
std::optional<wh::CreateEndpoint> ParseEndpoint(const HttpRequest& req, const AuthContext& a, bool allow_private,
                                                const Respond& respond, std::string& scheme) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto url = v.String("url", true, 2048);
  auto application_id = v.OpaqueId("applicationId", "app");
  auto description = v.String("description", false, 500);
  auto environment = v.Enum("environment", false, {"live", "test"});
  scheme = v.Enum("signatureScheme", false, {"v1", "v1a"}).value_or("v1");
  const core::Json* events = body->contains("events") ? &(*body)["events"] : nullptr;
  v.Skip("events");
  v.RejectUnknown();
  std::vector<FieldError> errors = v.errors();
  std::string unknown;
  CheckEvents(events, errors, &unknown);
  if (environment.has_value() && *environment != a.environment) {
    errors.push_back({"environment", "/environment", "invalid_value",
                      "the key's environment decides: this key registers " + a.environment + " endpoints"});
  }
  std::optional<HttpResponse> refused;
  if (errors.empty() && unknown.empty()) refused = CheckUrl(req, *url, allow_private, errors, "url");
  if (!errors.empty()) refused = ValidationProblem(req, errors);
  else if (!unknown.empty()) refused = UnknownEvent(req, unknown);
  if (refused) {
    respond(std::move(*refused));
    return std::nullopt;
  }
  wh::CreateEndpoint c;
  c.environment = a.environment;
  c.url = *url;
  c.description = description ? core::Json(*description) : core::Json(nullptr);
  c.application_id = application_id ? core::Json(*application_id) : core::Json(nullptr);
  c.events = events != nullptr ? *events : core::Json(nullptr);
  return c;
}

void Create(Runtime& rt, const WebhooksOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  std::string scheme;
  auto c = ParseEndpoint(req, a, o.webhooks_allow_private_urls, respond, scheme);
  if (!c) return;
  std::string id = rt.ids().NewIdString(core::IdKind::kWebhook);
  auto made = NewEndpointSecret(scheme, c->public_key);
  if (!made.ok()) return respond(StatusToProblem(req, made.status()));
  std::string secret = std::move(*made);
  auto sealed = SealSecret(rt, a, id, secret);
  if (!sealed.ok()) return respond(StatusToProblem(req, sealed.status()));
  c->secret_sealed = *sealed;
  c->tenant_id = a.tenant_id;
  auto cmd =
      commands::MakeReadingCommand<wh::EndpointDecider>(a.tenant_id, id, wh::EndpointCommand(*c), Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {WV::kName},
                [&rt, a, id, secret, slim = SlimRequest(req)](const commands::CommandOutcome& out) {
                  // A replay of the same Idempotency-Key answers the original endpoint with the
                  // secret it was issued (kept sealed), so a caller whose first call timed out
                  // can still read it; no second endpoint is made.
                  std::string eid = out.replayed ? out.aggregate_id : id;
                  auto row = EndpointRow(rt, a, eid);
                  if (!row.ok()) return StatusToProblem(slim, row.status());
                  core::Json created = *row;
                  auto issued = ShownSecret(rt, a, eid, out, secret);
                  if (!issued.ok()) return StatusToProblem(slim, issued.status());
                  created["secret"] = *issued;
                  return JsonResponse(201, created);
                },
                std::move(respond));
}

void Get(Runtime& rt, ApiCall& call, Respond respond) {
  auto row = EndpointRow(rt, call.auth, call.request->path_params["endpoint_id"]);
  if (!row.ok()) return respond(StatusToProblem(*call.request, row.status()));
  respond(JsonResponse(200, *row));
}

// The `applicationId` filter of the two lists that take one: "" when absent, nullopt (answered) when
// malformed.
std::optional<std::string> ApplicationFilter(ApiCall& call, const Respond& respond) {
  auto query = ParseQuery(call.request->query);
  auto it = query.find("applicationId");
  if (it == query.end()) return std::string();
  if (!core::ValidateId(core::IdKind::kApplication, it->second).ok()) {
    respond(ValidationProblem(*call.request,
                              {{"applicationId", "", "invalid_id", "applicationId must be app_<32 lowercase hex>"}}));
    return std::nullopt;
  }
  return it->second;
}

void List(Runtime& rt, const WebhooksOptions& o, ApiCall& call, Respond respond) {
  auto filter = ApplicationFilter(call, respond);
  if (!filter) return;
  const std::string app = *filter;
  const std::string te = TeOf(call.auth);
  CursorList list;
  list.scope = "webhooks|" + te + "/|" + app;
  list.filters = {"applicationId"};
  list.index = WV::Abs(WV::Endpoints(te));
  list.row_key = [te](std::string_view entry) { return WV::Abs(WV::Endpoint(te, WV::IdOfEntry(entry))); };
  if (!app.empty()) {
    list.accept = [app](const core::Json& row) { return core::StringOr(row, "applicationId") == app; };
  }
  ServeCursorList(rt, o, call, list, std::move(respond));
}

// The body of a PATCH as the endpoint's changes (WebhookEndpointUpdate), or nullopt once answered.
std::optional<core::Json> ParseEndpointChanges(const HttpRequest& req, bool allow_private, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  std::vector<FieldError> errors;
  core::Json changes = core::Json::object();
  std::string unknown;
  for (auto it = body->begin(); it != body->end(); ++it) {
    const std::string& k = it.key();
    const core::Json& val = *it;
    const std::string ptr = "/" + k;
    if (k == "url" && !val.is_string()) {
      errors.push_back({k, ptr, "invalid_type", "url must be a string"});
    } else if (k == "url") {
      const size_t before = errors.size();
      if (auto refused = CheckUrl(req, val.get<std::string>(), allow_private, errors, k)) {
        respond(std::move(*refused));
        return std::nullopt;
      }
      if (errors.size() == before) changes[k] = val;
    } else if (k == "description" && !val.is_null() && !(val.is_string() && val.get<std::string>().size() <= 500)) {
      errors.push_back({k, ptr, "invalid_type", "description must be null or a string of at most 500 characters"});
    } else if (k == "applicationId" && !val.is_null() &&
               !(val.is_string() && core::ValidateId(core::IdKind::kApplication, val.get<std::string>()).ok())) {
      errors.push_back({k, ptr, val.is_string() ? "invalid_id" : "invalid_type", "applicationId must be null or app_<32 lowercase hex>"});
    } else if (k == "description" || k == "applicationId") {
      changes[k] = val;
    } else if (k == "events") {
      CheckEvents(&val, errors, &unknown);
      changes[k] = val;
    } else if (k == "isActive" && !val.is_null() && !val.is_boolean()) {
      errors.push_back({k, ptr, "invalid_type", "isActive must be a boolean"});
    } else if (k == "isActive") {
      if (!val.is_null()) changes[k] = val;  // null: unchanged
    } else {
      errors.push_back({k, ptr, "unknown_field", k + " is not a field of WebhookEndpointUpdate"});
    }
  }
  if (!errors.empty() || !unknown.empty()) {
    respond(!errors.empty() ? ValidationProblem(req, errors) : UnknownEvent(req, unknown));
    return std::nullopt;
  }
  return changes;
}

void Patch(Runtime& rt, const WebhooksOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["endpoint_id"];
  auto existing = EndpointRow(rt, call.auth, id);
  if (!existing.ok()) return respond(StatusToProblem(req, existing.status()));
  auto changes = ParseEndpointChanges(req, o.webhooks_allow_private_urls, respond);
  if (!changes) return;
  wh::UpdateEndpoint u;
  u.changes = std::move(*changes);
  u.reason = "api";
  u.tenant_id = call.auth.tenant_id;
  auto cmd = commands::MakeReadingCommand<wh::EndpointDecider>(call.auth.tenant_id, id, wh::EndpointCommand(u),
                                                               Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {WV::kName},
                [&rt, a = call.auth, id](const commands::CommandOutcome&) {
                  auto row = EndpointRow(rt, a, id);
                  return row.ok() ? JsonResponse(200, *row) : JsonResponse(200, {{"id", id}});
                },
                std::move(respond));
}

void Rotate(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["endpoint_id"];
  auto existing = EndpointRow(rt, call.auth, id);
  if (!existing.ok()) return respond(StatusToProblem(req, existing.status()));
  wh::RotateSecret r;  // a new secret of the endpoint's scheme
  auto made = NewEndpointSecret(core::StringOr(*existing, "signatureScheme"), r.public_key);
  if (!made.ok()) return respond(StatusToProblem(req, made.status()));
  std::string secret = std::move(*made);
  auto sealed = SealSecret(rt, call.auth, id, secret);
  if (!sealed.ok()) return respond(StatusToProblem(req, sealed.status()));
  r.secret_sealed = *sealed;
  auto cmd = commands::MakeCommand<wh::EndpointDecider>(call.auth.tenant_id, id, wh::EndpointCommand(r), Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {WV::kName},
                [&rt, a = call.auth, id, secret, slim = SlimRequest(req)](const commands::CommandOutcome& out) {
                  auto row = EndpointRow(rt, a, id);
                  core::Json body = row.ok() ? *row : core::Json{{"id", id}};
                  // The same Idempotency-Key again (within its 24 hours): no second rotation,
                  // and the same answer, secret included, so a caller whose first call timed
                  // out has not lost the new secret. It is kept sealed until then.
                  auto issued = ShownSecret(rt, a, out.replayed ? out.aggregate_id : id, out, secret);
                  if (!issued.ok()) return StatusToProblem(slim, issued.status());
                  body["secret"] = *issued;
                  return JsonResponse(200, body);
                },
                std::move(respond));
}

void VerifySignature(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["endpoint_id"];
  auto existing = EndpointRow(rt, a, id);
  if (!existing.ok()) return respond(StatusToProblem(req, existing.status()));
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto message_id = v.String("messageId", true, 256);
  auto payload = v.String("payload", true, 1 << 20);
  auto signature = v.String("signature", true, 4096);
  const std::optional<int64_t> timestamp = v.Integer("timestamp", true, 0, INT64_MAX);  // Unix seconds
  v.Skip("timestamp");
  v.RejectUnknown();
  if (!v.errors().empty()) return respond(ValidationProblem(req, v.errors()));
  // The expected signature only of a message this endpoint was sent (same id, same bytes); of any
  // other payload it is "" and only `valid` is answered (docs/webhooks.md#verify-signature).
  auto delivered = projections::DeliveredMessage(
      rt.store(), TeOf(a), id, *message_id, *payload, [&rt, &a](std::string kept) {
        return pipeline::verification::WebhookBodyAsSent(rt.key_store(), a.tenant_id, a.environment, std::move(kept));
      });
  if (!delivered.ok()) return respond(StatusToProblem(req, delivered.status()));
  auto secret = pw::CurrentEndpointSecret(rt.store(), rt.key_store(), a.tenant_id, a.environment, id);
  if (!secret.ok()) return respond(StatusToProblem(req, secret.status()));
  auto expected = pw::Sign(*secret, *message_id, *timestamp, *payload);
  if (!expected.ok()) return respond(StatusToProblem(req, expected.status()));
  // The check is of the signature only (constant-time); the timestamp is the caller's to judge,
  // so any time is accepted here.
  bool valid = pw::Verify(*secret, *message_id, std::to_string(*timestamp), *payload, *signature, *timestamp).ok();
  respond(JsonResponse(200, {{"expectedSignature", *delivered ? *expected : std::string()}, {"valid", valid}}));
}

// POST …/{id}/test: one signed delivery now, outside the queue (no delivery record), answered
// with what was sent and what the receiver said.
void TestDelivery(Runtime& rt, const WebhooksOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext a = call.auth;
  const std::string id = req.path_params["endpoint_id"];
  auto ep = EndpointRow(rt, a, id);
  if (!ep.ok()) return respond(StatusToProblem(req, ep.status()));
  std::string type = "service.test";
  if (!req.body.empty()) {
    auto body = ParseJsonObject(req.body);
    if (!body.ok()) return respond(StatusToProblem(req, body.status()));
    Validator v(*body);
    auto t = v.String("eventType", false, 128);
    v.RejectUnknown();
    if (!v.errors().empty()) return respond(ValidationProblem(req, v.errors()));
    if (t.has_value()) {
      bool known = false;
      for (const auto& et : pw::EventTypes()) known |= et.type == *t;
      if (!known) return respond(UnknownEvent(req, *t));
      type = *t;
    }
  }
  if (!ep->value("isActive", false)) {
    return respond(Problem(req, "WEBHOOK_ENDPOINT_INACTIVE", "the endpoint is deactivated; PATCH isActive=true first"));
  }
  auto work = [&rt, &o, a, id, type, url = ep->value("url", ""), slim = SlimRequest(req), respond]() {
    auto sent = pw::SendTestDelivery({&rt.store(), &rt.key_store(), &rt.clock(), &rt.ids(), o.webhook_send},
                                     a.tenant_id, a.environment, id, type, url);
    respond(sent.ok() ? JsonResponse(200, *sent) : StatusToProblem(slim, sent.status()));
  };
  if (o.work_pool == nullptr) return work();
  o.work_pool->Post(std::move(work));
}

// POST …/deliveries/{id}/retry: a new delivery of the same event with the endpoint's current URL
// and secret; the original stays. 409 WEBHOOK_ENDPOINT_INACTIVE when the endpoint is inactive.
void Retry(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext a = call.auth;
  std::string id = req.path_params["delivery_id"];
  if (auto st = core::ValidateId(core::IdKind::kDelivery, id); !st.ok()) return respond(StatusToProblem(req, st));
  std::string te = TeOf(a);
  auto endpoint = projections::RetryEndpoint(rt.store(), te, id);
  if (!endpoint.ok()) return respond(StatusToProblem(req, endpoint.status()));
  commands::webhooks::RetryDelivery r;
  r.new_delivery_id = rt.ids().NewIdString(core::IdKind::kDelivery);
  r.endpoint_id = *endpoint;
  auto cmd = commands::MakeCommand<commands::webhooks::DeliveryDecider>(
      a.tenant_id, id, commands::webhooks::DeliveryCommand(r), Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {WV::kName},
                [&rt, te](const commands::CommandOutcome& out) {
                  std::string fresh = core::StringOr(out.result, "deliveryId");
                  auto row = ReadView(rt, WV::Abs(WV::Delivery(te, fresh)));
                  if (!row.ok() || !row->has_value()) return JsonResponse(200, {{"id", fresh}});
                  return JsonResponse(200, **row);
                },
                std::move(respond));
}

void Deliveries(Runtime& rt, const WebhooksOptions& o, ApiCall& call, bool one_endpoint, Respond respond) {
  const std::string te = TeOf(call.auth);
  CursorList list;
  list.index = WV::Abs(WV::Deliveries(te));
  std::string app;
  if (!one_endpoint) {
    auto filter = ApplicationFilter(call, respond);
    if (!filter) return;
    app = *filter;
  }
  if (!app.empty()) {
    // A delivery belongs to the application of its endpoint: the endpoints of the tenant are few,
    // read once per page.
    auto endpoints = ScanView(rt, WV::Abs(WV::Endpoint(te, "")));
    if (!endpoints.ok()) return respond(StatusToProblem(*call.request, endpoints.status()));
    auto of_app = std::make_shared<std::set<std::string>>();
    for (const auto& ep : *endpoints) {
      if (core::StringOr(ep, "applicationId") == app) of_app->insert(core::StringOr(ep, "id"));
    }
    list.filters = {"applicationId"};
    list.accept = [of_app](const core::Json& row) { return of_app->count(core::StringOr(row, "endpointId")) != 0; };
  }
  if (one_endpoint) {
    std::string id = call.request->path_params["endpoint_id"];
    auto ep = EndpointRow(rt, call.auth, id);
    if (!ep.ok()) return respond(StatusToProblem(*call.request, ep.status()));
    list.index = WV::Abs(WV::EndpointDeliveries(te, id));
  }
  list.scope = "deliveries|" + list.index + "|" + app;
  list.row_key = [te](std::string_view entry) { return WV::Abs(WV::Delivery(te, WV::IdOfEntry(entry))); };
  ServeCursorList(rt, o, call, list, std::move(respond));
}

void Attempts(Runtime& rt, const WebhooksOptions& o, ApiCall& call, Respond respond) {
  std::string id = call.request->path_params["delivery_id"];
  if (auto st = core::ValidateId(core::IdKind::kDelivery, id); !st.ok()) {
    return respond(StatusToProblem(*call.request, st));
  }
  const std::string te = TeOf(call.auth);
  auto dl = ReadView(rt, WV::Abs(WV::Delivery(te, id)));
  if (!dl.ok()) return respond(StatusToProblem(*call.request, dl.status()));
  if (!dl->has_value()) {
    return respond(StatusToProblem(*call.request, core::NotFound("no such delivery", "WEBHOOK_DELIVERY_NOT_FOUND")));
  }
  // Attempts in order (oldest first): the index is the attempt rows themselves.
  CursorList list;
  list.index = WV::Abs(WV::Attempts(te, id));
  list.scope = "attempts|" + te + "/" + id;
  list.row_key = [index = list.index](std::string_view entry) { return index + std::string(entry); };
  ServeCursorList(rt, o, call, list, std::move(respond));
}

}  // namespace

core::Json WebhookDeliveryPolicyJson(const WebhooksOptions& o) {
  const auto& p = o.webhook_policy;
  return {{"backoffBaseSeconds", p.backoff_base_seconds},
          {"httpTimeoutSeconds", p.http_timeout_seconds},
          {"maxBackoffSeconds", p.max_backoff_seconds},
          {"rateLimitDefaultRpm", p.rate_limit_default_rpm},
          {"recommendedToleranceSeconds", pw::kDefaultToleranceSeconds},
          {"permanentVsTransientRule",
           "2xx = delivered; 4xx = permanent, not retried (410 Gone also deactivates the endpoint); "
           "5xx, timeouts and connection errors = transient, retried"},
          {"retryBudgetNote",
           "retries with exponential, jittered waits from backoffBaseSeconds up to maxBackoffSeconds, "
           "honouring Retry-After, for up to " + std::to_string(p.retry_budget_hours) +
               " hours after the delivery was created; then the delivery is failed (retry it by hand). "
               "rateLimitDefaultRpm: deliveries per minute to one endpoint (0 = no limit); waiting for it is "
               "not an attempt"},
          {"signatureScheme", "Standard Webhooks v1: HMAC-SHA256 over {webhook-id}.{webhook-timestamp}.{body}, "
                              "key = base64-decoded secret after whsec_; or, for an endpoint created with "
                              "signatureScheme v1a, Ed25519 over the same content, verified with the endpoint's "
                              "public key (whpk_ + base64 of 32 bytes); two signatures during 24 h after a rotation"}};
}

std::vector<ApiRoute> WebhookRoutes(Runtime* r, const WebhooksOptions& options) {
  std::vector<ApiRoute> routes;
  const WebhooksOptions* o = &options;
  const std::vector<std::string> lookup = {"INVALID_ID", "WEBHOOK_NOT_FOUND"};
  auto with = [&](std::vector<std::string> extra) { return Codes({lookup, extra}); };
  const std::string base = "/v1/developer/webhooks";
  const std::string tag = "Webhooks";
  const std::vector<std::string>& idem = IdempotencyErrors();
  std::vector<QueryParam> list_query = {{"applicationId", {{"type", "string"}, {"pattern", "^app_[0-9a-f]{32}$"}},
                                         "only endpoints of this application"}};
  for (auto& q : PageParams(false)) list_query.push_back(q);
  routes.push_back(ApiRoute{
      .method = "GET", .path = base, .operation_id = "listWebhookEndpoints", .tag = tag,
      .scope = "webhook:read", .query = list_query,
      .response_schema = "WebhookEndpointList",
      .error_codes = {"INVALID_ID", "VALIDATION_ERROR", "BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"},
      .handler = [r, o](ApiCall& c, Respond respond) { List(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base, .operation_id = "createWebhookEndpoint", .tag = tag,
      .scope = "webhook:write", .family = RateFamily::kWrite,
      .idempotency = IdempotencyRule::kOptional, .has_body = true,
      .request_schema = "WebhookEndpointCreate", .success_status = 201,
      .response_schema = "WebhookEndpointCreated",
      .error_codes = Codes({{"INVALID_ID", "VALIDATION_ERROR", "UNKNOWN_EVENT_TYPE", "URL_NOT_PUBLIC",
                             "APPLICATION_NOT_FOUND"},
                            idem}),
      .handler = [r, o](ApiCall& c, Respond respond) { Create(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/event-types", .operation_id = "listWebhookEventTypes",
      .tag = tag, .scope = "webhook:read", .response_schema = "WebhookEventTypeCatalog",
      .handler = [](ApiCall&, Respond respond) { respond(JsonResponse(200, pw::CatalogueJson())); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/delivery-policy", .operation_id = "getWebhookDeliveryPolicy",
      .tag = tag, .scope = "webhook:read", .response_schema = "WebhookDeliveryPolicy",
      .handler = [o](ApiCall&, Respond respond) { respond(JsonResponse(200, WebhookDeliveryPolicyJson(*o))); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/deliveries", .operation_id = "listWebhookDeliveries",
      .tag = tag, .scope = "webhook:read", .query = list_query, .response_schema = "WebhookDeliveryList",
      .error_codes = {"BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"},
      .handler = [r, o](ApiCall& c, Respond respond) { Deliveries(*r, *o, c, false, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{endpoint_id}/deliveries",
      .operation_id = "listWebhookEndpointDeliveries", .tag = tag,
      .scope = "webhook:read",
      .query = PageParams(false), .response_schema = "WebhookDeliveryList",
      .error_codes = with({"BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"}),
      .handler = [r, o](ApiCall& c, Respond respond) { Deliveries(*r, *o, c, true, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/deliveries/{delivery_id}/attempts",
      .operation_id = "listWebhookDeliveryAttempts", .tag = tag,
      .scope = "webhook:read", .query = PageParams(false),
      .response_schema = "WebhookDeliveryAttemptList",
      .error_codes = {"INVALID_ID", "WEBHOOK_DELIVERY_NOT_FOUND", "BAD_REQUEST", "INVALID_CURSOR",
                      "LIMIT_OUT_OF_RANGE"},
      .handler = [r, o](ApiCall& c, Respond respond) { Attempts(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/deliveries/{delivery_id}/retry",
      .operation_id = "retryWebhookDelivery", .tag = tag,
      .scope = "webhook:write", .family = RateFamily::kWrite,
      .idempotency = IdempotencyRule::kOptional, .response_schema = "WebhookDeliveryResponse",
      .error_codes = Codes({{"INVALID_ID", "WEBHOOK_DELIVERY_NOT_FOUND", "WEBHOOK_NOT_FOUND",
                           "WEBHOOK_ENDPOINT_INACTIVE"}, idem}),
      .handler = [r](ApiCall& c, Respond respond) { Retry(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{endpoint_id}", .operation_id = "getWebhookEndpoint",
      .tag = tag, .scope = "webhook:read", .response_schema = "WebhookEndpointResponse", .error_codes = lookup,
      .handler = [r](ApiCall& c, Respond respond) { Get(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "PATCH", .path = base + "/{endpoint_id}", .operation_id = "updateWebhookEndpoint",
      .tag = tag, .scope = "webhook:write", .family = RateFamily::kWrite,
      .idempotency = IdempotencyRule::kOptional, .has_body = true,
      .request_schema = "WebhookEndpointUpdate", .response_schema = "WebhookEndpointResponse",
      .error_codes = Codes({with({"VALIDATION_ERROR", "UNKNOWN_EVENT_TYPE", "URL_NOT_PUBLIC", "APPLICATION_NOT_FOUND"}),
                            idem}),
      .handler = [r, o](ApiCall& c, Respond respond) { Patch(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/{endpoint_id}/rotate-secret",
      .operation_id = "rotateWebhookSecret", .tag = tag, .scope = "webhook:write", .family = RateFamily::kWrite,
      .idempotency = IdempotencyRule::kOptional, .response_schema = "WebhookEndpointCreated",
      .error_codes = Codes({lookup, idem}),
      .handler = [r](ApiCall& c, Respond respond) { Rotate(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/{endpoint_id}/test", .operation_id = "testWebhookEndpoint",
      .tag = tag, .scope = "webhook:write", .family = RateFamily::kWrite, .has_body = true,
      .request_schema = "WebhookTestRequest", .response_schema = "WebhookTestResult",
      .error_codes = with({"VALIDATION_ERROR", "UNKNOWN_EVENT_TYPE", "WEBHOOK_ENDPOINT_INACTIVE"}),
      .handler = [r, o](ApiCall& c, Respond respond) { TestDelivery(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/{endpoint_id}/verify-signature",
      .operation_id = "verifyWebhookSignature", .tag = tag,
      .scope = "webhook:read", .has_body = true, .request_schema = "WebhookSignatureVerifyRequest",
      .response_schema = "WebhookSignatureVerifyResult", .error_codes = with({"VALIDATION_ERROR"}),
      .handler = [r](ApiCall& c, Respond respond) { VerifySignature(*r, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api
