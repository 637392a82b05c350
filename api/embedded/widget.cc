// The widget's files (api/embedded/widget/, compiled in by api/http/embed_assets.cmake), outside
// /v1 and the OpenAPI document:
//   GET /embed/v1/loader.js            the integrator's page includes it (SvcEmbed.mount)
//   GET /embed/v1/frame/{ems_id}       the capture page; framed only by the session's allowed
//                                      origins (CSP frame-ancestors), 404 for an unknown session
//   GET /embed/v1/widget.js, widget.css  the page's script and style
// The page loads nothing but its own files and talks only to this origin.
#include "api/embedded/routes.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "commands/embedded/origins.h"
#include "projections/embedded/embedded_view.h"

namespace svc::api::embedded {

extern const std::string_view kWidget_frame_html;
extern const std::string_view kWidget_widget_js;
extern const std::string_view kWidget_widget_css;
extern const std::string_view kWidget_loader_js;

namespace {

using EV = projections::EmbeddedView;

std::string FramePolicy(const std::string& ancestors) {
  return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
         "media-src 'self' blob: mediastream:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
         "frame-ancestors " + ancestors;
}

HttpResponse Asset(std::string_view body, const char* type, bool cross_origin) {
  HttpResponse r;
  r.content_type = type;
  r.body = std::string(body);
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  // The loader is fetched by integrators' pages; the frame's files by the frame only.
  r.headers.emplace_back("Cross-Origin-Resource-Policy", cross_origin ? "cross-origin" : "same-origin");
  return r;
}

}  // namespace

void AddWidgetRoutes(Router& router, Runtime& rt) {
  router.Add("GET", "/embed/v1/loader.js",
             Sync([](HttpRequest&) { return Asset(kWidget_loader_js, "text/javascript; charset=utf-8", true); }));
  router.Add("GET", "/embed/v1/widget.js",
             Sync([](HttpRequest&) { return Asset(kWidget_widget_js, "text/javascript; charset=utf-8", false); }));
  router.Add("GET", "/embed/v1/widget.css",
             Sync([](HttpRequest&) { return Asset(kWidget_widget_css, "text/css; charset=utf-8", false); }));
  Runtime* r = &rt;
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
               HttpResponse page = Asset(kWidget_frame_html, "text/html; charset=utf-8", false);
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
