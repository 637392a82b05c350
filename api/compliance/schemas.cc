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
                              {"maxBodyBytes", integer}},
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
