// e.firma possession proofs of a verification session (issue 35, item 2;
// docs/verification-sessions.md#efirma):
//   POST /v1/verification-sessions/{session_id}/efirma/challenges   a challenge (one use, ~2 minutes)
//   POST /v1/verification-sessions/{session_id}/efirma              its answer: the .cer and the signature
// Both with a secret key (verification:write) or the widget's applicant token.
#include "api/http/json_input.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/sessions/routes.h"
#include "api/sessions/sessions_common.h"
#include "commands/verification/efirma_challenge.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/verification/efirma_check.h"
#include "projections/efirma_view.h"
#include "projections/projector.h"

namespace svc::api {

namespace vs = commands::verification;
namespace pv = pipeline::verification;
using EV = projections::EfirmaView;

namespace {

pv::EfirmaDeps Deps(Runtime& rt, const SessionsOptions& o) {
  return pv::EfirmaDeps{&rt.store(), &rt.key_store(), o.efirma};
}

std::string TeOfCall(const ApiCall& call) { return projections::TenantEnv(call.auth.tenant_id, call.auth.environment); }

// The optional body {consent: {purpose, policyVersion}}: the signature also gives that consent.
std::optional<pv::EfirmaConsentTerms> ParseChallengeTerms(const HttpRequest& req, const Respond& respond) {
  pv::EfirmaConsentTerms terms;
  if (req.body.empty()) return terms;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  if (const core::Json* consent = v.Object("consent", 4096); consent != nullptr) {
    Validator c(*consent);
    terms.purpose = c.String("purpose", true, 100).value_or("");
    terms.policy_version = c.String("policyVersion", true, 200).value_or("");
    c.RejectUnknown();
    if (c.ok() && terms.policy_version.empty()) {
      c.Add({"policyVersion", "/policyVersion", "invalid_format", "policyVersion must not be empty"});
    }
    for (FieldError e : c.errors()) {  // the members' pointers, under /consent
      e.field = "consent." + e.field;
      e.pointer = "/consent" + e.pointer;
      v.Add(std::move(e));
    }
  }
  v.RejectUnknown();
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  return terms;
}

void IssueEfirmaChallenge(Runtime& rt, const SessionsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["session_id"];
  if (auto st = core::ValidateId(core::IdKind::kVerification, id); !st.ok()) return respond(StatusToProblem(req, st));
  auto terms = ParseChallengeTerms(req, respond);
  if (!terms) return;
  auto cmd = pv::EfirmaChallengeCommand(Deps(rt, o), call.auth.tenant_id, call.auth.environment, id, *terms,
                                        Context(rt, call));
  if (!cmd.ok()) return respond(StatusToProblem(req, cmd.status()));
  RunThenRender(rt, req, std::move(*cmd), {EV::kName},
                [&rt, te = TeOfCall(call), id, slim = SlimRequest(req)](const commands::CommandOutcome& out) {
                  auto row = ReadView(rt, EV::Abs(EV::Challenge(te, out.aggregate_id)));
                  if (!row.ok() || !row->has_value()) return StatusToProblem(slim, core::Unavailable("not readable yet; retry"));
                  const int64_t expires = (*row)->value("expiresAtMicros", int64_t{0});
                  return JsonResponse(
                      201, {{"object", "efirma_challenge"},
                            {"challengeId", out.aggregate_id},
                            {"sessionId", id},
                            {"challenge", vs::EfirmaChallengeText(id, out.aggregate_id, core::StringOr(**row, "nonce"), expires,
                                                                  core::StringOr(**row, "consentPurpose"),
                                                                  core::StringOr(**row, "consentPolicyVersion"))},
                            {"expiresAt", core::FormatRfc3339(core::Timestamp{expires})},
                            {"signatureAlgorithm", "SHA-256 with the e.firma's key (RSA PKCS #1 v1.5) over the challenge's UTF-8 bytes"}});
                },
                std::move(respond));
}

// The answer's body: {challengeId, certificate (base64 of the .cer), signature (base64)}.
std::optional<pv::EfirmaAnswer> ParseEfirmaAnswer(const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  pv::EfirmaAnswer a;
  a.challenge_id = v.OpaqueId("challengeId", "efc", true).value_or("");
  auto cert = v.String("certificate", true, 96 * 1024);
  auto sig = v.String("signature", true, 4096);
  v.RejectUnknown();
  auto decode = [&](const std::optional<std::string>& text, const char* name, std::string& out) {
    if (!text.has_value()) return;
    auto raw = core::Base64Decode(*text);
    if (!raw.ok() || raw->empty()) {
      v.Add({name, std::string("/") + name, "invalid_format", std::string(name) + " must be base64"});
    } else {
      out = std::move(*raw);
    }
  };
  decode(cert, "certificate", a.certificate);
  decode(sig, "signature", a.signature);
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  return a;
}

void AnswerEfirma(Runtime& rt, const SessionsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["session_id"];
  if (auto st = core::ValidateId(core::IdKind::kVerification, id); !st.ok()) return respond(StatusToProblem(req, st));
  auto answer = ParseEfirmaAnswer(req, respond);
  if (!answer) return;
  auto work = [&rt, &o, id, answer = std::move(*answer), tenant = call.auth.tenant_id, env = call.auth.environment,
               ctx = Context(rt, call), slim = SlimRequest(req), respond = std::move(respond)]() mutable {
    // The OCSP round trip blocks: off the I/O threads.
    auto cmd = pv::EfirmaCheckCommand(Deps(rt, o), tenant, env, id, answer, std::move(ctx));
    if (!cmd.ok()) return respond(StatusToProblem(slim, cmd.status()));
    RunThenRender(rt, slim, std::move(*cmd), {EV::kName},
                  [&rt, te = projections::TenantEnv(tenant, env), challenge = answer.challenge_id,
                   slim](const commands::CommandOutcome&) {
                    auto row = ReadView(rt, EV::Abs(EV::Challenge(te, challenge)));
                    if (!row.ok() || !row->has_value()) return StatusToProblem(slim, core::Unavailable("not readable yet; retry"));
                    return JsonResponse(200, (*row)->value("check", core::Json::object()));
                  },
                  std::move(respond));
  };
  if (o.work_pool == nullptr) return work();
  o.work_pool->Post(std::move(work));
}

}  // namespace

std::vector<ApiRoute> EfirmaRoutes(Runtime* r, const SessionsOptions& options) {
  const SessionsOptions* o = &options;
  const std::string tag = "Verification sessions";
  const std::string base = "/v1/verification-sessions/{session_id}/efirma";
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/challenges", .operation_id = "createEfirmaChallenge", .tag = tag,
      .scope = "verification:write", .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kOptional,
      .applicant_token = true, .has_body = true, .request_schema = "EfirmaChallengeCreate", .body_optional = true,
      .success_status = 201, .response_schema = "EfirmaChallenge",
      .error_codes = Codes({{"INVALID_ID", "SESSION_NOT_FOUND", "BAD_REQUEST", "VALIDATION_ERROR", "PURPOSE_UNKNOWN",
                             "CHECK_NOT_ENABLED_FOR_FLOW", "CONSENT_REQUIRED", "SESSION_EXPIRED", "SESSION_COMPLETED",
                             "INVALID_STATE_TRANSITION", "EFIRMA_CERT_NOT_READY", "CAPTURE_NOT_ALLOWED", "CONFLICT"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { IssueEfirmaChallenge(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base, .operation_id = "answerEfirmaChallenge", .tag = tag,
      .scope = "verification:write", .family = RateFamily::kWrite, .applicant_token = true, .has_body = true,
      .request_schema = "EfirmaAnswer", .response_schema = "EfirmaCheck",
      .error_codes = Codes({{"INVALID_ID", "BAD_REQUEST", "VALIDATION_ERROR", "EFIRMA_CHALLENGE_NOT_FOUND",
                             "EFIRMA_CHALLENGE_ALREADY_USED", "EFIRMA_CHALLENGE_EXPIRED", "EFIRMA_CERT_NOT_READY"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { AnswerEfirma(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api
