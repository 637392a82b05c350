// The review console (docs/review.md#the-console): four static files compiled into the binary
// (api/review/console/, embedded by embed_console.cmake) and the console's two private endpoints,
// outside /v1 and the OpenAPI document:
//   POST /console/api/sign-in   a reviewer's sign-in secret (usk_…) -> a short-lived reviewer token
//   GET  /console/api/events    the queue's change feed as Server-Sent Events (ids and states only)
// Every response carries a strict Content-Security-Policy: the page loads nothing but its own
// script and style, talks only to this origin, and shows captures from blob: URLs.
#include "api/review/console.h"

#include "api/http/pagination.h"
#include "api/http/public_api.h"
#include "api/http/problem.h"
#include "api/http/json_input.h"
#include "api/http/sse_hub.h"
#include "api/http/static_asset.h"
#include "api/http/write_path.h"
#include "api/review/review_common.h"
#include "commands/tenancy/api_keys.h"
#include "core/crypto.h"
#include "core/jwt.h"
#include "eventstore/kv_store.h"
#include "projections/review/review_view.h"
#include "projections/tenancy_view.h"

namespace svc::api::review {

extern const std::string_view kConsole_index_html;
extern const std::string_view kConsole_app_js;
extern const std::string_view kConsole_app_css;
extern const std::string_view kConsole_icon_svg;

namespace {

using RV = projections::ReviewView;
using TV = projections::TenancyView;

constexpr std::string_view kCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; media-src 'self' blob:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

void Harden(HttpResponse& r) {
  r.headers.emplace_back("Content-Security-Policy", std::string(kCsp));
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("X-Frame-Options", "DENY");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("Cross-Origin-Opener-Policy", "same-origin");
  r.headers.emplace_back("Cross-Origin-Resource-Policy", "same-origin");
}

Handler Asset(std::string_view body, std::string content_type) {
  return Sync([body, content_type](HttpRequest& req) {
    HttpResponse r = StaticAsset(req, body, content_type);  // ETag, gzip
    r.headers.emplace_back("Cache-Control", "no-cache");
    Harden(r);
    return r;
  });
}

void SignIn(Runtime& rt, const ConsoleOptions& o, HttpRequest& req, Respond respond) {
  auto answer = [&respond](HttpResponse r) {
    Harden(r);
    r.headers.emplace_back("Cache-Control", "no-store");
    respond(std::move(r));
  };
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return answer(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto secret = v.String("secret", true, 128);
  auto environment = v.Enum("environment", true, {"live", "test"});
  v.RejectUnknown();
  if (!v.ok()) return answer(ValidationProblem(req, v.errors()));
  auto invalid = [&] { answer(Problem(req, "API_KEY_INVALID", "the sign-in secret is not valid")); };
  if (secret->rfind("usk_", 0) != 0) return invalid();
  std::string hash = commands::tenancy::HashApiKey(rt.api_key_lookup_key(), *secret);
  core::SecureZero(*secret);
  const int cf = rt.store().Cf(projections::kViewsCf);
  auto ref = rt.store().Get(cf, TV::Abs(TV::UserBySecretHash(hash)));
  if (!ref.ok()) return answer(StatusToProblem(req, ref.status()));
  if (!ref->has_value()) return invalid();
  const core::Json r = core::ParseJsonOrDiscarded(**ref);
  const std::string tenant = core::StringOr(r, "tenantId"), user = core::StringOr(r, "userId");
  auto row = ReadView(rt, TV::Abs(TV::User(tenant, user)));
  if (!row.ok()) return answer(StatusToProblem(req, row.status()));
  if (!row->has_value()) return invalid();
  const core::Json& u = **row;
  if (!ActiveReviewer(u)) return invalid();
  const std::string role = core::StringOr(u, "role");
  const int64_t now = rt.clock().Now().micros / 1'000'000;
  const int64_t exp = now + o.token_ttl_seconds;
  core::Json claims = {{"iss", "svc"},
                       {"aud", "review-console"},
                       {"sub", user},
                       {"ten", tenant},
                       {"env", *environment},
                       {"role", role},
                       {"iat", now},
                       {"exp", exp},
                       {"jti", core::HexEncode(core::RandomBytes(16))}};
  answer(JsonResponse(200, {{"token", core::JwtSignHs256(rt.reviewer_token_key(), claims)},
                            {"tokenType", "Bearer"},
                            {"expiresAt", core::FormatRfc3339(core::Timestamp{exp * 1'000'000})},
                            {"userId", user},
                            {"tenantId", tenant},
                            {"environment", *environment},
                            {"role", role},
                            {"label", u.value("label", "")}}));
}

// The queue's change feed of the reviewer's tenant and environment.
void Events(Runtime& rt, const ConsoleOptions& o, HttpRequest& req, Respond respond) {
  std::string token;
  if (std::string h = req.Header("authorization"); h.rfind("Bearer ", 0) == 0) {
    token = h.substr(7);
  } else {
    const auto q = ParseQuery(req.query);
    if (auto it = q.find("access_token"); it != q.end()) token = it->second;
  }
  if (token.empty()) {
    return respond(Problem(req, "AUTHENTICATION_REQUIRED", "send the reviewer token (Authorization or access_token)"));
  }
  auto a = AuthenticateReviewer(rt, token);
  if (!a.ok()) return respond(StatusToProblem(req, a.status()));
  if (o.hub == nullptr) return respond(Problem(req, "SERVICE_UNAVAILABLE", "live streams are not available"));
  SseFeed feed;
  feed.prefix = RV::Abs(RV::Feed(TeOf(*a)));
  feed.suffix_bytes = 8;
  feed.id_of = [](std::string_view n) { return std::to_string(eventstore::GetFixed64BE(n)); };
  feed.event_of = [](const core::Json& row) { return core::StringOr(row, "type"); };
  if (std::string last = req.Header("last-event-id"); !last.empty()) {
    uint64_t n = 0;
    for (char ch : last) {
      if (ch < '0' || ch > '9' || last.size() > 19) {
        return respond(Problem(req, "BAD_REQUEST", "Last-Event-ID must be an id this stream sent"));
      }
      n = n * 10 + static_cast<uint64_t>(ch - '0');
    }
    feed.after_key = feed.prefix;
    eventstore::PutFixed64BE(feed.after_key, n);
  } else {
    // A new stream starts at the present: the console reads the queue itself first.
    auto it = rt.store().NewIterator(rt.store().Cf(projections::kViewsCf), feed.prefix, eventstore::PrefixEnd(feed.prefix));
    it->SeekToLast();
    if (it->Valid()) feed.after_key = std::string(it->key());
  }
  HttpResponse r;
  r.content_type = "text/event-stream";
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("X-Accel-Buffering", "no");
  Harden(r);
  r.stream = o.hub->Open(std::move(feed));
  respond(std::move(r));
}

}  // namespace

void AddConsoleRoutes(Router& router, Runtime& rt, ConsoleOptions options) {
  router.Add("GET", "/console", Asset(kConsole_index_html, "text/html; charset=utf-8"));
  router.Add("GET", "/console/", Asset(kConsole_index_html, "text/html; charset=utf-8"));
  router.Add("GET", "/console/app.js", Asset(kConsole_app_js, "text/javascript; charset=utf-8"));
  router.Add("GET", "/console/app.css", Asset(kConsole_app_css, "text/css; charset=utf-8"));
  router.Add("GET", "/console/icon.svg", Asset(kConsole_icon_svg, "image/svg+xml"));
  router.Add("POST", "/console/api/sign-in",
             Guarded(options.guard, "reviewer_sign_in", "API_KEY_INVALID",
                     [&rt, options](HttpRequest& req, Respond respond) { SignIn(rt, options, req, std::move(respond)); }));
  router.Add("GET", "/console/api/events",
             [&rt, options](HttpRequest& req, Respond respond) { Events(rt, options, req, std::move(respond)); });
}

}  // namespace svc::api::review
