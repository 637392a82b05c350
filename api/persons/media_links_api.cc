// Media links (issue 16): a short-lived signed link to view one capture, for a reviewer's browser
// or an <img> that cannot send an API key.
//   POST /v1/media-links          (persons:read_pii) a reveal: audited and on the day's budget
//   GET  /v1/media-links/{token}  no Authorization: the link is the credential; each view is
//                                 audited too (actor: the link)
// The token is "mlk1.<payload>.<mac>": the payload (base64url JSON: link id, tenant, environment,
// session, capture, person, application, purpose, expiry) and an HMAC-SHA256 of both under a key
// derived from the data directory's root key. An altered, truncated or expired link is 403 MEDIA_LINK_INVALID,
// whatever was altered; the link names ids only, never personal data.
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/persons/persons_common.h"
#include "api/persons/routes.h"
#include "commands/persons/reveal_budget.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/persons/media_links.h"
#include "pipeline/persons/purposes.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/sessions_view.h"
#include "projections/verification_view.h"

namespace svc::api::persons {

namespace ps = commands::persons;
namespace pp = pipeline::persons;
using PV = projections::PersonsView;
using SV = projections::SessionsView;
using VV = projections::VerificationView;

namespace {

constexpr int64_t kDefaultTtl = 300;
constexpr int64_t kMinTtl = 30;
constexpr int64_t kMaxTtl = 3600;

struct LinkRequest {
  std::string session, media, purpose, reason;
  int64_t ttl = kDefaultTtl;
};

// The body of POST /v1/media-links, or nullopt once answered.
std::optional<LinkRequest> ParseLink(const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto session = v.OpaqueId("sessionId", "vrf", true);
  auto media = v.OpaqueId("mediaId", "med", true);
  auto purpose = v.String("purpose", true, 64);
  v.Skip("reason");
  const int64_t ttl = v.Integer("expiresInSeconds", false, kMinTtl, kMaxTtl).value_or(kDefaultTtl);
  v.RejectUnknown();
  const core::Json reason = body->value("reason", core::Json());
  std::optional<HttpResponse> refused;
  if (!v.ok()) {
    refused = ValidationProblem(req, v.errors());
  } else if (!reason.is_string() || reason.get<std::string>().empty() || reason.get<std::string>().size() > 2000) {
    refused = Problem(req, "PII_ACCESS_REASON_REQUIRED",
                      "reason (1-2000 characters) must say why the capture is viewed; it is recorded");
  } else if (!pipeline::persons::IsKnownPurpose(*purpose)) {
    refused = Problem(req, "PURPOSE_UNKNOWN", "purpose is not in the purpose catalogue (docs/persons.md#purposes)");
  }
  if (refused) {
    respond(std::move(*refused));
    return std::nullopt;
  }
  return LinkRequest{*session, *media, *purpose, reason.get<std::string>(), ttl};
}

// The capture a link would show (held, not purged) and the session's person ("" = none), whose
// state, consents and the key's grant decide as for any reveal; a problem otherwise.
core::Result<std::pair<core::Json, std::string>> LinkTarget(Runtime& rt, const AuthContext& a, const LinkRequest& r) {
  const std::string te = TeOf(a);
  SVC_ASSIGN_OR_RETURN(auto record, ReadView(rt, SV::Abs(SV::Record(te, r.session))));
  if (!record.has_value()) return core::NotFound("no such verification session", "SESSION_NOT_FOUND");
  SVC_ASSIGN_OR_RETURN(auto capture, CaptureRow(rt, a.tenant_id, a.environment, r.session, r.media));
  if (!capture.has_value() || !(*capture)["purgedAt"].is_null() || core::StringOr(*capture, "blob").empty()) {
    return core::NotFound("the session holds no such capture (or its bytes were purged)", "MEDIA_NOT_FOUND");
  }
  SVC_ASSIGN_OR_RETURN(auto linked, rt.store().Get(rt.store().Cf(projections::kViewsCf), PV::Abs(PV::SessionPerson(te, r.session))));
  if (linked.has_value()) {
    SVC_ASSIGN_OR_RETURN(auto row, ActivePersonRow(rt, a, *linked));
    SVC_RETURN_IF_ERROR(CheckRevealAllowed(rt, a, row, {}, r.purpose));
  }
  return std::pair{std::move(*capture), linked.value_or("")};
}

void Create(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  auto r = ParseLink(req, respond);
  if (!r) return;
  auto target = LinkTarget(rt, a, *r);
  if (!target.ok()) return respond(StatusToProblem(req, target.status()));
  const auto& [capture, person] = *target;
  const core::Timestamp expires{rt.clock().Now().micros + r->ttl * 1'000'000};
  pp::MediaLink link{"mlk_" + core::Sha256Hex(core::RandomBytes(32)).substr(0, 32), a.tenant_id, a.environment,
                     r->session, r->media, person, a.application_id, r->purpose, expires.micros};
  const std::string kind = core::StringOr(capture, "kind");
  core::Json answer = {{"object", "media_link"},
                       {"id", link.id},
                       {"url", o.public_base_url + "/v1/media-links/" + pp::MediaLinkToken(rt.seal_key(), link)},
                       {"sessionId", r->session},
                       {"mediaId", r->media},
                       {"kind", kind},
                       {"mime", capture["mime"]},
                       {"personId", person.empty() ? core::Json(nullptr) : core::Json(person)},
                       {"expiresAt", core::FormatRfc3339(expires)}};
  RecordThen(rt, o, call, {AccessBy(a, person, "media_link", {"capture:" + kind}, r->purpose, r->reason)},
             [answer] { return JsonResponse(201, answer); }, std::move(respond));
}

void View(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto link = pp::ReadMediaLinkToken(rt.seal_key(), req.path_params["token"], rt.clock().Now().micros);
  if (!link) return respond(Problem(req, "MEDIA_LINK_INVALID", "the link is altered, incomplete or expired: ask for a new one"));
  const std::string& tenant = link->tenant, &env = link->environment, &session = link->session_id, &media = link->media_id;
  auto capture = CaptureRow(rt, tenant, env, session, media);
  if (!capture.ok()) return respond(StatusToProblem(req, capture.status()));
  auto gone = [&] { respond(Problem(req, "MEDIA_NOT_FOUND", "the capture's bytes are no longer held (purged)")); };
  if (!capture->has_value()) return gone();
  auto bytes = OpenCapture(rt, tenant, env, session, **capture);
  if (!bytes.ok()) return respond(StatusToProblem(req, bytes.status()));
  if (!bytes->has_value()) return gone();
  // The view is recorded against the day's budget before a byte leaves; the actor is the link.
  ps::PiiAccessed e;
  e.person_id = link->person_id;
  e.application_id = link->application_id;
  e.actor_type = "media_link";
  e.actor_id = link->id;
  e.channel = "media_link_view";
  e.fields = {"capture:" + core::StringOr(**capture, "kind")};
  e.purpose = link->purpose;
  e.redaction = "plain";
  ps::RecordReveal rr;
  rr.accesses = {e};
  rr.cap = o.limits.reveal_budget_per_day;
  commands::CommandContext ctx = commands::SystemContext(rt.clock().Now(), &rt.ids(), "media-link", env);
  ctx.request_id = req.request_id;
  auto cmd = commands::MakeCommand<ps::RevealBudgetDecider>(tenant, ps::RevealBudgetId(env, ctx.now), rr, ctx);
  const std::string mime = core::StringOr(**capture, "mime");
  rt.writer().Execute(std::move(cmd), [slim = SlimRequest(req), mime, opened = **bytes, pool = o.work_pool,
                                       respond = std::move(respond)](core::Result<commands::CommandOutcome> r) mutable {
    if (!r.ok()) return respond(StatusToProblem(slim, r.status()));
    respond(CaptureResponse(mime, opened, pool));
  });
}

}  // namespace

std::vector<ApiRoute> MediaLinkRoutes(Runtime* r, const PersonsOptions& options) {
  const PersonsOptions* o = &options;
  const std::string tag = "Persons (vault)";
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/media-links", .operation_id = "createMediaLink", .tag = tag,
      .scope = "persons:read_pii", .family = RateFamily::kReveal, .has_body = true,
      .request_schema = "MediaLinkRequest", .success_status = 201, .response_schema = "MediaLink",
      .error_codes = Codes({{"VALIDATION_ERROR", "BAD_REQUEST", "INVALID_ID", "PII_ACCESS_REASON_REQUIRED",
                             "PURPOSE_UNKNOWN", "SESSION_NOT_FOUND", "MEDIA_NOT_FOUND", "PERSON_PURGED",
                             "PERSON_FORGET_PENDING", "PERSON_ALREADY_MERGED", "CONSENT_REQUIRED", "FIELD_NOT_GRANTED",
                             "GRANT_PURPOSE_NOT_ALLOWED", "PII_DECRYPT_CAP_REACHED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Create(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/media-links/{token}", .operation_id = "viewMediaLink", .tag = tag,
      .link_credential = true, .guard = {"media_link_view", "MEDIA_LINK_INVALID"},
      .response_schema = "MediaLinkContent", .response_content_type = "application/octet-stream",
      .error_codes = Codes({{"MEDIA_LINK_INVALID", "MEDIA_NOT_FOUND", "PII_DECRYPT_CAP_REACHED", "RATE_LIMITED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { View(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::persons
