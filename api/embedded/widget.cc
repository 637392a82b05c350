// The widget's files (api/embedded/widget/, compiled in by api/http/embed_assets.cmake), outside
// /v1 and the OpenAPI document:
//   GET /embed/v1/loader.js            the integrator's page includes it (SvcEmbed.mount)
//   GET /embed/v1/frame/{ems_id}       the capture page; framed only by the session's allowed
//                                      origins (CSP frame-ancestors), 404 for an unknown session
//   GET /embed/v1/widget.js, widget.css  the page's script and style
//   GET /embed/v1/vendor/forge-1.4.3.min.js  node-forge, for the e.firma step (loaded on that step only)
//   GET /embed/v1/vendor/qrcode-2.0.4.js  qrcode-generator, for the handoff's QR code (loaded then only)
//   GET /v/{link_token}                the hosted page of a link session (the same page, full
//                                      screen, never framed)
//   POST /embed/v1/hosted/init         {linkToken} -> an applicant token for the hosted page (the
//                                      page calls it: a link previewer that fetches the URL opens
//                                      nothing)
// The page loads nothing but its own files and talks only to this origin.
#include "api/http/static_asset.h"
#include "projections/embedded/embedded_queries.h"
#include "api/embedded/routes.h"
#include "api/http/json_input.h"
#include "commands/tenancy/api_keys.h"
#include "commands/verification/session_decider.h"
#include "core/crypto.h"
#include "projections/sessions_view.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "commands/embedded/origins.h"
#include "projections/embedded/embedded_view.h"
#include "pipeline/verification/requested_input.h"

namespace svc::api::embedded {

extern const std::string_view kWidget_frame_html;
extern const std::string_view kWidget_widget_js;
extern const std::string_view kWidget_widget_css;
extern const std::string_view kWidget_loader_js;
extern const std::string_view kWidget_vendor_forge_min_js;
extern const std::string_view kWidget_vendor_qrcode_js;

namespace {

using EV = projections::EmbeddedView;

std::string FramePolicy(const std::string& ancestors) {
  return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
         "media-src 'self' blob: mediastream:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
         "frame-ancestors " + ancestors;
}

// A widget file: ETag (a revalidation costs a 304), gzip when accepted; `no-cache` keeps every
// mount on the current version (revalidated, not refetched).
HttpResponse Asset(const HttpRequest& req, std::string_view body, const char* type, bool cross_origin) {
  HttpResponse r = StaticAsset(req, body, type);
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  // The loader is fetched by integrators' pages; the frame's files by the frame only.
  r.headers.emplace_back("Cross-Origin-Resource-Policy", cross_origin ? "cross-origin" : "same-origin");
  return r;
}

// POST /embed/v1/hosted/init {linkToken}: the link token swapped for an applicant token (again on
// a new open, bounded), with what the page walks.
void HostedInit(Runtime& rt, HttpRequest& req, Respond respond) {
  namespace vs = commands::verification;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto link = v.String("linkToken", true, 200);
  v.RejectUnknown();
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  const std::string hash = commands::tenancy::HashApiKey(rt.api_key_lookup_key(), *link);
  auto row = ReadView(rt, EV::Abs(EV::Link(hash)));
  if (!row.ok()) return respond(StatusToProblem(req, row.status()));
  if (!row->has_value()) return respond(Problem(req, "SESSION_INVALID", "the link is not valid"));
  const core::Json l = **row;
  const std::string token = "atok_" + core::Base64UrlEncode(core::RandomBytes(32));
  ApiCall call;
  call.request = &req;
  call.correlation_id = req.request_id;
  call.auth.tenant_id = core::StringOr(l, "tenantId");
  call.auth.environment = core::StringOr(l, "environment");
  call.auth.key_type = "applicant";
  const std::string sid = core::StringOr(l, "sessionId");
  call.auth.key_id = sid;
  auto cmd = commands::MakeCommand<vs::SessionDecider>(
      call.auth.tenant_id, sid,
      vs::SessionCommand(vs::OpenLink{hash, commands::tenancy::HashApiKey(rt.api_key_lookup_key(), token)}),
      Context(rt, call));
  const std::string te = projections::TenantEnv(call.auth.tenant_id, call.auth.environment);
  HttpRequest req_copy;
  req_copy.path = req.path;
  req_copy.request_id = req.request_id;
  RunThenRender(rt, req, std::move(cmd), {projections::SessionsView::kName, EV::kName},
                [&rt, te, sid, token, l, req_copy](const commands::CommandOutcome&) {
                  auto rec = ReadView(rt, projections::SessionsView::Abs(projections::SessionsView::Record(te, sid)));
                  if (!rec.ok() || !rec->has_value()) {
                    return Problem(req_copy, "SERVICE_UNAVAILABLE", "the session is not readable yet");
                  }
                  auto integrator = projections::IntegratorOf(rt.store(), core::StringOr(l, "tenantId"), **rec);
                  if (!integrator.ok()) return StatusToProblem(req_copy, integrator.status());
                  auto resume = projections::ApplicantResume(
                      rt.store(), te, sid, **rec, [&rt, l, sid](core::Json& asked) {
                        pipeline::verification::OpenRequestedInput(
                            rt.key_store(), core::StringOr(l, "tenantId"), core::StringOr(l, "environment"), sid, asked);
                      });
                  if (!resume.ok()) return StatusToProblem(req_copy, resume.status());
                  HttpResponse r = JsonResponse(
                      200, {{"verificationSessionId", sid},
                            {"integrator", *integrator},
                            {"applicantToken", token},
                            {"expiresAt", (*rec)->value("expiresAt", core::Json(nullptr))},
                            {"verificationStatus", (*rec)->value("status", core::Json(nullptr))},
                            {"locale", l.value("locale", "es-MX")},
                            {"redirectUrl", l.value("redirectUrl", core::Json(nullptr))},
                            {"flow", {{"id", (*rec)->value("flowId", core::Json(nullptr))},
                                      {"steps", l.value("steps", core::Json::array())},
                                      {"livenessMode", l.value("livenessMode", "passive")},
                                      {"livenessFileAllowed", l.value("livenessFileAllowed", false)}}},
                            {"resume", *resume}});
                  r.headers.emplace_back("Cache-Control", "no-store");
                  return r;
                },
                std::move(respond));
}

}  // namespace

void AddWidgetRoutes(Router& router, Runtime& rt, CredentialGuard* guard) {
  router.Add("GET", "/embed/v1/loader.js",
             Sync([](HttpRequest& req) { return Asset(req, kWidget_loader_js, "text/javascript; charset=utf-8", true); }));
  router.Add("GET", "/embed/v1/widget.js",
             Sync([](HttpRequest& req) { return Asset(req, kWidget_widget_js, "text/javascript; charset=utf-8", false); }));
  router.Add("GET", "/embed/v1/widget.css",
             Sync([](HttpRequest& req) { return Asset(req, kWidget_widget_css, "text/css; charset=utf-8", false); }));
  // node-forge (npm, BSD-3-Clause), exactly as published: the e.firma step opens the applicant's
  // .key and signs with it in the browser (docs/embedded.md#efirma). Versioned name: cached for good.
  router.Add("GET", "/embed/v1/vendor/forge-1.4.3.min.js", Sync([](HttpRequest& req) {
               HttpResponse js = Asset(req, kWidget_vendor_forge_min_js, "text/javascript; charset=utf-8", false);
               for (auto& [name, value] : js.headers) {
                 if (name == "Cache-Control") value = "public, max-age=31536000, immutable";
               }
               return js;
             }));
  // qrcode-generator (npm, MIT), exactly as published: the handoff's QR code (docs/embedded.md#handoff).
  router.Add("GET", "/embed/v1/vendor/qrcode-2.0.4.js", Sync([](HttpRequest& req) {
               HttpResponse js = Asset(req, kWidget_vendor_qrcode_js, "text/javascript; charset=utf-8", false);
               for (auto& [name, value] : js.headers) {
                 if (name == "Cache-Control") value = "public, max-age=31536000, immutable";
               }
               return js;
             }));
  Runtime* r = &rt;
  // The hosted page: whether the link is good is told by hosted/init, not here (the page is the
  // same for every link, and a link previewer fetching it learns nothing).
  router.Add("GET", "/v/{link_token}", Sync([](HttpRequest& req) {
               HttpResponse page = Asset(req, kWidget_frame_html, "text/html; charset=utf-8", false);
               page.headers.emplace_back("Content-Security-Policy", FramePolicy("'none'"));
               page.headers.emplace_back("Referrer-Policy", "no-referrer");
               page.headers.emplace_back("X-Frame-Options", "DENY");
               page.headers.emplace_back("Permissions-Policy", "camera=(self), microphone=(), geolocation=()");
               for (auto& [name, value] : page.headers) {
                 if (name == "Cache-Control") value = "no-store";
               }
               return page;
             }));
  router.Add("POST", "/embed/v1/hosted/init",
             Guarded(guard, "hosted_init", "SESSION_INVALID",
                     [r](HttpRequest& req, Respond respond) { HostedInit(*r, req, std::move(respond)); }));
  router.Add("GET", "/embed/v1/frame/{session_id}", Sync([r](HttpRequest& req) {
               const std::string& id = req.path_params["session_id"];
               std::optional<core::Json> row;
               if (ValidEmbeddedId(id)) {
                 auto read = ReadView(*r, EV::Abs(EV::Embedded(id)));
                 if (!read.ok()) return StatusToProblem(req, read.status());
                 row = *read;
               }
               if (!row.has_value()) {
                 HttpResponse nf = Problem(req, "SESSION_NOT_FOUND", "no such embedded session");
                 nf.headers.emplace_back("Content-Security-Policy", FramePolicy("'none'"));
                 return nf;
               }
               const auto origins = row->value("allowedOrigins", std::vector<std::string>{});
               HttpResponse page = Asset(req, kWidget_frame_html, "text/html; charset=utf-8", false);
               page.headers.emplace_back("Content-Security-Policy",
                                         FramePolicy(commands::embedded::FrameAncestors(origins)));
               page.headers.emplace_back("Referrer-Policy", "no-referrer");
               page.headers.emplace_back("Permissions-Policy", "camera=(self), microphone=(), geolocation=()");
               for (auto& [name, value] : page.headers) {
                 if (name == "Cache-Control") value = "no-store";  // per session: never reused
               }
               return page;
             }));
}

}  // namespace svc::api::embedded
