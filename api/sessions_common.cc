// Shared helpers of the verification-session handlers.
#include "api/sessions_common.h"

#include "api/admin.h"
#include "api/public_api.h"
#include "core/crypto.h"
#include "core/log.h"
#include "projections/projector.h"
#include "projections/sessions_projector.h"

namespace svc::api::sessions_internal {

std::string ViewsKey(std::string_view rest) {
  return std::string(projections::SessionsProjector::kName) + "/" + std::string(rest);
}

HttpRequest SlimRequest(const HttpRequest& req) {
  HttpRequest r;
  r.path = req.path;
  r.request_id = req.request_id;
  return r;
}

core::Result<std::optional<core::Json>> ReadView(Runtime& rt, const std::string& key) {
  SVC_ASSIGN_OR_RETURN(auto row, rt.store().Get(rt.store().Cf(projections::kViewsCf), key));
  if (!row.has_value()) return std::optional<core::Json>();
  return std::optional<core::Json>(core::ParseJsonOrDiscarded(*row));
}

HttpResponse ValidationProblem(const HttpRequest& req, const std::vector<FieldError>& errors) {
  // A malformed identifier is a request-shape error (400 INVALID_ID, convention 3), reported
  // before field validation, with every offending field.
  std::vector<FieldError> ids;
  for (const auto& e : errors) {
    if (e.code == "invalid_id") ids.push_back(e);
  }
  if (!ids.empty()) {
    return Problem(req, "INVALID_ID",
                   ids.size() == 1 ? ids[0].detail : "the request has malformed identifiers",
                   {{"errors", ErrorsJson(ids)}});
  }
  return Problem(req, "VALIDATION_ERROR", "the request has invalid fields",
                 {{"errors", ErrorsJson(errors)}});
}

std::string Seal(Runtime& rt, std::string_view plaintext, std::string_view aad) {
  return core::Base64Encode(core::AeadSeal(rt.seal_key(), plaintext, aad));
}

// A short human-facing reference derived from the id ("VS-" + 10 base32 characters).
std::string PublicId(const std::string& id) {
  static constexpr char kAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  std::string h = core::Sha256(id);
  std::string out = "VS-";
  for (int i = 0; i < 10; ++i) out += kAlphabet[static_cast<unsigned char>(h[i]) % 32];
  return out;
}

// The 201 body of a create, from the creation-time row (identical for the first answer and
// every idempotent retry). The row is the body as served, except that a link session's token is
// stored sealed: only then is it parsed.
core::Result<std::string> RenderCreated(Runtime& rt, std::string created_row,
                                        const std::string& session_id,
                                        const PublicApiOptions& options) {
  if (created_row.find("\"linkTokenSealed\"") == std::string::npos) return created_row;
  core::Json body = core::ParseJsonOrDiscarded(created_row);
  std::string sealed = core::StringOr(body, "linkTokenSealed");
  body.erase("linkTokenSealed");
  SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed));
  SVC_ASSIGN_OR_RETURN(std::string token, core::AeadOpen(rt.seal_key(), raw, session_id));
  body["linkToken"] = token;
  body["hostedUrl"] = options.public_base_url + "/v/" + token;
  return core::DumpJson(body);
}

commands::CommandContext Context(Runtime& rt, const ApiCall& call) {
  commands::CommandContext ctx;
  ctx.now = rt.clock().Now();
  ctx.ids = &rt.ids();
  ctx.actor = {"api_key", call.auth.key_id};
  ctx.environment = call.auth.environment;
  ctx.request_id = call.request->request_id;
  ctx.correlation_id = call.correlation_id;
  ctx.idempotency_key = call.idempotency_key;
  ctx.request_fingerprint = call.request_fingerprint;
  return ctx;
}

// Runs a session command, waits (without blocking a thread) until the read models have it, then
// renders. `render` runs on the projections' waiter thread.
void RunThenRender(Runtime& rt, const HttpRequest& req, commands::Command cmd,
                   std::function<HttpResponse(const commands::CommandOutcome&)> render,
                   Respond respond) {
  HttpRequest req_copy;  // the problem renderer needs path and request id only
  req_copy.path = req.path;
  req_copy.request_id = req.request_id;
  rt.writer().Execute(std::move(cmd), [&rt, req_copy, render = std::move(render),
                                       respond](core::Result<commands::CommandOutcome> r) {
    if (!r.ok()) {
      respond(StatusToProblem(req_copy, r.status()));
      return;
    }
    auto outcome = std::make_shared<commands::CommandOutcome>(std::move(r).value());
    rt.projections().WhenApplied(outcome->positions, kReadYourWrites,
                                 [outcome, render, respond, req_copy](bool) {
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
                                     respond(Problem(req_copy, "INTERNAL_ERROR",
                                                     "an internal error occurred"));
                                   }
                                 });
  });
}


}  // namespace svc::api::sessions_internal
