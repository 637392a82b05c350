#include "api/openapi.h"

#include <map>
#include <set>

#include "core/error_catalogue.h"
#include "pipeline/webhooks/catalogue.h"

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
                              {"extractedData", Nullable(Ref("ExtractedData"))},
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
  s["WebhookEventTypeCatalog"] = obj({{"eventTypes", {{"type", "array"},
                                                      {"items", obj({{"type", Str()},
                                                                     {"description", Str()},
                                                                     {"carriesReport", {{"type", "boolean"}}}},
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
                                                            Ref("CaseEscalatedEvent")}}}},
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
  core::Json maybe_bool = Nullable({{"type", "boolean"}});
  s["GovLookupItem"] = obj({{"source", Enum({"renapo", "ine"})},
                            {"check", Enum({"curp", "ine_list"})},
                            {"outcome", Enum({"passed", "failed", "unavailable", "error"})},
                            {"matched", maybe_bool},
                            {"registryStatus", Nullable(Str())},
                            {"reasonCodes", Nullable(strs)},
                            {"checkedAt", Nullable(DateTime())}},
                           {"source", "check", "outcome", "matched"});
  s["DocumentChecks"] = obj({{"curpValid", maybe_bool},
                             {"mrzValid", maybe_bool},
                             {"notExpired", maybe_bool},
                             {"consistent", maybe_bool}},
                            {});
  s["DocumentSummary"] = obj({{"documentType", Nullable(Str())},
                              {"issuingCountry", Nullable(Str())},
                              {"outcome", Str()},
                              {"checks", Nullable(Ref("DocumentChecks"))},
                              {"confidence", Nullable(num)},
                              {"reasonCodes", Nullable(strs)}},
                             {"outcome"});
  s["ExtractedData"] = {
      {"type", "object"},
      {"description", "What was read from a document; members appear when read. `sex` uses "
                      "ICAO 9303 letters: F female, M male, X unspecified (a CURP's H/M are "
                      "translated)."},
      {"properties",
       {{"curp", Str()},
        {"birthDate", {{"type", "string"}, {"format", "date"}}},
        {"sex", Enum({"F", "M", "X"})},
        {"surname1", Str()},
        {"surname2", Str()},
        {"givenNames", Str()},
        {"documentNumber", Str()},
        {"expiryDate", {{"type", "string"}, {"format", "date"}}},
        {"mrz", strs},
        {"cic", Str()}}}};
  s["ConsentRecord"] = obj({{"consentGiven", {{"type", "boolean"}}},
                            {"consentedAt", Nullable(DateTime())},
                            {"recordedAt", DateTime()},
                            {"policyVersion", Nullable(Str())}},
                           {});
  s["MediaRef"] = obj({{"mediaId", Id("med")},
                       {"kind", Enum({"document_front", "document_back", "selfie", "liveness_video"})},
                       {"mime", Str()},
                       {"sha256", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                       {"sizeBytes", {{"type", "integer"}}},
                       {"capturedAt", DateTime()},
                       {"analysisStatus", Nullable(Enum({"ok", "error"}))}},
                      {});
  s["VerificationStepItem"] = obj({{"step", Enum({"document", "liveness", "face_match", "gov_curp", "gov_ine"})},
                                   {"status", Enum({"passed", "failed", "review", "unavailable", "error",
                                                    "incomplete", "skipped"})},
                                   {"completedAt", Nullable(DateTime())},
                                   {"reasonCodes", Nullable(strs)}},
                                  {});
  core::Json weights = obj({{"faceMatch", num}, {"liveness", num}, {"document", num}, {"government", num}}, {});
  s["TrustBreakdown"] = {
      {"type", "object"},
      {"description", "How the trust score was made (docs/verification-pipeline.md#trust-score-and-risk-grade): "
                      "each component's score (null when that check did not score), the weights, "
                      "the cap a failed biometric check applies, the result and the risk grade."},
      {"required", {"method", "weights", "trustScore"}},
      {"properties",
       {{"method", Enum({"weighted_mean/v1", "weighted_mean/v2"})},
        {"weights", weights},
        {"faceMatch", Nullable(num)},
        {"liveness", Nullable(num)},
        {"document", Nullable(num)},
        {"government", Nullable(num)},
        {"cappedBy", Nullable(Enum({"failed_biometric_check"}))},
        {"trustScore", Nullable(num)},
        {"riskGrade", Nullable(Enum({"low", "medium", "high"}))},
        {"riskBasis", Nullable(Str())}}}};
  s["VerificationReportDecision"] = obj({{"outcome", Enum({"approved", "declined", "review", "more_info"})},
                                         {"reasonCodes", strs},
                                         {"trustScore", Nullable(num)},
                                         {"decidedAt", Nullable(DateTime())},
                                         {"decidedBy", Nullable(Str())},
                                         {"policyVersion", Str()}},
                                        {});
  s["CertificateBiometric"] = obj({{"checkType", Enum({"liveness", "face_match"})},
                                   {"score", Nullable(num)},
                                   {"threshold", Nullable(num)},
                                   {"passed", maybe_bool},
                                   {"modelName", Nullable(Str())}},
                                  {});
  s["CertificateGov"] = obj({{"source", Enum({"renapo", "ine"})},
                             {"check", Enum({"curp", "ine_list"})},
                             {"outcome", Enum({"passed", "failed", "unavailable", "error"})},
                             {"matched", maybe_bool}},
                            {});
  s["CertificateMedia"] = obj({{"mediaId", Id("med")},
                               {"kind", Enum({"document_front", "document_back", "selfie", "liveness_video"})},
                               {"sha256", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}}},
                              {});
  core::Json bios = {{"type", "array"}, {"items", Ref("BiometricCheckItem")}};
  core::Json govs = {{"type", "array"}, {"items", Ref("GovLookupItem")}};
  s["EvidenceBundle"] = obj({{"sessionId", Id("vrf")},
                             {"createdAt", DateTime()},
                             {"completedAt", Nullable(DateTime())},
                             {"consent", Nullable(Ref("ConsentRecord"))},
                             {"decision", Nullable(Ref("DecisionSummary"))},
                             {"media", {{"type", "array"}, {"items", Ref("MediaRef")}}},
                             {"scores", obj({{"deepfake", Nullable(num)}, {"faceMatch", Nullable(num)},
                                             {"imageQuality", Nullable(num)}, {"liveness", Nullable(num)}}, {})},
                             {"trustScore", Nullable(num)},
                             {"verificationStatus", Enum(kStatuses)},
                             {"biometric", bios},
                             {"document", Nullable(Ref("DocumentSummary"))},
                             {"gov", govs},
                             {"reuse", {{"type", "null"}, {"description", "not built yet: always null"}}}},
                            {"sessionId", "createdAt", "completedAt", "consent", "decision", "media",
                             "scores", "trustScore", "verificationStatus"});
  s["VerificationReportDetail"] = obj({{"biometric", bios},
                                       {"channel", Str()},
                                       {"completedAt", Nullable(DateTime())},
                                       {"decidedAt", Nullable(DateTime())},
                                       {"createdAt", DateTime()},
                                       {"decision", Nullable(Ref("VerificationReportDecision"))},
                                       {"gov", govs},
                                       {"id", Id("vrf")},
                                       {"publicId", Str()},
                                       {"status", Str()},
                                       {"steps", {{"type", "array"}, {"items", Ref("VerificationStepItem")}}},
                                       {"trustBreakdown", Nullable(Ref("TrustBreakdown"))},
                                       {"document", Nullable(Ref("DocumentSummary"))}},
                                      {"biometric", "channel", "completedAt", "decidedAt", "createdAt",
                                       "decision", "gov", "id", "publicId", "status", "steps",
                                       "trustBreakdown"});
  s["VerificationCertificate"] = obj({{"biometric", {{"type", "array"}, {"items", Ref("CertificateBiometric")}}},
                                      {"contentHash", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                                      {"decidedAt", Nullable(Str())},
                                      {"decidedBy", Nullable(Str())},
                                      {"environment", Enum({"live", "test"})},
                                      {"gov", {{"type", "array"}, {"items", Ref("CertificateGov")}}},
                                      {"media", {{"type", "array"}, {"items", Ref("CertificateMedia")}}},
                                      {"outcome", Nullable(Str())},
                                      {"reasonCodes", strs},
                                      {"riskBasis", Nullable(Str())},
                                      {"riskGrade", Nullable(Enum({"low", "medium", "high"}))},
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
  s["ProgressStream"] = {
      {"type", "string"},
      {"contentMediaType", "text/event-stream"},
      {"contentSchema", Ref("ProgressEvent")},
      {"description",
       "Server-Sent Events. Each event is `id: <partition>-<offset>` (resume with Last-Event-ID), "
       "`event: <type>` and `data: <JSON>` (ProgressEvent). Types: "
       "`verification.session_created`, `verification.consent_recorded`, "
       "`verification.media_captured`, `verification.liveness_challenge_issued`, "
       "`verification.session_submitted`, `verification.stage_completed` (one per stage), a "
       "verdict (`verification.approved`, `.declined`, `.review_required`, "
       "`.more_info_requested`) and `verification.session_expired`. Idle streams get a "
       "`: keep-alive` comment line. After a final event the stream ends. `contentSchema` is "
       "the JSON of each event's `data` line."}};
  s["ProgressEvent"] = {
      {"type", "object"},
      {"description", "The `data` of one progress event; no personal data."},
      {"required", {"type", "at", "sessionId"}},
      {"properties",
       {{"type", Str()},
        {"at", DateTime()},
        {"sessionId", Id("vrf")},
        {"consentGiven", {{"type", "boolean"}, {"description", "consent_recorded"}}},
        {"kind", {{"type", "string"}, {"description", "media_captured: the capture kind"}}},
        {"mediaId", {{"type", "string"}, {"description", "media_captured"}}},
        {"trackingId", {{"type", "string"}, {"description", "submitted, stage_completed, verdicts"}}},
        {"stage", {{"type", "string"}, {"description", "stage_completed"}}},
        {"outcome", {{"type", "string"}, {"description", "stage_completed and verdicts"}}},
        {"score", {{"type", {"number", "null"}}, {"description", "stage_completed"}}},
        {"reasonCodes", {{"type", "array"}, {"items", Str()}}},
        {"trustScore", {{"type", {"number", "null"}}, {"description", "verdicts (0-1)"}}}}}};
  // Webhook deliveries: the bodies of the `webhooks` section.
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
           {"report", Ref("VerificationReportDetail")}},
          {}));
  s["VerificationExpiredEvent"] =
      event({{"const", "verification.expired"}}, obj({{"sessionId", Id("vrf")}}, {}));
  s["ServiceTestEvent"] = event({{"const", "service.test"}},
                                obj({{"endpointId", Id("whe")}, {"message", Str()}}, {}));
  s["CaseEscalatedEvent"] = event(
      {{"const", "case.escalated"}},
      {{"type", "object"},
       {"description", "Defined by the review API, which emits it; not sent by this version."}});
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

// Tags: one per area, in the order of the document.
const std::vector<std::pair<std::string, std::string>>& Tags() {
  static const std::vector<std::pair<std::string, std::string>> kTags = {
      {"Verification sessions", "Create, consent, read and list verification sessions."},
      {"Verification flow",
       "Captures, submission, evidence, report, the signed certificate and the progress stream."},
      {"Webhooks", "Endpoints, signed deliveries (Standard Webhooks), the delivery log, retries."},
      {"Webhook events", "What the service POSTs to your endpoints (the `webhooks` section)."},
      {"Meta", "This document."},
  };
  return kTags;
}

core::Json PathParameter(const std::string& name) {
  std::map<std::string, std::pair<std::string, std::string>> known = {
      {"session_id", {"vrf", "the verification session"}},
      {"endpoint_id", {"whe", "the webhook endpoint"}},
      {"delivery_id", {"whd", "the webhook delivery"}}};
  core::Json schema = Str();
  std::string description = name;
  if (auto it = known.find(name); it != known.end()) {
    schema = Id(it->second.first);
    description = it->second.second;
  }
  return {{"name", name}, {"in", "path"}, {"required", true}, {"description", description},
          {"schema", schema}};
}

core::Json WebhookOperation(const pipeline::webhooks::EventType& t) {
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
        {"description", "`v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`; "
                        "two, space-separated, for 24 hours after a rotation"},
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

core::Json BuildOpenApi(const std::vector<ApiRoute>& routes, const std::string& server_url) {
  core::Json doc;
  doc["openapi"] = "3.1.0";
  doc["info"] = {
      {"title", "Identity verification and compliance service"},
      {"version", "1.0.0"},
      {"description",
       "Generated from the server's route table. Every error is RFC 9457 problem+json with a "
       "stable `code` (catalogue at /docs/errors). The API key fixes the environment (test or "
       "live). Lists use cursor pagination (`limit`, `startingAfter`, `endingBefore`)."},
      {"contact", {{"name", "svc API support"}, {"url", server_url + "/docs/errors"}}},
      {"license", {{"name", "Proprietary"}, {"identifier", "LicenseRef-Proprietary"}}}};
  doc["servers"] = core::Json::array({{{"url", server_url}, {"description", "this server"}}});
  core::Json tags = core::Json::array();
  for (const auto& [name, description] : Tags()) {
    tags.push_back({{"name", name}, {"description", description}});
  }
  doc["tags"] = tags;
  core::Json paths = core::Json::object();
  // Every route answers these, on top of its own codes.
  const std::vector<std::string> common = {"AUTHENTICATION_REQUIRED", "API_KEY_INVALID",
                                           "INSUFFICIENT_SCOPE", "RATE_LIMITED",
                                           "METHOD_NOT_ALLOWED", "INTERNAL_ERROR",
                                           "PAYLOAD_TOO_LARGE"};
  for (const auto& r : routes) {
    core::Json op;
    op["operationId"] = r.operation_id;
    op["tags"] = {r.tag};
    op["summary"] = r.summary;
    op["description"] = r.description.empty() ? r.summary : r.description;
    op["security"] = core::Json::array({{{"bearerAuth", core::Json::array()}}});
    op["x-required-scope"] = r.scope;
    core::Json params = core::Json::array();
    size_t pos = 0;
    while ((pos = r.path.find('{', pos)) != std::string::npos) {
      size_t end = r.path.find('}', pos);
      params.push_back(PathParameter(r.path.substr(pos + 1, end - pos - 1)));
      pos = end;
    }
    for (const auto& q : r.query) {
      params.push_back({{"name", q.name}, {"in", "query"}, {"required", false},
                        {"description", q.description}, {"schema", q.schema}});
    }
    if (r.idempotency != IdempotencyRule::kNone) {
      params.push_back({{"name", "Idempotency-Key"},
                        {"in", "header"},
                        {"required", r.idempotency == IdempotencyRule::kRequired},
                        {"description", "1-255 printable ASCII characters; a retry with the same "
                                        "key and body answers the same result"},
                        {"schema", {{"type", "string"}, {"minLength", 1}, {"maxLength", 255}}}});
    }
    if (r.versioned) {
      params.push_back({{"name", "Service-Version"}, {"in", "header"}, {"required", false},
                        {"description", "payload version; default 2026-01-01"},
                        {"schema", Str()}});
    }
    for (const auto& h : r.headers) {
      params.push_back({{"name", h}, {"in", "header"}, {"required", false},
                        {"description", "the id of the last event received (resume)"},
                        {"schema", Str()}});
    }
    if (!params.empty()) op["parameters"] = params;
    if (!r.request_schema.empty()) {
      op["requestBody"] = {{"required", true},
                           {"content", {{r.request_content_type, {{"schema", Ref(r.request_schema)}}}}}};
    }
    core::Json ok_content = {{"schema", Ref(r.response_schema)}};
    core::Json response_headers = {
        {"Service-Request-Id", {{"description", "this request's id (also `requestId` in errors)"},
                                {"schema", Str()}}}};
    if (r.idempotency != IdempotencyRule::kNone) {
      response_headers["Idempotent-Replayed"] = {
          {"description", "`true` on the answer to a retry with the same Idempotency-Key"},
          {"schema", {{"type", "string"}, {"enum", {"true"}}}}};
    }
    core::Json responses;
    responses[std::to_string(r.success_status)] = {
        {"description", "Success"},
        {"content", {{r.response_content_type, ok_content}}},
        {"headers", response_headers}};
    if (r.response_content_type == "text/event-stream") {
      responses["204"] = {{"description", "The stream is over and the client has its final event "
                                          "(Last-Event-ID): do not reconnect"}};
    }
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
      {"operationId", "getOpenApiDocument"},
      {"tags", {"Meta"}},
      {"summary", "This document"},
      {"description", "The OpenAPI 3.1 document of this server, generated from its route table."},
      {"security", core::Json::array()},
      {"responses", {{"200", {{"description", "The OpenAPI document"},
                              {"content", {{"application/json", {{"schema", {{"type", "object"}}}}}}}}},
                     {"400", ProblemResponse({"BAD_REQUEST"})}}}};
  doc["paths"] = paths;
  core::Json webhooks = core::Json::object();
  for (const auto& t : pipeline::webhooks::EventTypes()) {
    webhooks[std::string(t.type)] = WebhookOperation(t);
  }
  doc["webhooks"] = webhooks;
  doc["components"]["schemas"] = Components();
  doc["components"]["securitySchemes"] = {
      {"bearerAuth", {{"type", "http"}, {"scheme", "bearer"},
                      {"description", "svc_{live|test}_{sk|pk}_... API key"}}},
      {"webhookSignature",
       {{"type", "apiKey"}, {"in", "header"}, {"name", "webhook-signature"},
        {"description", "How a receiver authenticates our deliveries: verify the Standard "
                        "Webhooks signature with the endpoint's secret (`whsec_…`)"}}}};
  return doc;
}

}  // namespace svc::api
