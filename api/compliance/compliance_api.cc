// /v1/compliance/limits, /datacenters, /subprocessors.
#include "api/compliance/routes.h"

#include "api/http/json_input.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "commands/compliance/breach.h"
#include "core/clock.h"
#include "core/ids.h"
#include "projections/webhooks_view.h"

namespace svc::api::compliance {

namespace {

namespace cc = commands::compliance;

core::Json Family(const RateLimitFamilyConfig& c, const std::string& applies_to) {
  return {{"family", c.name},
          {"enforced", c.per_second > 0},
          {"ratePerSecond", c.per_second},
          {"burst", c.burst},
          {"per", "api_key"},
          {"appliesTo", applies_to},
          {"errorCode", "RATE_LIMITED"}};
}

// What is in force: read from the options the middleware and the reveal routes enforce.
void Limits(const PublicApiOptions& o, Respond respond) {
  const ApiLimits& l = o.limits;
  respond(JsonResponse(
      200, {{"object", "compliance.limits"},
            {"families",
             core::Json::array({Family(l.reads, "reads: GET routes"),
                                Family(l.writes, "writes: POST, PATCH and DELETE routes that change state"),
                                Family(l.reveals, "pii_reveals: decrypt, batch decrypt, expand, client tokens, "
                                                  "integrity, export, reauth")})},
            {"revealBudget",
             {{"personsPerDay", o.reveal_budget_per_day},
              {"per", "tenant_and_environment"},
              {"resetsAt", "00:00 UTC"},
              {"counts", "one per person revealed (a batch of n persons counts n)"},
              {"errorCode", "PII_DECRYPT_CAP_REACHED"}}},
            {"decryptSlo",
             {{"p99Milliseconds", 20},
              {"atRequestsPerSecond", 2500},
              {"description", "a decrypt answers within 20 ms at the 99th percentile at 2,500 decrypts/s, its "
                              "access event fsynced first (BENCHMARKS.md measures it)"}}},
            {"maskedDegradationPolicy",
             "Masked reads never decrypt: the masked detail, fields, search and duplicates keep answering when "
             "a person's key is unavailable or destroyed, and when the reveal budget is spent. Reveals then "
             "fail closed: 410 PERSON_PURGED for a destroyed key, 429 PII_DECRYPT_CAP_REACHED with "
             "Retry-After for the budget, 429 RATE_LIMITED for the rate; never plaintext without its access "
             "event."},
            {"pageLimitMax", l.page_limit_max},
            {"maxBodyBytes", l.max_body_bytes}}));
}

void ConfigList(const PublicApiOptions& o, const char* member, Respond respond) {
  respond(JsonResponse(200, {{"object", "list"}, {"data", o.compliance_config.value(member, core::Json::array())}}));
}

core::Status CheckItems(const core::Json& config, const char* member, std::initializer_list<const char*> required) {
  if (!config.contains(member)) return core::Status::Ok();
  const core::Json& items = config[member];
  if (!items.is_array()) return core::InvalidArgument(std::string(member) + " must be an array");
  for (size_t i = 0; i < items.size(); ++i) {
    const core::Json& item = items[i];
    const std::string where = std::string(member) + "[" + std::to_string(i) + "]";
    if (!item.is_object()) return core::InvalidArgument(where + " must be an object");
    for (const char* name : required) {
      if (!item.contains(name) || !item[name].is_string() || item[name].get<std::string>().empty()) {
        return core::InvalidArgument(where + " needs " + name + " (a non-empty string)");
      }
    }
    const std::string country = item.value("country", "");
    if (country.size() != 2 || !std::isupper(static_cast<unsigned char>(country[0])) ||
        !std::isupper(static_cast<unsigned char>(country[1]))) {
      return core::InvalidArgument(where + ".country must be an ISO 3166-1 alpha-2 code (MX, US, …)");
    }
  }
  return core::Status::Ok();
}

// POST /v1/compliance/breach-notifications: the notification is an event (emit-only), which the
// webhooks projector turns into compliance.breach_notified deliveries.
void NotifyBreach(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto severity = v.Enum("severity", true, {"low", "medium", "high", "critical"});
  auto scope = v.String("scope", true, 2000);
  auto detected = v.DateTime("detectedAt");
  std::vector<std::string> subprocessors;
  if (body->contains("subprocessorsAffected") && !(*body)["subprocessorsAffected"].is_null()) {
    const core::Json& list = (*body)["subprocessorsAffected"];
    bool ok = list.is_array() && list.size() <= 100;
    for (const auto& item : list) {
      ok &= item.is_string() && !item.get<std::string>().empty() && item.get<std::string>().size() <= 200;
      if (ok) subprocessors.push_back(item.get<std::string>());
    }
    if (!ok) {
      v.Add({"subprocessorsAffected", "/subprocessorsAffected", "invalid_type",
             "subprocessorsAffected must be up to 100 names (strings of 1-200 characters)"});
    }
  }
  v.Skip("subprocessorsAffected");
  v.RejectUnknown();
  if (scope.has_value() && scope->empty()) v.Add({"scope", "/scope", "invalid_format", "scope must not be empty"});
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  commands::CommandContext ctx = Context(rt, call);
  int64_t detected_micros = ctx.now.micros;
  if (detected.has_value()) detected_micros = core::ParseRfc3339(*detected)->micros;
  cc::NotifyBreach n;
  n.notified.severity = *severity;
  n.notified.scope = *scope;
  n.notified.detected_micros = detected_micros;
  n.notified.subprocessors_affected = subprocessors;
  n.notified.notified_by = call.auth.key_id;
  const std::string id = rt.ids().NewIdString(core::IdKind::kBreach);
  auto cmd = commands::MakeCommand<cc::BreachDecider>(call.auth.tenant_id, id, n, ctx);
  cmd.fresh_id = true;
  const core::Json answer = {{"object", "compliance.breach_notification"},
                             {"breachId", id},
                             {"detectedAt", core::FormatRfc3339(core::Timestamp{detected_micros})},
                             {"scope", *scope},
                             {"severity", *severity}};
  auto decide = cmd.decide;
  cmd.decide = [decide, answer](const std::any& state, const commands::CommandContext& c) -> core::Result<commands::Decision> {
    SVC_ASSIGN_OR_RETURN(commands::Decision d, decide(state, c));
    d.result = answer;  // kept with the idempotency record: a replay answers the same
    return d;
  };
  RunThenRender(rt, req, std::move(cmd), {projections::WebhooksView::kName},
                [](const commands::CommandOutcome& out) { return JsonResponse(201, out.result); }, std::move(respond));
}

}  // namespace

core::Status CheckComplianceConfig(const core::Json& config) {
  if (!config.is_object()) return core::InvalidArgument("the compliance file must hold a JSON object");
  for (auto it = config.begin(); it != config.end(); ++it) {
    if (it.key() != "datacenters" && it.key() != "subprocessors") {
      return core::InvalidArgument("unknown member " + it.key() + " (datacenters, subprocessors)");
    }
  }
  SVC_RETURN_IF_ERROR(CheckItems(config, "datacenters", {"id", "provider", "region", "country", "role"}));
  return CheckItems(config, "subprocessors", {"name", "purpose", "country"});
}

std::vector<ApiRoute> ComplianceRoutes(Runtime* rt, const PublicApiOptions& options) {
  auto* r = rt;
  const auto* o = &options;
  const std::string tag = "Compliance";
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/compliance/limits", .operation_id = "getComplianceLimits", .tag = tag,
      .summary = "The limits in force",
      .description = "The rate-limit families, the daily reveal budget, the decrypt objective and the "
                     "masked-degradation policy, read from the same configuration the service enforces "
                     "(`--rate-reads`, `--rate-writes`, `--rate-reveals`, `--reveal-budget-per-day`).",
      .scope = "compliance:read", .response_schema = "RateLimitPolicy",
      .handler = [o](ApiCall&, Respond respond) { Limits(*o, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/compliance/datacenters", .operation_id = "listComplianceDatacenters",
      .tag = tag, .summary = "Where the data is kept",
      .description = "From the operator's compliance file (`--compliance-file`, docs/compliance.md).",
      .scope = "compliance:read", .response_schema = "DatacenterList",
      .handler = [o](ApiCall&, Respond respond) { ConfigList(*o, "datacenters", std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/compliance/subprocessors", .operation_id = "listComplianceSubprocessors",
      .tag = tag, .summary = "Who processes the data on the operator's behalf",
      .description = "From the operator's compliance file (`--compliance-file`, docs/compliance.md).",
      .scope = "compliance:read", .response_schema = "SubprocessorList",
      .handler = [o](ApiCall&, Respond respond) { ConfigList(*o, "subprocessors", std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/compliance/breach-notifications", .operation_id = "notifyBreach", .tag = tag,
      .summary = "Notify a personal-data breach",
      .description = "Emit-only: the notification is recorded as an event of the log (no separate record to read "
                     "back) and sent as the webhook `compliance.breach_notified` to every endpoint of the tenant "
                     "and environment subscribed to it (or to `compliance.*` or `*`). `Idempotency-Key` is "
                     "required: a retry with the same key answers the same notification. `scope` is free text "
                     "read by people: describe the exposure, never paste personal data into it.",
      .scope = "compliance:write", .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kRequired,
      .has_body = true, .request_schema = "BreachNotificationRequest", .success_status = 201,
      .response_schema = "BreachNotificationResponse",
      .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST", "IDEMPOTENCY_KEY_REQUIRED", "IDEMPOTENCY_KEY_REUSED",
                      "IDEMPOTENCY_KEY_IN_PROGRESS"},
      .handler = [r](ApiCall& c, Respond respond) { NotifyBreach(*r, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::compliance
