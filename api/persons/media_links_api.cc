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
#include "pipeline/persons/purposes.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/sessions_view.h"
#include "projections/verification_view.h"

namespace svc::api::persons {

namespace ps = commands::persons;
using PV = projections::PersonsView;
using SV = projections::SessionsView;
using VV = projections::VerificationView;

namespace {

constexpr std::string_view kVersion = "mlk1.";
constexpr int64_t kDefaultTtl = 300;
constexpr int64_t kMinTtl = 30;
constexpr int64_t kMaxTtl = 3600;

std::string LinkKey(Runtime& rt) { return core::DeriveSubkey(rt.seal_key(), "svc/media-link/v1"); }

std::string Mac(Runtime& rt, std::string_view signed_part) {
  return core::Base64UrlEncode(core::HmacSha256(LinkKey(rt), signed_part));
}

// The capture's row in the verification read model, if the session has it.

void Create(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto session = v.OpaqueId("sessionId", "vrf", true);
  auto media = v.OpaqueId("mediaId", "med", true);
  auto purpose = v.String("purpose", true, 64);
  v.Skip("reason");
  const int64_t ttl = v.Integer("expiresInSeconds", false, kMinTtl, kMaxTtl).value_or(kDefaultTtl);
  v.RejectUnknown();
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  const core::Json reason = body->value("reason", core::Json());
  if (!reason.is_string() || reason.get<std::string>().empty() || reason.get<std::string>().size() > 2000) {
    return respond(Problem(req, "PII_ACCESS_REASON_REQUIRED",
                           "reason (1-2000 characters) must say why the capture is viewed; it is recorded"));
  }
  if (!pipeline::persons::IsKnownPurpose(*purpose)) {
    return respond(Problem(req, "PURPOSE_UNKNOWN", "purpose is not in the purpose catalogue (docs/persons.md#purposes)"));
  }
  const std::string te = TeOf(a);
  auto record = ReadView(rt, SV::Abs(SV::Record(te, *session)));
  if (!record.ok()) return respond(StatusToProblem(req, record.status()));
  if (!record->has_value()) return respond(Problem(req, "SESSION_NOT_FOUND", "no such verification session"));
  auto capture = CaptureRow(rt, a.tenant_id, a.environment, *session, *media);
  if (!capture.ok()) return respond(StatusToProblem(req, capture.status()));
  if (!capture->has_value() || !(**capture)["purgedAt"].is_null() || core::StringOr(**capture, "blob").empty()) {
    return respond(Problem(req, "MEDIA_NOT_FOUND", "the session holds no such capture (or its bytes were purged)"));
  }
  // The session's person, when it has one: the capture is theirs, and their state, consents and
  // the key's grant decide as for any reveal.
  std::string person;
  auto linked = rt.store().Get(rt.store().Cf(projections::kViewsCf), PV::Abs(PV::SessionPerson(te, *session)));
  if (!linked.ok()) return respond(StatusToProblem(req, linked.status()));
  if (linked->has_value()) {
    person = **linked;
    auto row = ActivePersonRow(rt, a, person);
    if (!row.ok()) return respond(StatusToProblem(req, row.status()));
    if (auto st = CheckRevealAllowed(rt, a, *row, {}, *purpose); !st.ok()) return respond(StatusToProblem(req, st));
  }
  const std::string kind = core::StringOr(**capture, "kind");
  const core::Timestamp expires{rt.clock().Now().micros + ttl * 1'000'000};
  const std::string link_id = "mlk_" + core::Sha256Hex(core::RandomBytes(32)).substr(0, 32);
  core::Json payload = {{"id", link_id},      {"t", a.tenant_id}, {"e", a.environment}, {"s", *session},
                        {"m", *media},        {"p", person},      {"a", a.application_id}, {"u", *purpose},
                        {"x", expires.micros}};
  const std::string signed_part = std::string(kVersion) + core::Base64UrlEncode(core::DumpJson(payload));
  const std::string token = signed_part + "." + Mac(rt, signed_part);
  core::Json answer = {{"object", "media_link"},
                       {"id", link_id},
                       {"url", o.public_base_url + "/v1/media-links/" + token},
                       {"sessionId", *session},
                       {"mediaId", *media},
                       {"kind", kind},
                       {"mime", (**capture)["mime"]},
                       {"personId", person.empty() ? core::Json(nullptr) : core::Json(person)},
                       {"expiresAt", core::FormatRfc3339(expires)}};
  RecordThen(rt, o, call,
             {AccessBy(a, person, "media_link", {"capture:" + kind}, *purpose, reason.get<std::string>())},
             [answer] { return JsonResponse(201, answer); }, std::move(respond));
}

void View(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string token = req.path_params["token"];
  auto invalid = [&] {
    respond(Problem(req, "MEDIA_LINK_INVALID", "the link is altered, incomplete or expired: ask for a new one"));
  };
  const size_t dot = token.rfind('.');
  if (token.rfind(kVersion, 0) != 0 || dot == std::string::npos || dot <= kVersion.size()) return invalid();
  const std::string signed_part = token.substr(0, dot);
  if (!core::ConstantTimeEquals(token.substr(dot + 1), Mac(rt, signed_part))) return invalid();
  auto text = core::Base64UrlDecode(std::string_view(signed_part).substr(kVersion.size()));
  if (!text.ok()) return invalid();
  const core::Json p = core::ParseJsonOrDiscarded(*text);
  if (!p.is_object() || !p.value("x", core::Json()).is_number_integer() ||
      p["x"].get<int64_t>() <= rt.clock().Now().micros) {
    return invalid();
  }
  const std::string tenant = core::StringOr(p, "t"), env = core::StringOr(p, "e"), session = core::StringOr(p, "s"),
                    media = core::StringOr(p, "m");
  auto capture = CaptureRow(rt, tenant, env, session, media);
  if (!capture.ok()) return respond(StatusToProblem(req, capture.status()));
  auto gone = [&] { respond(Problem(req, "MEDIA_NOT_FOUND", "the capture's bytes are no longer held (purged)")); };
  if (!capture->has_value()) return gone();
  auto bytes = OpenCapture(rt, tenant, env, session, **capture);
  if (!bytes.ok()) return respond(StatusToProblem(req, bytes.status()));
  if (!bytes->has_value()) return gone();
  // The view is recorded against the day's budget before a byte leaves; the actor is the link.
  ps::PiiAccessed e;
  e.person_id = core::StringOr(p, "p");
  e.application_id = core::StringOr(p, "a");
  e.actor_type = "media_link";
  e.actor_id = core::StringOr(p, "id");
  e.channel = "media_link_view";
  e.fields = {"capture:" + core::StringOr(**capture, "kind")};
  e.purpose = core::StringOr(p, "u");
  e.redaction = "plain";
  ps::RecordReveal rr;
  rr.accesses = {e};
  rr.cap = o.limits.reveal_budget_per_day;
  commands::CommandContext ctx = commands::SystemContext(rt.clock().Now(), &rt.ids(), "media-link", env);
  ctx.request_id = req.request_id;
  auto cmd = commands::MakeCommand<ps::RevealBudgetDecider>(tenant, ps::RevealBudgetId(env, ctx.now), rr, ctx);
  const std::string mime = core::StringOr(**capture, "mime");
  rt.writer().Execute(std::move(cmd), [slim = SlimRequest(req), mime, bytes = std::move(**bytes),
                                       respond = std::move(respond)](core::Result<commands::CommandOutcome> r) mutable {
    if (!r.ok()) return respond(StatusToProblem(slim, r.status()));
    respond(CaptureResponse(mime, std::move(bytes)));
  });
}

}  // namespace

std::vector<ApiRoute> MediaLinkRoutes(Runtime* rt, const PersonsOptions& options) {
  Runtime* r = rt;
  const PersonsOptions* o = &options;
  const std::string tag = "Persons (vault)";
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/media-links", .operation_id = "createMediaLink", .tag = tag,
      .summary = "A short-lived signed link to view one capture",
      .description = "A reveal: the link's creation is recorded in the access log against the day's reveal budget "
                     "(channel `media_link`, with `purpose` and `reason`), and so is every view of it (channel "
                     "`media_link_view`, the link as actor). The capture's person, when the session has one, must be "
                     "active and the key's consents and grant allow the purpose. The `url` needs no API key and "
                     "works until `expiresAt` (`expiresInSeconds`, 30-3600, default 300); an altered or expired link "
                     "is 403 `MEDIA_LINK_INVALID`.",
      .scope = "persons:read_pii", .family = RateFamily::kReveal, .has_body = true,
      .request_schema = "MediaLinkRequest", .success_status = 201, .response_schema = "MediaLink",
      .error_codes = Codes({{"VALIDATION_ERROR", "BAD_REQUEST", "INVALID_ID", "PII_ACCESS_REASON_REQUIRED",
                             "PURPOSE_UNKNOWN", "SESSION_NOT_FOUND", "MEDIA_NOT_FOUND", "PERSON_PURGED",
                             "PERSON_FORGET_PENDING", "PERSON_ALREADY_MERGED", "CONSENT_REQUIRED", "FIELD_NOT_GRANTED",
                             "GRANT_PURPOSE_NOT_ALLOWED", "PII_DECRYPT_CAP_REACHED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Create(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/media-links/{token}", .operation_id = "viewMediaLink", .tag = tag,
      .summary = "View the capture a media link names",
      .description = "No Authorization: the signed link is the credential. Answers the capture's bytes with its "
                     "`mime` (`Cache-Control: no-store`, a sandboxing CSP). 403 `MEDIA_LINK_INVALID` when the link "
                     "is altered, truncated or expired; 404 `MEDIA_NOT_FOUND` when the capture's bytes were purged "
                     "(retention, or the person's forget) since the link was made.",
      .link_credential = true, .guard = {"media_link_view", "MEDIA_LINK_INVALID"},
      .response_schema = "MediaLinkContent", .response_content_type = "application/octet-stream",
      .error_codes = Codes({{"MEDIA_LINK_INVALID", "MEDIA_NOT_FOUND", "PII_DECRYPT_CAP_REACHED", "RATE_LIMITED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { View(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::persons
