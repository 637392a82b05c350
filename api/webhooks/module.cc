// The webhook area as a module (api/http/module.h): the endpoint and delivery aggregates and
// their read model, its routes, the delivery policy from the flags, and the dispatcher (the
// process manager that sends deliveries, pipeline/webhooks/dispatcher.h) with its operator
// routes on the admin socket.

#include "api/http/admin_route.h"
#include "api/http/module.h"
#include "api/webhooks/routes.h"
#include "commands/webhooks/delivery_decider.h"
#include "commands/webhooks/endpoint_decider.h"
#include "core/log.h"
#include "pipeline/webhooks/dispatcher.h"
#include "projections/webhooks_projector.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"webhooks-ca-file", "", "an extra CA certificate (PEM) trusted for webhook receivers, besides the system store"});
  f.Declare({"webhooks-timeout-seconds", "15", "total time a webhook receiver has to answer one delivery"});
  f.Declare({"webhooks-rate-limit-rpm", "600",
             "deliveries per minute per webhook endpoint (bursts of a tenth of it); 0 = no limit"});
  f.Declare({"webhooks-scan-rows", "2048",
             "due deliveries the dispatcher reads per scan (a backlog is read in turns of this many)"});
  f.Declare({"webhooks-allow-private-urls", "false",
             "DEVELOPMENT ONLY: allow http and loopback/private webhook URLs (never in production: "
             "it opens the server to SSRF)",
             true});
}

class WebhooksServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) override {
    Runtime& rt = s.rt;
    const Flags& f = s.flags;
    WebhooksOptions& po = options_;
    try {
      int rpm = std::stoi(f.Get("webhooks-rate-limit-rpm"));
      if (rpm < 0) throw std::invalid_argument("negative");
      po.webhook_policy.rate_limit_default_rpm = rpm;
      int timeout = std::stoi(f.Get("webhooks-timeout-seconds"));
      if (timeout < 1 || timeout > 300) throw std::invalid_argument("range");
      po.webhook_policy.http_timeout_seconds = timeout;
      int scan = std::stoi(f.Get("webhooks-scan-rows"));
      if (scan < 1 || scan > 1'000'000) throw std::invalid_argument("range");
      scan_rows_ = static_cast<size_t>(scan);
    } catch (...) {
      return core::InvalidArgument(
          "bad --webhooks-rate-limit-rpm (a non-negative integer), --webhooks-timeout-seconds (1-300) or "
          "--webhooks-scan-rows (1-1000000)");
    }
    pipeline::webhooks::WebhookDispatcher::Options wo;
    LendRuntime(rt, wo);
    wo.projector = rt.projector<projections::WebhooksProjector>();
    wo.keys = &rt.key_store();
    wo.rate_per_second = po.webhook_policy.rate_limit_default_rpm / 60.0;
    wo.scan_rows = scan_rows_;
    wo.rate_burst = std::max(1.0, po.webhook_policy.rate_limit_default_rpm / 10.0);
    wo.policy = po.webhook_policy;
    wo.send.allow_private = f.GetBool("webhooks-allow-private-urls");
    wo.send.ca_file = f.Get("webhooks-ca-file");
    wo.send.total_timeout = std::chrono::seconds(po.webhook_policy.http_timeout_seconds);
    po.webhook_send = wo.send;  // the routes' test deliveries use the same client settings
    po.webhooks_allow_private_urls = wo.send.allow_private;
    s.api.private_urls_allowed = wo.send.allow_private;  // sessions' callbackUrl
    wo.callback_seal_key = rt.seal_key();
    dispatcher_ = std::make_unique<pipeline::webhooks::WebhookDispatcher>(wo);
    if (s.Runs(Role::kWebhooks, "webhook-deliveries")) dispatcher_->Start();
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    auto* d = dispatcher_.get();
    // Tests and tools: wait until no delivery can go on at the clock's now.
    admin.Add("POST", "/admin/webhooks/wait-idle", AdminRoute(sk, [d](HttpRequest&) -> core::Result<core::Json> {
      if (!d->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("deliveries are still being sent");
      return core::Json{{"idle", true}};
    }));
    // Operations: the delivery queue; pause and resume deliveries (in memory; a restart resumes).
    auto queue = [d]() -> core::Result<core::Json> {
      SVC_ASSIGN_OR_RETURN(auto stats, d->Stats());
      return core::Json{{"paused", stats.paused},         {"dueNow", stats.due_now},
                        {"scheduled", stats.scheduled},   {"inFlight", stats.in_flight},
                        {"rateLimited", stats.rate_limited}};
    };
    admin.Add("GET", "/admin/webhooks/queue", AdminRoute(sk, [queue](HttpRequest&) { return queue(); }));
    admin.Add("POST", "/admin/webhooks/pause", AdminRoute(sk, [d, queue](HttpRequest&) {
      d->Pause();
      core::LogWarn("webhook deliveries paused through the admin listener");
      return queue();
    }));
    admin.Add("POST", "/admin/webhooks/resume", AdminRoute(sk, [d, queue](HttpRequest&) {
      d->Resume();
      core::LogInfo("webhook deliveries resumed through the admin listener");
      return queue();
    }));
  }

  std::vector<ApiRoute> Routes(Runtime* rt, const ApiContext& api) override {
    return WebhookRoutes(rt, WithContext(options_, api));
  }

  void Stop() override {
    if (dispatcher_) dispatcher_->Stop();
  }

 private:
  WebhooksOptions options_;
  size_t scan_rows_ = 2048;
  std::unique_ptr<pipeline::webhooks::WebhookDispatcher> dispatcher_;
};

}  // namespace

extern const std::string_view kWebhooks_operations_md;  // operations.md, compiled in (api/CMakeLists.txt)

const Module& WebhooksModule() {
  static const Module m{.name = "webhooks",
                        .deciders = &RegisterDeciders<commands::webhooks::EndpointDecider, commands::webhooks::DeliveryDecider>,
                        .projectors = &AddProjectors<projections::WebhooksProjector>,
                        .openapi = &WebhooksOpenApi,
                        .operations = &kWebhooks_operations_md,
                        .declare_flags = &DeclareFlags,
                        .services = &MakeServices<WebhooksServices>};
  return m;
}

}  // namespace svc::api
