// The OpenAPI schemas and tag of the embedded channel (embedded_api.cc).
#include "api/embedded/routes.h"

namespace svc::api::embedded {

OpenApiArea EmbeddedOpenApi() {
  OpenApiArea area;
  area.tags = {{"Embedded channel",
                "The capture widget in an iframe: a backend (secret key) or browser (publishable key) creates "
                "an embedded session, the page mounts the widget with its `clientSecret`, the widget swaps it "
                "once for an applicant token and walks the session's flow. See docs/embedded.md."}};
  core::Json& s = area.schemas;
  using namespace schema;
  const core::Json obj = {{"type", "object"}};
  const core::Json origins = {{"type", "array"}, {"items", {{"type", "string"}}}, {"minItems", 1}, {"maxItems", 20}};
  const core::Json ems = {{"type", "string"}, {"pattern", "^ems_[0-9a-f]{32}$"}};
  s["EmbeddedSessionCreate"] = Obj({{"allowedOrigins", origins},
                                    {"callbackUrl", Nullable({{"type", "string"}, {"format", "uri"}})},
                                    {"checks", Nullable(obj)},
                                    {"clientReference", Nullable(Str())},
                                    {"country", Nullable(Str())},
                                    {"flowId", Nullable(Id("flw"))},
                                    {"locale", Nullable(Str())},
                                    {"notificationsMode", Enum({"service_managed", "integrator_managed"})},
                                    {"personId", Nullable(Id("per"))},
                                    {"policy", Nullable(obj)},
                                    {"testMode", {{"type", "boolean"}, {"deprecated", true}}}},
                                   {"allowedOrigins"});
  s["EmbeddedSessionBrowserCreate"] = Obj({{"allowedOrigins", origins},
                                           {"clientReference", Nullable(Str())},
                                           {"country", Nullable(Str())},
                                           {"flow", Nullable(Str())},
                                           {"locale", Nullable(Str())}},
                                          {"allowedOrigins"});
  s["EmbeddedSessionCreateResponse"] = Obj({{"id", ems},
                                            {"object", {{"const", "embedded_session"}}},
                                            {"allowedOrigins", Strs()},
                                            {"clientSecret", Str()},
                                            {"expiresAt", DateTime()},
                                            {"status", Str()},
                                            {"personId", Nullable(Id("per"))},
                                            {"verificationSessionId", Id("vrf")},
                                            {"callbackSecret", Nullable(Str())}},
                                           {"allowedOrigins", "clientSecret", "expiresAt", "id", "status"});
  s["EmbeddedInitRequest"] = Obj({{"clientSecret", Str()}, {"parentOrigin", Nullable(Str())}}, {"clientSecret"});
  s["EmbeddedInitResponse"] = Obj({{"allowedOrigins", Strs()},
                                   {"applicantToken", Str()},
                                   {"expiresAt", DateTime()},
                                   {"sessionId", ems},
                                   {"status", Str()},
                                   {"verificationSessionId", Id("vrf")},
                                   {"verificationStatus", Str()},
                                   {"requiresApp", {{"type", "boolean"}}},
                                   {"locale", Str()},
                                   {"integrator", Obj({{"name", Nullable(Str())}, {"privacyNoticeUrl", Nullable(Str())}},
                                                      {"name", "privacyNoticeUrl"})},
                                   {"flow", Obj({{"id", Nullable(Id("flw"))},
                                                 {"steps", Strs()},
                                                 {"livenessMode", Enum({"passive", "active"})},
                                                 {"livenessFileAllowed", {{"type", "boolean"}}}},
                                                {})},
                                   {"resume", Obj({{"consentGiven", {{"type", "boolean"}}},
                                                   {"processing", {{"type", "boolean"}}},
                                                   {"submission", Nullable(Str())},
                                                   {"capturedKinds", Strs()},
                                                   {"requestedCaptures", Strs()},
                                                   {"requestedInput", Nullable(Ref("RequestedInput"))}},
                                                  {"consentGiven", "processing", "submission", "capturedKinds",
                                                   "requestedCaptures", "requestedInput"})}},
                                  {"allowedOrigins", "applicantToken", "expiresAt", "sessionId", "status",
                                   "verificationSessionId"});
  s["EmbeddedPolicyResponse"] = Obj({{"allowedOrigins", Strs()}, {"frameAncestors", Str()}, {"sessionId", ems}}, {});
  s["EmbeddedVerifyResponse"] = Obj(
      {{"id", ems},
       {"object", {{"const", "embedded_session"}}},
       {"verificationSessionId", Id("vrf")},
       {"allowedOrigins", Strs()},
       {"completedAt", Nullable(DateTime())},
       {"createdAt", DateTime()},
       {"decision", Nullable(obj)},
       {"expiresAt", Nullable(DateTime())},
       {"isFinal", {{"type", "boolean"}}},
       {"mountedAt", Nullable(DateTime())},
       {"phase", Enum({"processing", "review", "completed", "failed"})},
       {"status", Enum({"open", "mounted", "completed"})},
       {"trustScore", Nullable(Num())},
       {"verificationStatus", Str()},
       {"biometricMatch", Nullable(obj)},
       {"clientReference", Nullable(Str())},
       {"decisionMode", Nullable(Enum({"automatic", "manual"}))},
       {"document", Nullable(obj)},
       {"gov", {{"type", "array"}, {"items", obj}}},
       {"humanReviewAvailable", {{"type", "boolean"}}},
       {"personId", Nullable(Id("per"))}},
      {"allowedOrigins", "completedAt", "createdAt", "decision", "expiresAt", "id", "isFinal", "mountedAt", "phase",
       "status", "trustScore", "verificationStatus"});
  return area;
}

}  // namespace svc::api::embedded
