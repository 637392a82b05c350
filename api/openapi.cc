#include "api/openapi.h"

#include <map>
#include <set>

#include "core/error_catalogue.h"

namespace svc::api {

namespace {

core::Json Nullable(core::Json schema) {
  // OpenAPI 3.1 = JSON Schema 2020-12: nullable is a type union.
  if (schema.contains("type") && schema["type"].is_string()) {
    schema["type"] = core::Json::array({schema["type"], "null"});
  } else {
    schema = {{"anyOf", core::Json::array({schema, {{"type", "null"}}})}};
  }
  return schema;
}
core::Json Str() { return {{"type", "string"}}; }
core::Json DateTime() { return {{"type", "string"}, {"format", "date-time"}}; }
core::Json Id(const std::string& prefix) {
  return {{"type", "string"}, {"pattern", "^" + prefix + "_[0-9a-f]{32}$"}};
}
core::Json Enum(std::vector<std::string> values) { return {{"type", "string"}, {"enum", values}}; }
core::Json Ref(const std::string& name) { return {{"$ref", "#/components/schemas/" + name}}; }

const std::vector<std::string> kStatuses = {"pending",  "in_progress", "review",  "awaiting_input",
                                            "approved", "declined",    "expired", "abandoned"};

core::Json Components() {
  core::Json s;
  s["Problem"] = {
      {"type", "object"},
      {"description", "RFC 9457 problem details; `code` is the stable catalogue code."},
      {"required", {"type", "title", "status", "detail", "instance", "code", "requestId"}},
      {"properties",
       {{"type", {{"type", "string"}, {"format", "uri"}}},
        {"title", Str()},
        {"status", {{"type", "integer"}}},
        {"detail", Str()},
        {"instance", Str()},
        {"code", Str()},
        {"requestId", Str()},
        {"requiredScope", Str()},
        {"minimum", {{"type", "integer"}}},
        {"maximum", {{"type", "integer"}}},
        {"errors", {{"type", "array"}, {"items", Ref("FieldError")}}}}}};
  s["FieldError"] = {{"type", "object"},
                     {"required", {"field", "pointer", "code", "detail"}},
                     {"properties",
                      {{"field", Str()}, {"pointer", Str()}, {"code", Str()}, {"detail", Str()}}}};
  core::Json create_props = {
      {"channel", Enum({"api", "sdk", "link", "embed"})},
      {"applicationId", Nullable(Id("app"))},
      {"callbackUrl", Nullable({{"type", "string"}, {"format", "uri"}})},
      {"checks", Nullable({{"type", "object"},
                           {"additionalProperties", false},
                           {"properties",
                            {{"document", {{"type", "boolean"}}},
                             {"liveness", {{"type", "boolean"}}},
                             {"faceMatch", {{"type", "boolean"}}},
                             {"governmentLookup", {{"type", "boolean"}}},
                             {"deepfake", {{"type", "boolean"}}},
                             {"livenessMode", {{"type", "string"}, {"enum", {"passive", "active"}}}}}}})},
      {"clientReference", Nullable({{"type", "string"}, {"maxLength", 255}})},
      {"country", {{"type", "string"}, {"pattern", "^[A-Z]{2}$"}}},
      {"flow", Nullable({{"type", "string"}, {"maxLength", 64}})},
      {"flowId", Nullable(Id("flw"))},
      {"locale", Str()},
      {"meta", Nullable({{"type", "object"}})},
      {"notificationsMode", Enum({"service_managed", "integrator_managed"})},
      {"personId", Nullable(Id("per"))},
      {"policy", Nullable({{"type", "object"},
                           {"additionalProperties", false},
                           {"properties",
                            {{"faceMatchThreshold", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
                             {"livenessThreshold", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
                             {"imageQualityThreshold", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
                             {"requireGovernmentLookup", {{"type", "boolean"}}},
                             {"testOutcome", {{"description", "test keys only; docs/verification-pipeline.md"},
                                              {"type", "string"},
                                              {"enum", {"approved", "declined", "review", "analysis_error", "more_info"}}}}}}})},
      {"redirectUrl", Nullable({{"type", "string"}, {"format", "uri"}})}};
  s["VerificationSessionCreate"] = {{"type", "object"},
                                    {"required", {"channel"}},
                                    {"additionalProperties", false},
                                    {"properties", create_props}};
  core::Json rec_props = {{"id", Id("vrf")},
                          {"publicId", Str()},
                          {"tenantId", Id("ten")},
                          {"applicationId", Id("app")},
                          {"flowId", Nullable(Str())},
                          {"personId", Nullable(Str())},
                          {"channel", Enum({"api", "sdk", "link", "embed"})},
                          {"status", Enum(kStatuses)},
                          {"currentStep", Nullable(Str())},
                          {"clientReference", Nullable(Str())},
                          {"country", Str()},
                          {"locale", Str()},
                          {"trustScore", Nullable({{"type", "integer"}})},
                          {"createdAt", DateTime()},
                          {"updatedAt", DateTime()},
                          {"startedAt", Nullable(DateTime())},
                          {"completedAt", Nullable(DateTime())},
                          {"decidedAt", Nullable(DateTime())},
                          {"expiresAt", Nullable(DateTime())}};
  std::vector<std::string> rec_required;
  for (auto it = rec_props.begin(); it != rec_props.end(); ++it) rec_required.push_back(it.key());
  s["VerificationSessionResponse"] = {
      {"type", "object"}, {"required", rec_required}, {"properties", rec_props}};
  core::Json created_props = rec_props;
  created_props["linkToken"] = Nullable(Str());
  created_props["callbackSecret"] = Nullable(Str());
  created_props["deepLink"] = Nullable(Str());
  created_props["hostedUrl"] = Nullable(Str());
  created_props["requiresApp"] = {{"type", "boolean"}};
  std::vector<std::string> created_required = rec_required;
  created_required.push_back("linkToken");
  s["VerificationSessionCreated"] = {
      {"type", "object"}, {"required", created_required}, {"properties", created_props}};
  s["VerificationSessionList"] = {
      {"type", "object"},
      {"required", {"object", "data", "hasMore", "limit"}},
      {"properties",
       {{"object", {{"const", "list"}}},
        {"data", {{"type", "array"}, {"items", Ref("VerificationSessionResponse")}}},
        {"hasMore", {{"type", "boolean"}}},
        {"nextCursor", Nullable(Str())},
        {"previousCursor", Nullable(Str())},
        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}},
        {"totalCount", Nullable({{"type", "integer"}})}}}};
  auto obj = [](core::Json props, std::vector<std::string> required) {
    if (required.empty()) {
      for (auto it = props.begin(); it != props.end(); ++it) required.push_back(it.key());
    }
    return core::Json{{"type", "object"}, {"required", required}, {"properties", props}};
  };
  core::Json num = {{"type", "number"}};
  core::Json strs = {{"type", "array"}, {"items", Str()}};
  s["CaptureAnalysis"] = obj({{"status", Enum({"ok", "error"})},
                              {"confidence", Nullable(num)},
                              {"documentType", Nullable(Str())},
                              {"errorCode", Nullable(Str())},
                              {"extractedData", Nullable({{"type", "object"}})},
                              {"faceMatchScore", Nullable(num)},
                              {"issuingCountry", Nullable(Str())},
                              {"livenessScore", Nullable(num)},
                              {"qualityIssues", strs},
                              {"requiresBackPage", {{"type", "boolean"}, {"default", false}}},
                              {"retryHints", strs},
                              {"skipBack", {{"type", "boolean"}, {"default", false}}}},
                             {"status"});
  s["MediaCaptureResult"] = obj({{"kind", Enum({"document_front", "document_back", "selfie", "liveness_video"})},
                                 {"mediaId", Id("med")},
                                 {"mime", Str()},
                                 {"sha256", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                                 {"sizeBytes", {{"type", "integer"}}},
                                 {"status", Str()},
                                 {"analysis", Nullable(Ref("CaptureAnalysis"))}},
                                {"kind", "mediaId", "mime", "sha256", "sizeBytes", "status"});
  s["MediaCaptureUpload"] = obj({{"kind", Enum({"document_front", "document_back", "selfie", "liveness_video"})},
                                 {"file", {{"type", "string"}, {"format", "binary"}}},
                                 {"challengeId", Str()}},
                                {"kind", "file"});
  s["DecisionSummary"] = obj({{"outcome", Nullable(Enum({"approved", "declined", "review", "more_info"}))},
                              {"reasonCodes", strs},
                              {"trustScore", Nullable(num)},
                              {"decidedAt", Nullable(DateTime())},
                              {"decidedBy", Nullable(Str())},
                              {"caseId", Nullable(Str())}},
                             {});
  s["LivenessChallenge"] = obj({{"object", {{"const", "liveness_challenge"}}},
                                {"challengeId", Id("lch")},
                                {"sessionId", Id("vrf")},
                                {"actions", {{"type", "array"},
                                             {"minItems", 3},
                                             {"maxItems", 3},
                                             {"items", {{"type", "string"},
                                                        {"enum", {"blink", "turn_left", "turn_right"}}}}}},
                                {"createdAt", {{"type", "string"}, {"format", "date-time"}}},
                                {"expiresAt", {{"type", "string"}, {"format", "date-time"}}}},
                               {"object", "challengeId", "sessionId", "actions", "createdAt", "expiresAt"});
  core::Json dt = {{"type", "string"}, {"format", "date-time"}};
  core::Json ep_props = {{"id", Id("whe")},
                         {"applicationId", Nullable(Id("app"))},
                         {"createdAt", dt},
                         {"description", Nullable(Str())},
                         {"environment", Enum({"live", "test"})},
                         {"events", Nullable({{"type", "array"}, {"items", Str()}})},
                         {"isActive", {{"type", "boolean"}}},
                         {"updatedAt", dt},
                         {"url", {{"type", "string"}, {"format", "uri"}}}};
  std::vector<std::string> ep_required = {"id", "applicationId", "createdAt", "description", "environment",
                                          "events", "isActive", "updatedAt", "url"};
  s["WebhookEndpointResponse"] = obj(ep_props, ep_required);
  core::Json created_ep = ep_props;
  created_ep["secret"] = Nullable({{"type", "string"}, {"pattern", "^whsec_"}});
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
                                      {"updatedAt", dt}},
                                     {"id", "attempts", "createdAt", "endpointId", "eventId", "eventType",
                                      "lastError", "lastStatusCode", "nextRetryAt", "sentAt", "status",
                                      "targetUrl", "updatedAt"});
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
                                    {"events", Nullable({{"type", "array"}, {"maxItems", 32}, {"items", Str()}})}},
                                   {"url"});
  s["WebhookEndpointUpdate"] = obj({{"url", Nullable({{"type", "string"}, {"format", "uri"}})},
                                    {"applicationId", Nullable(Id("app"))},
                                    {"description", Nullable(Str())},
                                    {"events", Nullable({{"type", "array"}, {"items", Str()}})},
                                    {"isActive", Nullable({{"type", "boolean"}})}},
                                   {});
  s["WebhookEventTypeCatalog"] = obj({{"eventTypes", {{"type", "array"}, {"items", {{"type", "object"}}}}},
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
                                {"sentPayload", {{"type", "object"}}},
                                {"statusCode", Nullable({{"type", "integer"}})}},
                               {"delivered", "error", "sentPayload", "statusCode"});
  s["WebhookSignatureVerifyRequest"] = obj({{"messageId", Str()},
                                            {"payload", Str()},
                                            {"signature", Str()},
                                            {"timestamp", {{"type", "integer"}}}},
                                           {"messageId", "payload", "signature", "timestamp"});
  s["WebhookSignatureVerifyResult"] = obj({{"expectedSignature", Str()}, {"valid", {{"type", "boolean"}}}},
                                          {"expectedSignature", "valid"});
  s["SubmitResponse"] = obj({{"kind", {{"const", "pending"}}},
                             {"trackingId", Id("trk")},
                             {"status", Str()},
                             {"decision", Ref("DecisionSummary")},
                             {"caseId", Nullable(Str())}},
                            {"kind", "trackingId", "status", "decision"});
  core::Json bio_item = obj({{"checkType", Str()},
                             {"score", Nullable(num)},
                             {"threshold", Nullable(num)},
                             {"passed", Nullable({{"type", "boolean"}})},
                             {"modelName", Nullable(Str())},
                             {"latencyMs", Nullable({{"type", "integer"}})}},
                            {});
  s["BiometricCheckItem"] = bio_item;
  s["GovLookupItem"] = {{"type", "object"},
                        {"properties", {{"source", Str()}, {"check", Str()}, {"outcome", Str()},
                                        {"matched", Nullable({{"type", "boolean"}})}}}};
  s["DocumentSummary"] = {{"type", "object"},
                          {"properties", {{"documentType", Nullable(Str())},
                                          {"issuingCountry", Nullable(Str())},
                                          {"outcome", Str()},
                                          {"checks", {{"type", "object"}}},
                                          {"reasonCodes", strs}}}};
  core::Json bios = {{"type", "array"}, {"items", Ref("BiometricCheckItem")}};
  core::Json govs = {{"type", "array"}, {"items", Ref("GovLookupItem")}};
  s["EvidenceBundle"] = obj({{"sessionId", Id("vrf")},
                             {"createdAt", DateTime()},
                             {"completedAt", Nullable(DateTime())},
                             {"consent", Nullable({{"type", "object"}})},
                             {"decision", Nullable(Ref("DecisionSummary"))},
                             {"media", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                             {"scores", obj({{"deepfake", Nullable(num)}, {"faceMatch", Nullable(num)},
                                             {"imageQuality", Nullable(num)}, {"liveness", Nullable(num)}}, {})},
                             {"trustScore", Nullable(num)},
                             {"verificationStatus", Enum(kStatuses)},
                             {"biometric", bios},
                             {"document", Nullable(Ref("DocumentSummary"))},
                             {"gov", govs},
                             {"reuse", Nullable({{"type", "object"}})}},
                            {"sessionId", "createdAt", "completedAt", "consent", "decision", "media",
                             "scores", "trustScore", "verificationStatus"});
  s["VerificationReportDetail"] = obj({{"biometric", bios},
                                       {"channel", Str()},
                                       {"completedAt", Nullable(DateTime())},
                                       {"decidedAt", Nullable(DateTime())},
                                       {"createdAt", DateTime()},
                                       {"decision", Nullable({{"type", "object"}})},
                                       {"gov", govs},
                                       {"id", Id("vrf")},
                                       {"publicId", Str()},
                                       {"status", Str()},
                                       {"steps", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                                       {"trustBreakdown", Nullable({{"type", "object"}})},
                                       {"document", Nullable(Ref("DocumentSummary"))}},
                                      {"biometric", "channel", "completedAt", "decidedAt", "createdAt",
                                       "decision", "gov", "id", "publicId", "status", "steps",
                                       "trustBreakdown"});
  s["VerificationCertificate"] = obj({{"biometric", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                                      {"contentHash", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                                      {"decidedAt", Nullable(Str())},
                                      {"decidedBy", Nullable(Str())},
                                      {"environment", Enum({"live", "test"})},
                                      {"gov", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                                      {"media", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                                      {"outcome", Nullable(Str())},
                                      {"reasonCodes", strs},
                                      {"riskBasis", Nullable(Str())},
                                      {"riskGrade", Nullable(Str())},
                                      {"sessionId", Id("vrf")},
                                      {"signature", Str()},
                                      {"signatureEd25519", {{"type", "string"}, {"pattern", "^[0-9a-f]{128}$"}}},
                                      {"signingKeyId", {{"type", "string"}, {"pattern", "^ed25519:[0-9a-f]{16}$"}}},
                                      {"tenantId", Id("ten")},
                                      {"trustScore", Nullable(num)},
                                      {"verificationStatus", Nullable(Str())}},
                                     {});
  s["CertificateKeys"] = obj({{"object", {{"const", "certificate_keys"}}},
                              {"tenantId", Id("ten")},
                              {"environment", Enum({"live", "test"})},
                              {"keys", {{"type", "array"},
                                        {"items", obj({{"keyId", Str()},
                                                       {"algorithm", {{"const", "Ed25519"}}},
                                                       {"publicKey", Str()},
                                                       {"signs", Str()}}, {})}}}},
                             {});
  s["ProgressStream"] = {{"type", "string"},
                         {"description", "text/event-stream: id (= log position), event (= event type), data (JSON)"}};
  s["ConsentRequest"] = {{"type", "object"},
                         {"required", {"accepted"}},
                         {"additionalProperties", false},
                         {"properties",
                          {{"accepted", {{"type", "boolean"}}},
                           {"consentedAt", Nullable(DateTime())},
                           {"policyVersion", Str()},
                           {"subjectIpAddress", Nullable(Str())},
                           {"subjectUserAgent", Nullable(Str())}}}};
  s["ConsentResponse"] = {{"type", "object"},
                          {"required", {"consentGiven", "recordedAt", "status"}},
                          {"properties",
                           {{"consentGiven", {{"type", "boolean"}}},
                            {"recordedAt", DateTime()},
                            {"status", Enum(kStatuses)}}}};
  return s;
}

core::Json ProblemResponse(const std::set<std::string>& codes) {
  std::string list;
  for (const auto& c : codes) list += (list.empty() ? "" : ", ") + c;
  return {{"description", "Problem: " + list},
          {"content", {{"application/problem+json", {{"schema", Ref("Problem")}}}}}};
}

std::string OperationId(const ApiRoute& r) {
  std::string id = r.method == "GET" ? "get" : r.method == "POST" ? "post" : "op";
  bool upper = true;
  for (char c : r.path) {
    if (c == '/' || c == '-' || c == '_' || c == '{' || c == '}') {
      upper = true;
      continue;
    }
    id += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return id;
}

}  // namespace

core::Json BuildOpenApi(const std::vector<ApiRoute>& routes, const std::string& server_url) {
  core::Json doc;
  doc["openapi"] = "3.1.0";
  doc["info"] = {{"title", "Identity verification and compliance service"},
                 {"version", "1.0.0"},
                 {"description", "Generated from the server's route table. Errors are RFC 9457 "
                                 "problem details; codes are listed at /docs/errors."}};
  doc["servers"] = core::Json::array({{{"url", server_url}}});
  core::Json paths = core::Json::object();
  // Every route answers these, on top of its own codes.
  const std::vector<std::string> common = {"AUTHENTICATION_REQUIRED", "API_KEY_INVALID",
                                           "INSUFFICIENT_SCOPE", "RATE_LIMITED",
                                           "METHOD_NOT_ALLOWED", "INTERNAL_ERROR",
                                           "PAYLOAD_TOO_LARGE"};
  for (const auto& r : routes) {
    core::Json op;
    op["operationId"] = OperationId(r);
    op["summary"] = r.summary;
    op["security"] = core::Json::array({{{"bearerAuth", core::Json::array()}}});
    op["x-required-scope"] = r.scope;
    core::Json params = core::Json::array();
    size_t pos = 0;
    while ((pos = r.path.find('{', pos)) != std::string::npos) {
      size_t end = r.path.find('}', pos);
      std::string name = r.path.substr(pos + 1, end - pos - 1);
      params.push_back({{"name", name}, {"in", "path"}, {"required", true}, {"schema", Str()}});
      pos = end;
    }
    if (r.idempotency != IdempotencyRule::kNone) {
      params.push_back({{"name", "Idempotency-Key"},
                        {"in", "header"},
                        {"required", r.idempotency == IdempotencyRule::kRequired},
                        {"schema", {{"type", "string"}, {"minLength", 1}, {"maxLength", 255}}}});
    }
    if (r.versioned) {
      params.push_back({{"name", "Service-Version"}, {"in", "header"}, {"required", false},
                        {"schema", Str()}});
    }
    if (r.response_schema == "WebhookEndpointList") {
      params.push_back({{"name", "applicationId"}, {"in", "query"}, {"schema", Id("app")}});
      params.push_back({{"name", "limit"}, {"in", "query"},
                        {"schema", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"default", 20}}}});
      params.push_back({{"name", "startingAfter"}, {"in", "query"}, {"schema", Str()}});
      params.push_back({{"name", "endingBefore"}, {"in", "query"}, {"schema", Str()}});
    }
    if (r.response_schema == "VerificationSessionList") {
      params.push_back({{"name", "status"}, {"in", "query"}, {"schema", Enum(kStatuses)}});
      params.push_back({{"name", "applicationId"}, {"in", "query"}, {"schema", Id("app")}});
      params.push_back({{"name", "limit"}, {"in", "query"},
                        {"schema", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"default", 20}}}});
      params.push_back({{"name", "startingAfter"}, {"in", "query"}, {"schema", Str()}});
      params.push_back({{"name", "endingBefore"}, {"in", "query"}, {"schema", Str()}});
      params.push_back({{"name", "includeTotal"}, {"in", "query"}, {"schema", {{"type", "boolean"}}}});
    }
    if (r.request_schema == "MediaCaptureUpload") {
      params.push_back({{"name", "analyze"}, {"in", "query"}, {"schema", {{"type", "boolean"}}}});
    }
    if (r.response_schema == "ProgressStream") {
      params.push_back({{"name", "Last-Event-ID"}, {"in", "header"}, {"required", false},
                        {"schema", Str()}});
    }
    if (!params.empty()) op["parameters"] = params;
    if (r.request_schema == "MediaCaptureUpload") {
      op["requestBody"] = {{"required", true},
                           {"content", {{"multipart/form-data", {{"schema", Ref(r.request_schema)}}}}}};
    } else if (r.has_body) {
      op["requestBody"] = {{"required", true},
                           {"content", {{"application/json", {{"schema", Ref(r.request_schema)}}}}}};
    }
    core::Json responses;
    responses[std::to_string(r.success_status)] = {
        {"description", "Success"},
        {"content", {{r.response_schema == "ProgressStream" ? "text/event-stream" : "application/json",
                      {{"schema", Ref(r.response_schema)}}}}},
        {"headers", {{"Service-Request-Id", {{"schema", Str()}}}}}};
    std::map<int, std::set<std::string>> by_status;
    for (const auto& c : common) by_status[core::FindErrorCode(c)->http_status].insert(c);
    for (const auto& c : r.error_codes) {
      const core::ErrorCodeInfo* info = core::FindErrorCode(c);
      if (info != nullptr) by_status[info->http_status].insert(c);
    }
    for (const auto& [status, codes] : by_status) {
      responses[std::to_string(status)] = ProblemResponse(codes);
    }
    op["responses"] = responses;
    std::string method = r.method;
    for (auto& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    paths[r.path][method] = op;
  }
  paths["/v1/openapi.json"]["get"] = {
      {"operationId", "getOpenApi"},
      {"summary", "This document"},
      {"security", core::Json::array()},
      {"responses", {{"200", {{"description", "The OpenAPI document"},
                              {"content", {{"application/json", {{"schema", {{"type", "object"}}}}}}}}}}}};
  doc["paths"] = paths;
  doc["components"]["schemas"] = Components();
  doc["components"]["securitySchemes"] = {
      {"bearerAuth", {{"type", "http"}, {"scheme", "bearer"},
                      {"description", "svc_{live|test}_{sk|pk}_... API key"}}}};
  return doc;
}

}  // namespace svc::api
