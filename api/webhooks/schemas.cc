// The OpenAPI schemas, tag and `webhooks` section of the webhook area (webhooks_api.cc): the
// management API, and one operation per catalogued event type for what we POST to endpoints.
#include "api/webhooks/routes.h"

#include "pipeline/webhooks/catalogue.h"

namespace svc::api {

namespace {

core::Json WebhookOperation(const pipeline::webhooks::EventType& t) {
  using namespace schema;
  std::string type(t.type);
  std::string id = "on";
  bool upper = true;
  for (char c : type) {
    if (c == '.' || c == '_') {
      upper = true;
      continue;
    }
    id += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  core::Json sig_headers = core::Json::array(
      {{{"name", "webhook-id"}, {"in", "header"}, {"required", true},
        {"description", "the event id, stable across retries"}, {"schema", Str()}},
       {{"name", "webhook-timestamp"}, {"in", "header"}, {"required", true},
        {"description", "Unix seconds, part of the signed content"},
        {"schema", {{"type", "integer"}}}},
       {{"name", "webhook-signature"}, {"in", "header"}, {"required", true},
        {"description", "`v1,<base64 HMAC-SHA256>` (or, for a v1a endpoint, `v1a,<base64 Ed25519 "
                        "signature>`) of `{webhook-id}.{webhook-timestamp}.{body}`; two, space-separated, for "
                        "24 hours after a rotation"},
        {"schema", Str()}}});
  return {{"post",
           {{"operationId", id},
            {"tags", {"Webhook events"}},
            {"summary", std::string(t.description)},
            {"description", "Delivered to endpoints subscribed to `" + type +
                                "` (or a pattern covering it), signed the Standard Webhooks way. "
                                "Answer 2xx quickly; a 4xx is final (410 deactivates the "
                                "endpoint); anything else is retried with backoff."},
            {"parameters", sig_headers},
            {"security", core::Json::array({{{"webhookSignature", core::Json::array()}}})},
            {"requestBody",
             {{"required", true},
              {"content", {{"application/json", {{"schema", Ref(std::string(t.payload_schema))}}}}}}},
            {"responses",
             {{"2XX", {{"description", "Received; the delivery is done"}}},
              {"4XX", {{"description", "Refused; not retried (410 deactivates the endpoint)"}}},
              {"default", {{"description", "Anything else, or no answer: retried with backoff"}}}}}}}};
}


}  // namespace

OpenApiArea WebhooksOpenApi() {
  OpenApiArea area;
  area.tags = {{"Webhooks", "Endpoints, signed deliveries (Standard Webhooks), the delivery log, retries."},
               {"Webhook events", "What the service POSTs to your endpoints (the `webhooks` section)."}};
  for (const auto& t : pipeline::webhooks::EventTypes()) {
    area.webhooks[std::string(t.type)] = WebhookOperation(t);
  }
  core::Json& s = area.schemas;
  using namespace schema;
  const auto obj = Obj;
  const core::Json num = Num();
  const core::Json strs = Strs();
  const core::Json dt = DateTime();
  core::Json ep_props = {{"id", Id("whe")},
                         {"applicationId", Nullable(Id("app"))},
                         {"createdAt", dt},
                         {"description", Nullable(Str())},
                         {"environment", Enum({"live", "test"})},
                         {"events", Nullable({{"type", "array"}, {"items", Str()}})},
                         {"isActive", {{"type", "boolean"}}},
                         {"updatedAt", dt},
                         {"url", {{"type", "string"}, {"format", "uri"}}},
                         {"signatureScheme", Enum({"v1", "v1a"})},
                         {"publicKeys",
                          {{"type", "array"},
                           {"description", "v1a: the public keys (`whpk_…`) that verify this endpoint's deliveries, "
                                           "the one in force first (`validUntil` null), then the previous one until "
                                           "its overlap ends after a rotation; [] for v1"},
                           {"items", obj({{"publicKey", {{"type", "string"}, {"pattern", "^whpk_"}}},
                                          {"validUntil", Nullable(dt)}},
                                         {})}}}};
  std::vector<std::string> ep_required = {"id", "applicationId", "createdAt", "description", "environment",
                                          "events", "isActive", "updatedAt", "url", "signatureScheme", "publicKeys"};
  s["WebhookEndpointResponse"] = obj(ep_props, ep_required);
  core::Json created_ep = ep_props;
  created_ep["secret"] = Nullable({{"type", "string"},
                                   {"pattern", "^(whsec_|whpk_)"},
                                   {"description", "v1: the signing secret (`whsec_…`), shown only here; v1a: the "
                                                   "public key (`whpk_…`) to verify with (we keep the signing key)"}});
  std::vector<std::string> created_ep_required = ep_required;
  created_ep_required.push_back("secret");
  s["WebhookEndpointCreated"] = obj(created_ep, created_ep_required);
  s["WebhookEndpointList"] = {
      {"type", "object"},
      {"required", {"object", "data", "hasMore", "limit"}},
      {"properties",
       {{"object", {{"const", "list"}}},
        {"data", {{"type", "array"}, {"items", Ref("WebhookEndpointResponse")}}},
        {"hasMore", {{"type", "boolean"}}},
        {"nextCursor", Nullable(Str())},
        {"previousCursor", Nullable(Str())},
        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}},
        {"totalCount", Nullable({{"type", "integer"}})}}}};
  core::Json list_props = {{"object", {{"const", "list"}}},
                           {"hasMore", {{"type", "boolean"}}},
                           {"nextCursor", Nullable(Str())},
                           {"previousCursor", Nullable(Str())},
                           {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}},
                           {"totalCount", Nullable({{"type", "integer"}})}};
  s["WebhookDeliveryResponse"] = obj({{"id", Id("whd")},
                                      {"attempts", {{"type", "integer"}}},
                                      {"createdAt", dt},
                                      {"endpointId", Nullable(Id("whe"))},
                                      {"eventId", Nullable(Str())},
                                      {"eventType", Nullable(Str())},
                                      {"lastError", Nullable(Str())},
                                      {"lastStatusCode", Nullable({{"type", "integer"}})},
                                      {"nextRetryAt", Nullable(dt)},
                                      {"sentAt", Nullable(dt)},
                                      {"status", Enum({"pending", "sent", "failed"})},
                                      {"targetUrl", Str()},
                                      {"updatedAt", dt},
                                      {"callbackSessionId", Nullable(Id("vrf"))}},
                                     {"id", "attempts", "createdAt", "endpointId", "eventId", "eventType",
                                      "lastError", "lastStatusCode", "nextRetryAt", "sentAt", "status",
                                      "targetUrl", "updatedAt", "callbackSessionId"});
  s["WebhookDeliveryAttemptResponse"] = obj({{"attempt", {{"type", "integer"}}},
                                             {"attemptedAt", dt},
                                             {"statusCode", Nullable({{"type", "integer"}})},
                                             {"error", Nullable(Str())},
                                             {"latencyMs", {{"type", "integer"}}},
                                             {"outcome", Enum({"delivered", "retrying", "failed"})}},
                                            {"attempt", "attemptedAt", "statusCode", "error", "latencyMs", "outcome"});
  core::Json dl_list = list_props;
  dl_list["data"] = {{"type", "array"}, {"items", Ref("WebhookDeliveryResponse")}};
  s["WebhookDeliveryList"] = {{"type", "object"}, {"required", {"object", "data", "hasMore", "limit"}}, {"properties", dl_list}};
  core::Json at_list = list_props;
  at_list["data"] = {{"type", "array"}, {"items", Ref("WebhookDeliveryAttemptResponse")}};
  s["WebhookDeliveryAttemptList"] = {{"type", "object"}, {"required", {"object", "data", "hasMore", "limit"}}, {"properties", at_list}};
  s["WebhookEndpointCreate"] = obj({{"url", {{"type", "string"}, {"format", "uri"}, {"maxLength", 2048}}},
                                    {"applicationId", Nullable(Id("app"))},
                                    {"description", Nullable({{"type", "string"}, {"maxLength", 500}})},
                                    {"environment", Enum({"live", "test"})},
                                    {"events", Nullable({{"type", "array"}, {"maxItems", 32}, {"items", Str()}})},
                                    {"signatureScheme",
                                     {{"type", "string"},
                                      {"enum", {"v1", "v1a"}},
                                      // No `default` keyword: generated clients (openapi-typescript's
                                      // defaults) would make the member required (tests/typed-client).
                                      {"description", "v1 when absent: HMAC-SHA256 with a shared secret; v1a: "
                                                      "Ed25519, you hold only our public key (Standard Webhooks)"}}}},
                                   {"url"});
  s["WebhookEndpointUpdate"] = obj({{"url", Nullable({{"type", "string"}, {"format", "uri"}})},
                                    {"applicationId", Nullable(Id("app"))},
                                    {"description", Nullable(Str())},
                                    {"events", Nullable({{"type", "array"}, {"items", Str()}})},
                                    {"isActive", Nullable({{"type", "boolean"}})}},
                                   {});
  s["WebhookEventTypeCatalog"] = obj({{"eventTypes", {{"type", "array"},
                                                      {"items", obj({{"type", Str()},
                                                                     {"description", Str()},
                                                                     {"carriesReport", {{"type", "boolean"}}},
                                                                     {"emitted", {{"type", "boolean"},
                                                                                  {"description", "false for a type the spec names that nothing sends yet: subscribing is allowed, no delivery comes until it is"}}}},
                                                                    {})}}},
                                      {"patterns", {{"type", "array"}, {"items", Str()}}}},
                                     {"eventTypes", "patterns"});
  s["WebhookDeliveryPolicy"] = obj({{"backoffBaseSeconds", {{"type", "integer"}}},
                                    {"httpTimeoutSeconds", {{"type", "integer"}}},
                                    {"maxBackoffSeconds", {{"type", "integer"}}},
                                    {"rateLimitDefaultRpm", {{"type", "integer"}}},
                                    {"recommendedToleranceSeconds", {{"type", "integer"}}},
                                    {"permanentVsTransientRule", Str()},
                                    {"retryBudgetNote", Str()},
                                    {"signatureScheme", Str()}},
                                   {"backoffBaseSeconds", "httpTimeoutSeconds", "maxBackoffSeconds",
                                    "rateLimitDefaultRpm", "recommendedToleranceSeconds",
                                    "permanentVsTransientRule", "retryBudgetNote", "signatureScheme"});
  s["WebhookTestRequest"] = obj({{"eventType", Nullable(Str())}}, {});
  s["WebhookTestResult"] = obj({{"delivered", {{"type", "boolean"}}},
                                {"error", Nullable(Str())},
                                {"sentPayload", {{"description", "the body that was sent"},
                                                 {"anyOf", {Ref("VerificationVerdictEvent"),
                                                            Ref("VerificationExpiredEvent"),
                                                            Ref("ServiceTestEvent"),
                                                            Ref("CaseEscalatedEvent"),
                                                            Ref("BreachNotifiedEvent"),
                                                            Ref("AuditCheckpointPublishedEvent"),
                                                            Ref("AuditAccessEvent"),
                                                            Ref("CompanyVerificationCompletedEvent"),
                                                            Ref("AmlHitFoundEvent"),
                                                            Ref("ArcoRequestEvent")}}}},
                                {"statusCode", Nullable({{"type", "integer"}})}},
                               {"delivered", "error", "sentPayload", "statusCode"});
  s["WebhookSignatureVerifyRequest"] = obj({{"messageId", Str()},
                                            {"payload", Str()},
                                            {"signature", Str()},
                                            {"timestamp", {{"type", "integer"}}}},
                                           {"messageId", "payload", "signature", "timestamp"});
  s["WebhookSignatureVerifyResult"] = obj({{"expectedSignature", Str()}, {"valid", {{"type", "boolean"}}}},
                                          {"expectedSignature", "valid"});
  auto event = [&](core::Json type_schema, core::Json data) {
    return obj({{"apiVersion", {{"type", "string"}, {"format", "date"},
                                {"description", "version of the payload shape"}}},
                {"id", {{"type", "string"}, {"pattern", "^evt_[0-9a-f]{32}$"},
                        {"description", "the event id, stable across retries: de-duplicate on it"}}},
                {"type", std::move(type_schema)},
                {"data", std::move(data)}},
               {});
  };
  s["VerificationVerdictEvent"] = event(
      Enum({"verification.approved", "verification.declined", "verification.review_required",
            "verification.more_info_requested"}),
      obj({{"sessionId", Id("vrf")},
           {"trackingId", Id("trk")},
           {"decision", Ref("DecisionSummary")},
           {"report", Ref("VerificationReportDetail")},
           {"requestedInput", Ref("RequestedInput")}},
          {}));
  s["VerificationExpiredEvent"] =
      event({{"const", "verification.expired"}}, obj({{"sessionId", Id("vrf")}}, {}));
  s["ServiceTestEvent"] = event({{"const", "service.test"}},
                                obj({{"endpointId", Id("whe")}, {"message", Str()}}, {}));
  s["BreachNotifiedEvent"] = event({{"const", "compliance.breach_notified"}},
                                   obj({{"breachId", Id("brc")},
                                        {"severity", Enum({"low", "medium", "high", "critical"})},
                                        {"scope", Str()},
                                        {"detectedAt", DateTime()},
                                        {"subprocessorsAffected", Strs()}},
                                       {}));
  s["AuditCheckpointPublishedEvent"] = event(
      {{"const", "audit.checkpoint_published"}},
      obj({{"origin", {{"type", "string"}, {"description", "svc/audit/<tenant>/<environment>: the log and its key's name"}}},
           {"treeSize", {{"type", "integer"}, {"minimum", 1}}},
           {"rootHash", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
           {"checkpoint", {{"type", "string"},
                           {"description", "the C2SP tlog-checkpoint in a C2SP signed note (Ed25519); open it with "
                                           "the key of GET /v1/audit-logs/verify/checkpoint-key"}}}},
          {}));
  s["CompanyVerificationCompletedEvent"] = event(
      {{"const", "company.verification_completed"}},
      obj({{"companyId", Id("cmp")},
           {"run", {{"type", "integer"}, {"minimum", 1}}},
           {"status", Enum({"verified", "needs_review", "rejected"})},
           {"riskLevel", Enum({"low", "medium", "high"})},
           {"riskScore", {{"type", "integer"}}},
           {"verifiedAt", DateTime()}},
          {}));
  s["ArcoRequestEvent"] = event(
      Enum({"arco.request_received", "arco.information_requested", "arco.information_received", "arco.deadline_extended",
            "arco.request_accepted", "arco.request_denied", "arco.request_completed", "arco.request_withdrawn",
            "arco.request_lapsed", "arco.deadline_approaching", "arco.deadline_missed"}),
      obj({{"arcoRequestId", Id("arc")},
           {"right", Enum({"access", "rectification", "cancellation", "opposition"})},
           {"status", Str()},
           {"subjectType", Enum({"person", "company_member", "ubo_node"})},
           {"personId", Nullable(Id("per"))},
           {"companyId", Nullable(Id("cmp"))},
           {"subjectId", Nullable(Str())},
           {"reference", Nullable(Str())},
           {"responseDueAt", Nullable(DateTime())},
           {"informationDueAt", Nullable(DateTime())},
           {"effectDueAt", Nullable(DateTime())},
           {"denialReason", Nullable(Str())},
           {"fulfilledBy", Nullable(Str())},
           {"deadline", Enum({"response", "effect", "information"})},
           {"deadlineDueAt", Nullable(DateTime())}},
          {}));
  s["AmlHitFoundEvent"] = event(
      {{"const", "aml.hit_found"}},
      obj({{"hitId", Id("hit")},
           {"screeningId", Id("scr")},
           {"subjectType", Enum({"person", "company", "company_member", "ubo_node", "name"})},
           {"subjectId", Nullable(Str())},
           {"companyId", Nullable(Id("cmp"))},
           {"list", obj({{"source", Str()}, {"contentHash", Str()}}, {})},
           {"entryId", Str()},
           {"score", {{"type", "number"}}},
           {"foundAt", DateTime()}},
          {}));
  s["AuditAccessEvent"] = event(
      {{"const", "audit.event"}},
      Obj({{"eventId", {{"type", "string"}, {"pattern", "^evt_[0-9a-f]{32}$"},
                        {"description", "the access's event: the audit log entry with this eventId"}}},
           {"caseId", Nullable(Id("cas"))},
           {"personId", Nullable(Id("per"))},
           {"channel", Enum({"review_case", "review_media"})},
           {"fields", Strs()},
           {"actor", Obj({{"type", Enum({"user", "api_key"})}, {"id", Str()}}, {"type", "id"})},
           {"purpose", Nullable(Str())},
           {"accessedAt", DateTime()}},
          {"eventId", "caseId", "personId", "channel", "fields", "actor", "purpose", "accessedAt"}));
  s["CaseEscalatedEvent"] = event(
      {{"const", "case.escalated"}},
      Obj({{"caseId", Id("cas")},
           {"sessionId", Nullable(Id("vrf"))},
           {"level", {{"type", "integer"}, {"minimum", 1}}},
           {"priority", Enum({"low", "medium", "high", "critical"})},
           {"escalatedAt", DateTime()},
           {"escalatedBy", Obj({{"type", Enum({"user", "api_key"})}, {"id", Str()}}, {"type", "id"})}},
          {"caseId", "sessionId", "level", "priority", "escalatedAt", "escalatedBy"}));
  return area;
}

}  // namespace svc::api
