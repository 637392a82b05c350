#include "api/http/admin_route.h"

#include "api/http/json_input.h"
#include "api/http/problem.h"
#include "core/crypto.h"

namespace svc::api {

namespace {

bool HasServiceKey(const HttpRequest& req, const std::string& service_key) {
  std::string h = req.Header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (h.size() <= kBearer.size() || h.compare(0, kBearer.size(), kBearer) != 0) return false;
  return core::ConstantTimeEquals(std::string_view(h).substr(kBearer.size()), service_key);
}

}  // namespace

Handler AdminRoute(std::string service_key, std::function<core::Result<core::Json>(HttpRequest&)> fn,
                   int ok_status) {
  return Sync([service_key = std::move(service_key), fn = std::move(fn), ok_status](HttpRequest& req) {
    if (!HasServiceKey(req, service_key)) {
      return Problem(req, "SERVICE_KEY_REQUIRED", "the admin listener needs the service key");
    }
    auto r = fn(req);
    if (!r.ok()) return StatusToProblem(req, r.status());
    return JsonResponse(ok_status, *r);
  });
}

core::Result<core::Json> AdminBody(const HttpRequest& req) {
  if (req.body.empty()) return core::Json::object();
  return ParseJsonObject(req.body);
}

commands::CommandContext AdminContext(Runtime& rt, const eventstore::Actor& actor) {
  commands::CommandContext ctx;
  ctx.now = rt.clock().Now();
  ctx.ids = &rt.ids();
  ctx.actor = actor;
  ctx.request_id = rt.ids().NewIdString(core::IdKind::kRequest);
  return ctx;
}

}  // namespace svc::api
