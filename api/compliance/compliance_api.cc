// /v1/compliance/limits, /datacenters, /subprocessors.
#include "api/compliance/routes.h"

#include "api/http/problem.h"

namespace svc::api::compliance {

namespace {

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
  (void)rt;
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
  return routes;
}

}  // namespace svc::api::compliance
