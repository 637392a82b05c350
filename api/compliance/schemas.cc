// The OpenAPI schemas of the compliance area (compliance_api.cc). The tag is the audit area's.
#include "api/compliance/routes.h"

namespace svc::api::compliance {

OpenApiArea ComplianceOpenApi() {
  OpenApiArea area;
  core::Json& s = area.schemas;
  using namespace schema;
  const core::Json number = {{"type", "number"}};
  const core::Json integer = {{"type", "integer"}};
  const core::Json boolean = {{"type", "boolean"}};
  s["RateLimitFamily"] = Obj({{"family", Enum({"reads", "writes", "pii_reveals"})},
                              {"enforced", boolean},
                              {"ratePerSecond", number},
                              {"burst", number},
                              {"per", Str()},
                              {"appliesTo", Str()},
                              {"errorCode", Str()}},
                             {"family", "enforced", "ratePerSecond", "burst"});
  s["RevealBudgetPolicy"] = Obj({{"personsPerDay", integer},
                                 {"per", Str()},
                                 {"resetsAt", Str()},
                                 {"counts", Str()},
                                 {"errorCode", Str()}},
                                {"personsPerDay", "per", "resetsAt"});
  s["DecryptSlo"] = Obj({{"p99Milliseconds", integer}, {"atRequestsPerSecond", integer}, {"description", Str()}},
                        {"p99Milliseconds"});
  s["RateLimitPolicy"] = Obj({{"object", {{"const", "compliance.limits"}}},
                              {"families", {{"type", "array"}, {"items", Ref("RateLimitFamily")}}},
                              {"revealBudget", Ref("RevealBudgetPolicy")},
                              {"decryptSlo", Ref("DecryptSlo")},
                              {"maskedDegradationPolicy", Str()},
                              {"pageLimitMax", integer},
                              {"maxBodyBytes", integer},
                              {"retention", Nullable(Obj({{"mediaDays", integer},
                                                          {"webhookDeliveryDays", integer},
                                                          {"idempotencyHours", integer},
                                                          {"sweepIntervalSeconds", integer}},
                                                         {}))},
                              {"auditCheckpointIntervalSeconds", integer}},
                             {"object", "families", "revealBudget", "decryptSlo", "maskedDegradationPolicy"});
  s["DatacenterItem"] = Obj({{"id", Str()},
                             {"provider", Str()},
                             {"region", Str()},
                             {"country", {{"type", "string"}, {"pattern", "^[A-Z]{2}$"}}},
                             {"role", Str()}},
                            {"id", "provider", "region", "country", "role"});
  s["DatacenterItem"]["additionalProperties"] = true;
  s["SubprocessorItem"] = Obj({{"name", Str()},
                               {"purpose", Str()},
                               {"country", {{"type", "string"}, {"pattern", "^[A-Z]{2}$"}}}},
                              {"name", "purpose", "country"});
  s["SubprocessorItem"]["additionalProperties"] = true;
  s["DatacenterList"] = Obj({{"object", {{"const", "list"}}}, {"data", {{"type", "array"}, {"items", Ref("DatacenterItem")}}}},
                            {"object", "data"});
  s["SubprocessorList"] = Obj({{"object", {{"const", "list"}}}, {"data", {{"type", "array"}, {"items", Ref("SubprocessorItem")}}}},
                              {"object", "data"});
  s["RetentionPolicyItem"] = Obj({{"resource", Str()},
                                  {"description", Str()},
                                  {"retentionDays", Nullable(integer)},
                                  {"retentionHours", integer},
                                  {"startsAt", Nullable(Str())},
                                  {"enforcedBy", Str()},
                                  {"lastRunAt", Nullable(DateTime())},
                                  {"lastRunRemoved", Nullable(integer)}},
                                 {"resource", "description", "retentionDays", "enforcedBy"});
  s["AuditChainSummary"] = Obj({{"valid", boolean}, {"count", integer}}, {"valid", "count"});
  core::Json window = Obj({{"from", {{"type", "string"}, {"format", "date"}}},
                           {"to", {{"type", "string"}, {"format", "date"}}},
                           {"created", integer}},
                          {"from", "to", "created"});
  window["additionalProperties"] = integer;
  window["description"] = "sessions created in the window, and for each status the sessions that reached it";
  s["VerificationVolumeSummary"] = Obj({{"environment", Enum({"test", "live"})},
                                        {"total", integer},
                                        {"byStatus", {{"type", "object"}, {"additionalProperties", integer},
                                                      {"description", "where every session stands now"}}},
                                        {"decided", integer},
                                        {"approvalRate", Nullable(number)},
                                        {"last30Days", window}},
                                       {"total", "byStatus", "last30Days"});
  s["ComplianceReport"] = Obj({{"object", {{"const", "compliance.report"}}},
                               {"type", Enum({"nom024", "cnbv"})},
                               {"framework", Obj({{"name", Str()}, {"scope", Str()}}, {"name", "scope"})},
                               {"generatedAt", DateTime()},
                               {"tenantId", Id("ten")},
                               {"environment", Enum({"test", "live"})},
                               {"auditChain", Ref("AuditChainSummary")},
                               {"datacenters", {{"type", "array"}, {"items", Ref("DatacenterItem")}}},
                               {"subprocessors", {{"type", "array"}, {"items", Ref("SubprocessorItem")}}},
                               {"retentionPolicies", {{"type", "array"}, {"items", Ref("RetentionPolicyItem")}}},
                               {"verificationVolume", Ref("VerificationVolumeSummary")},
                               {"asOf", {{"description", "with ?asOf=T: {asOf, tenantEventsReplayed, through}, the read "
                                                         "models' sections as they stood at T; null otherwise"}}},
                               {"arcoRequests",
                                Obj({{"total", {{"type", "integer"}}},
                                     {"open", {{"type", "integer"}}},
                                     {"overdue", {{"type", "integer"},
                                                  {"description", "open requests past their response or effect deadline"}}},
                                     {"byStatus", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}},
                                     {"byRight", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}}},
                                    {"total", "open", "overdue", "byStatus", "byRight"})}},
                              {"object", "auditChain", "datacenters", "generatedAt", "retentionPolicies",
                               "subprocessors", "type", "verificationVolume", "arcoRequests"});
  s["BreachNotificationRequest"] = Obj({{"severity", Enum({"low", "medium", "high", "critical"})},
                                        {"scope", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}},
                                        {"detectedAt", Nullable(DateTime())},
                                        {"subprocessorsAffected", Nullable(Strs())}},
                                       {"severity", "scope"});
  s["BreachNotificationResponse"] = Obj({{"object", {{"const", "compliance.breach_notification"}}},
                                         {"breachId", Id("brc")},
                                         {"detectedAt", DateTime()},
                                         {"scope", Str()},
                                         {"severity", Enum({"low", "medium", "high", "critical"})}},
                                        {"object", "breachId", "detectedAt", "scope", "severity"});
  return area;
}

}  // namespace svc::api::compliance
