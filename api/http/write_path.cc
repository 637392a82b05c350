#include "api/http/write_path.h"

#include "core/log.h"
#include "projections/projector.h"
#include "projections/view_rows.h"

namespace svc::api {

HttpRequest SlimRequest(const HttpRequest& req) {
  HttpRequest r;
  r.path = req.path;
  r.request_id = req.request_id;
  return r;
}

core::Result<std::vector<core::Json>> ScanView(Runtime& rt, const std::string& prefix) {
  return projections::ScanRows(rt.store(), prefix);
}

core::Result<std::optional<core::Json>> ReadView(Runtime& rt, const std::string& key) {
  return projections::ReadRow(rt.store(), key);
}

std::optional<core::Json> PathRow(Runtime& rt, ApiCall& call, const Respond& respond, const std::string& param,
                                  core::IdKind kind, const std::function<std::string(const std::string& id)>& key,
                                  const std::string& missing_code, const std::string& missing_detail) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params[param];
  if (auto st = core::ValidateId(kind, id); !st.ok()) {
    respond(StatusToProblem(req, st));
    return std::nullopt;
  }
  auto row = ReadView(rt, key(id));
  if (!row.ok()) {
    respond(StatusToProblem(req, row.status()));
    return std::nullopt;
  }
  if (!row->has_value()) {
    respond(Problem(req, missing_code, missing_detail));
    return std::nullopt;
  }
  return std::move(**row);
}

commands::CommandContext Context(Runtime& rt, const ApiCall& call) {
  commands::CommandContext ctx;
  ctx.now = rt.clock().Now();
  ctx.ids = &rt.ids();
  ctx.actor = {call.auth.key_type == "applicant" ? "applicant" : "api_key", call.auth.key_id};
  ctx.environment = call.auth.environment;
  ctx.request_id = call.request->request_id;
  ctx.correlation_id = call.correlation_id;
  ctx.idempotency_key = call.idempotency_key;
  ctx.request_fingerprint = call.request_fingerprint;
  return ctx;
}

// Runs a command, waits (without blocking a thread) until the read models have it, then
// renders. `render` runs on the projections' waiter thread.
void RunThenRender(Runtime& rt, const HttpRequest& req, commands::Command cmd,
                   std::vector<std::string_view> reads,
                   std::function<HttpResponse(const commands::CommandOutcome&)> render,
                   Respond respond) {
  rt.writer().Execute(std::move(cmd), [&rt, req_copy = SlimRequest(req), reads = std::move(reads),
                                       render = std::move(render),
                                       respond](core::Result<commands::CommandOutcome> r) mutable {
    RenderWhenApplied(rt, req_copy, std::move(r), std::move(reads), std::move(render), std::move(respond));
  });
}

void RenderWhenApplied(Runtime& rt, const HttpRequest& req, core::Result<commands::CommandOutcome> r,
                       std::vector<std::string_view> reads,
                       std::function<HttpResponse(const commands::CommandOutcome&)> render, Respond respond) {
  HttpRequest req_copy = SlimRequest(req);  // the problem renderer needs path and request id only
  if (!r.ok()) {
    respond(StatusToProblem(req_copy, r.status()));
    return;
  }
  auto outcome = std::make_shared<commands::CommandOutcome>(std::move(r).value());
  rt.projections().WhenApplied(outcome->positions, reads, kReadYourWrites,
                               [outcome, render = std::move(render), respond = std::move(respond), req_copy](bool) {
                                 // Answer even on timeout; the read model catches up.
                                 try {
                                   HttpResponse resp = render(*outcome);
                                   // The answer to an earlier request with the same
                                   // Idempotency-Key (docs/api.md#idempotency).
                                   if (outcome->replayed && resp.status < 300) {
                                     resp.headers.emplace_back("Idempotent-Replayed", "true");
                                   }
                                   respond(std::move(resp));
                                 } catch (const std::exception& e) {
                                   core::LogError("render threw", {{"error", e.what()}});
                                   respond(Problem(req_copy, "INTERNAL_ERROR", "an internal error occurred"));
                                 }
                               });
}

void WhenCaughtUp(Runtime& rt, ApiCall& call, std::vector<std::string_view> reads, Respond respond,
                  std::function<void(ApiCall&, Respond)> serve) {
  const uint32_t partition = rt.log().PartitionFor(call.auth.tenant_id);
  auto end = rt.log().EndOffset(partition, kReadYourWrites);
  if (!end.ok()) return respond(StatusToProblem(*call.request, end.status()));
  std::vector<eventstore::LogPosition> last;
  if (*end > 0) last.push_back({partition, *end - 1});
  struct Held {
    HttpRequest request;
    ApiCall call;
  };
  auto held = std::make_shared<Held>(Held{*call.request, call});
  held->call.request = &held->request;
  rt.projections().WhenApplied(std::move(last), std::move(reads), kReadYourWrites,
                               [held, respond = std::move(respond), serve = std::move(serve)](bool) mutable {
                                 serve(held->call, std::move(respond));
                               });
}

void OnWorkPool(core::ThreadPool* pool, ApiCall& call, Respond respond, std::function<void(ApiCall&, Respond)> serve) {
  if (pool == nullptr) return serve(call, std::move(respond));
  auto held = std::make_shared<ApiCall>(call);
  auto request = std::make_shared<HttpRequest>(*call.request);
  held->request = request.get();
  pool->Post([held, request, respond = std::move(respond), serve = std::move(serve)]() mutable {
    serve(*held, std::move(respond));
  });
}

}  // namespace svc::api
