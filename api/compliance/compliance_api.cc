// /v1/compliance/limits, /datacenters, /subprocessors.
#include "api/compliance/routes.h"

#include "api/http/json_input.h"
#include "api/http/pagination.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "commands/compliance/breach.h"
#include "core/clock.h"
#include "core/ids.h"
#include "pipeline/audit/report_sections.h"
#include "pipeline/retention/sweeper.h"
#include "projections/audit/audit_reads.h"
#include "projections/audit/audit_view.h"
#include "projections/persons/arco_queries.h"
#include "projections/persons/arco_view.h"
#include "projections/projector.h"
#include "projections/sessions_view.h"
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
void Limits(const ComplianceOptions& o, Respond respond) {
  const ApiLimits& l = o.limits;
  respond(JsonResponse(
      200, {{"object", "compliance.limits"},
            {"families",
             core::Json::array({Family(l.reads, "reads: GET routes"),
                                Family(l.writes, "writes: POST, PATCH and DELETE routes that change state"),
                                Family(l.reveals, "pii_reveals: decrypt, batch decrypt, expand, client tokens, "
                                                  "integrity, export, reauth")})},
            {"revealBudget",
             {{"personsPerDay", o.limits.reveal_budget_per_day},
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
            {"maxBodyBytes", l.max_body_bytes},
            {"retention", o.retention != nullptr
                              ? core::Json{{"mediaDays", o.retention->policies().media_days},
                                           {"webhookDeliveryDays", o.retention->policies().webhook_delivery_days},
                                           {"idempotencyHours", o.retention->policies().idempotency_hours},
                                           {"sweepIntervalSeconds", o.retention->policies().interval.count()}}
                              : core::Json(nullptr)},
            {"auditCheckpointIntervalSeconds", o.limits.audit_checkpoint_interval_seconds}}));
}

// What a report of `type` (nom024 | cnbv) covers.
const core::Json& Framework(const std::string& type) {
  static const core::Json kFrameworks = {
      {"nom024",
       {{"name", "NOM-024"},
        {"scope", "information security and confidentiality of personal records: who accessed personal data "
                  "(the hash-chained access log and its verification), where the data is kept and by whom it "
                  "is processed, and how long each kind of data is kept"}}},
      {"cnbv",
       {{"name", "CNBV"},
        {"scope", "non-face-to-face identification for supervised entities: the verification volume and its "
                  "outcomes, the integrity of the access log, the datacenters and subprocessors involved, and "
                  "the retention of identification evidence"}}}};
  return kFrameworks.at(type);
}

// GET /v1/compliance/reports?type=nom024|cnbv[&asOf=T]: every section computed when asked, from
// the read models and the objects that enforce the policies (nothing in it is written by hand).
// With asOf, the read models' sections as they stood at T: the tenant's events up to T replayed
// into the access log's, the sessions' and the ARCO requests' projectors in a scratch store
// (pipeline/audit/history.h, AtMoment); the configuration's sections are today's.
void Report(Runtime& rt, const ComplianceOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto query = ParseQuery(req.query);
  for (const auto& [name, value] : query) {
    if (name != "type" && name != "asOf") return respond(Problem(req, "BAD_REQUEST", "unknown query parameter " + name));
  }
  auto type = query.find("type");
  if (type == query.end() || (type->second != "nom024" && type->second != "cnbv")) {
    return respond(Problem(req, "REPORT_TYPE_INVALID", "type must be nom024 or cnbv"));
  }
  pipeline::audit::ReportSectionsInput in{&rt.log(), &rt.store(), &rt.audit_chain_verifier(), rt.projectors(),
                                         rt.data_dir(), call.auth.tenant_id, call.auth.environment, rt.clock().Now(),
                                         std::nullopt};
  if (auto it = query.find("asOf"); it != query.end()) {
    auto t = core::ParseRfc3339(it->second);
    if (!t.ok()) return respond(ValidationProblem(req, {{"asOf", "", "invalid_format", "asOf must be an RFC 3339 date-time"}}));
    in.as_of = *t;
  }
  auto sections = pipeline::audit::ComputeReportSections(in);
  if (!sections.ok()) return respond(StatusToProblem(req, sections.status()));
  const pipeline::retention::Sweeper* sweeper = o.retention;
  core::Json retention = sweeper != nullptr ? pipeline::retention::PolicyItems(sweeper->policies(), sweeper->last())
                                            : core::Json::array();
  respond(JsonResponse(200, {{"object", "compliance.report"},
                             {"type", type->second},
                             {"framework", Framework(type->second)},
                             {"generatedAt", core::FormatRfc3339(in.now)},
                             {"tenantId", in.tenant},
                             {"environment", in.environment},
                             {"auditChain", {{"valid", !sections->chain.broken_at.has_value()}, {"count", sections->chain.count}}},
                             {"datacenters", o.compliance_config.value("datacenters", core::Json::array())},
                             {"subprocessors", o.compliance_config.value("subprocessors", core::Json::array())},
                             {"retentionPolicies", retention},
                             {"verificationVolume", sections->volume},
                             {"arcoRequests", sections->arco},
                             {"asOf", sections->as_of}}));
}

void ConfigList(const ComplianceOptions& o, const char* member, Respond respond) {
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

// The body of a breach notification as its event (detectedAt: now when absent), or nullopt once
// answered.
std::optional<cc::BreachNotified> ParseBreach(const HttpRequest& req, core::Timestamp now, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto severity = v.Enum("severity", true, {"low", "medium", "high", "critical"});
  auto scope = v.String("scope", true, 2000);
  auto detected = v.DateTime("detectedAt");
  cc::BreachNotified n;
  if (body->contains("subprocessorsAffected") && !(*body)["subprocessorsAffected"].is_null()) {
    const core::Json& list = (*body)["subprocessorsAffected"];
    bool ok = list.is_array() && list.size() <= 100;
    for (const auto& item : list) {
      ok &= item.is_string() && !item.get<std::string>().empty() && item.get<std::string>().size() <= 200;
      if (ok) n.subprocessors_affected.push_back(item.get<std::string>());
    }
    if (!ok) {
      v.Add({"subprocessorsAffected", "/subprocessorsAffected", "invalid_type",
             "subprocessorsAffected must be up to 100 names (strings of 1-200 characters)"});
    }
  }
  v.Skip("subprocessorsAffected");
  v.RejectUnknown();
  if (scope.has_value() && scope->empty()) v.Add({"scope", "/scope", "invalid_format", "scope must not be empty"});
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  n.severity = *severity;
  n.scope = *scope;
  n.detected_micros = detected.has_value() ? core::ParseRfc3339(*detected)->micros : now.micros;
  return n;
}

// POST /v1/compliance/breach-notifications: the notification is an event (emit-only), which the
// webhooks projector turns into compliance.breach_notified deliveries.
void NotifyBreach(Runtime& rt, ApiCall& call, Respond respond) {
  commands::CommandContext ctx = Context(rt, call);
  auto n = ParseBreach(*call.request, ctx.now, respond);
  if (!n) return;
  n->notified_by = call.auth.key_id;
  const std::string id = rt.ids().NewIdString(core::IdKind::kBreach);
  auto cmd = commands::MakeCommand<cc::BreachDecider>(call.auth.tenant_id, id, cc::NotifyBreach{*n, id}, ctx);
  cmd.fresh_id = true;
  RunThenRender(rt, *call.request, std::move(cmd), {projections::WebhooksView::kName},
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

std::vector<ApiRoute> ComplianceRoutes(Runtime* r, const ComplianceOptions& options) {
  const auto* o = &options;
  const std::string tag = "Compliance";
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/compliance/reports", .operation_id = "getComplianceReport", .tag = tag,
      .scope = "compliance:read",
      .query = {{"type", {{"type", "string"}, {"enum", {"nom024", "cnbv"}}}, "the report type (required)"},
                {"asOf", {{"type", "string"}, {"format", "date-time"}},
                 "the report as it stood at this moment (its read-model sections rebuilt from the log up to then)"}},
      .response_schema = "ComplianceReport", .error_codes = {"REPORT_TYPE_INVALID", "BAD_REQUEST", "VALIDATION_ERROR"},
      .handler = [r, o](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {projections::AuditView::kName, projections::SessionsView::kName, projections::ArcoView::kName},
                     std::move(respond),
                     [r, o](ApiCall& held, Respond then) {
                       // A walk of the whole chain: on the work pool, not the projections' waiter thread.
                       OnWorkPool(o->work_pool, held, std::move(then),
                                  [r, o](ApiCall& call, Respond out) { Report(*r, *o, call, std::move(out)); });
                     });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/compliance/limits", .operation_id = "getComplianceLimits", .tag = tag,
      .scope = "compliance:read", .response_schema = "RateLimitPolicy",
      .handler = [o](ApiCall&, Respond respond) { Limits(*o, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/compliance/datacenters", .operation_id = "listComplianceDatacenters",
      .tag = tag, .scope = "compliance:read", .response_schema = "DatacenterList",
      .handler = [o](ApiCall&, Respond respond) { ConfigList(*o, "datacenters", std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/compliance/subprocessors", .operation_id = "listComplianceSubprocessors",
      .tag = tag, .scope = "compliance:read", .response_schema = "SubprocessorList",
      .handler = [o](ApiCall&, Respond respond) { ConfigList(*o, "subprocessors", std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/compliance/breach-notifications", .operation_id = "notifyBreach", .tag = tag,
      .scope = "compliance:write", .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kRequired,
      .has_body = true, .request_schema = "BreachNotificationRequest", .success_status = 201,
      .response_schema = "BreachNotificationResponse",
      .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST", "IDEMPOTENCY_KEY_REQUIRED", "IDEMPOTENCY_KEY_REUSED",
                      "IDEMPOTENCY_KEY_IN_PROGRESS"},
      .handler = [r](ApiCall& c, Respond respond) { NotifyBreach(*r, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::compliance
