// The OpenAPI schemas, tags of the verification-session area (sessions_api.cc,
// verification_api.cc, the progress stream).
#include "api/sessions/routes.h"
#include "commands/verification/session_status.h"

namespace svc::api {

OpenApiArea SessionsOpenApi() {
  OpenApiArea area;
  area.tags = {{"Verification sessions", "Create, consent, read and list verification sessions."},
               {"Verification flow",
                "Captures, submission, evidence, report, the signed certificate and the progress "
                "stream."}};
  core::Json& s = area.schemas;
  using namespace schema;
  const auto obj = Obj;
  const core::Json num = Num();
  const core::Json strs = Strs();
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
                             {"efirma", {{"type", "boolean"},
                                         {"description", "an e.firma possession proof (off unless turned on; "
                                                         "POST …/efirma/challenges)"}}},
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
                             {"deepfakeThreshold", {{"description", "deepfake score at or above which the session goes to review (default 0.5)"},
                                                    {"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
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
                          {"status", Enum(commands::verification::SessionStatuses())},
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
  // Present while the session waits for more from its applicant (status awaiting_input after
  // verification.more_info_requested): pipeline/verification/requested_input.h.
  s["RequestedInput"] = {
      {"type", "object"},
      {"description",
       "what the applicant is asked for after 'more information': the verdict's reason codes, the captures to "
       "take again (empty: every capture), the reviewer's words for the applicant (null when none, or once the "
       "session's data was erased) and when it was asked"},
      {"required", {"reasonCodes", "captures", "message", "requestedAt"}},
      {"properties",
       {{"reasonCodes", {{"type", "array"}, {"items", Str()}}},
        {"captures", {{"type", "array"},
                      {"items", Enum({"document_front", "document_back", "selfie", "liveness_video"})}}},
        {"message", Nullable({{"type", "string"}, {"maxLength", 2000}})},
        {"requestedAt", DateTime()}}}};
  rec_props["requestedInput"] = Nullable(Ref("RequestedInput"));
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
                                 {"challengeId", Str()},
                                 {"captureSource", Enum({"camera", "file"})},
                                 {"captureFacts",
                                  {{"type", "string"},
                                   {"maxLength", 8192},
                                   {"description",
                                    "JSON object: how the capture client made the capture (source, device label, "
                                    "track settings and capabilities, constraints asked, recorder, frameIntervalsMs); "
                                    "sealed with the capture, judged for injection signals "
                                    "(docs/biometrics.md#injection-signals)"}}}},
                                {"kind", "file"});
  s["DecisionSummary"] = obj({{"outcome", Nullable(Enum({"approved", "declined", "review", "more_info"}))},
                              {"reasonCodes", strs},
                              {"trustScore", Nullable(num)},
                              {"decidedAt", Nullable(DateTime())},
                              {"decidedBy", Nullable(Str())},
                              {"caseId", Nullable(Str())}},
                             {});
  // Present when a reviewer decided (decidedBy "review"): who (two under double approval).
  s["DecisionSummary"]["properties"]["reviewers"] = {
      {"type", "array"},
      {"items", Obj({{"type", Enum({"user", "api_key"})}, {"id", Str()}}, {"type", "id"})}};
  s["EfirmaChallenge"] = obj({{"object", {{"const", "efirma_challenge"}}},
                              {"challengeId", Id("efc")},
                              {"sessionId", Id("vrf")},
                              {"challenge", {{"type", "string"}, {"description", "the exact text to sign (UTF-8)"}}},
                              {"expiresAt", {{"type", "string"}, {"format", "date-time"}}},
                              {"signatureAlgorithm", {{"type", "string"}}}},
                             {"object", "challengeId", "sessionId", "challenge", "expiresAt", "signatureAlgorithm"});
  s["EfirmaChallengeCreate"] = obj(
      {{"consent", obj({{"purpose", {{"type", "string"}, {"maxLength", 100}, {"description", "a purpose of the catalogue"}}},
                        {"policyVersion", {{"type", "string"}, {"minLength", 1}, {"maxLength", 200}}}},
                       {"purpose", "policyVersion"})}},
      {});
  s["EfirmaAnswer"] = obj({{"challengeId", Id("efc")},
                           {"certificate", {{"type", "string"}, {"description", "base64 of the .cer file (DER)"}}},
                           {"signature", {{"type", "string"}, {"description", "base64 of the signature of the challenge"}}}},
                          {"challengeId", "certificate", "signature"});
  const core::Json match = {{"type", "string"}, {"enum", {"match", "mismatch", "not_compared"}}};
  s["EfirmaCertificate"] = obj({{"sha256", {{"type", "string"}}},
                                {"serialNumber", {{"type", "string"}}},
                                {"issuer", {{"type", "string"}}},
                                {"notAfter", Nullable({{"type", "string"}, {"format", "date-time"}})}},
                               {"sha256", "serialNumber", "issuer", "notAfter"});
  s["EfirmaCheck"] = obj({{"object", {{"const", "efirma_check"}}},
                          {"challengeId", Id("efc")},
                          {"status", {{"type", "string"}, {"enum", {"passed", "failed"}}}},
                          {"reasonCodes", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                          {"certificate", Ref("EfirmaCertificate")},
                          {"ocsp", {{"type", "string"},
                                    {"enum", {"good", "revoked", "unknown", "unavailable", "not_checked", "skipped"}}}},
                          {"holder", obj({{"rfc", match}, {"curp", match}}, {"rfc", "curp"})},
                          {"signatureSha256", {{"type", "string"}}},
                          {"checkedAt", {{"type", "string"}, {"format", "date-time"}}}},
                         {"object", "challengeId", "status", "reasonCodes", "certificate", "ocsp", "holder",
                          "signatureSha256", "checkedAt"});
  s["Handoff"] = obj({{"object", {{"const", "handoff"}}},
                      {"sessionId", Id("vrf")},
                      {"url", {{"type", "string"}, {"format", "uri"}}},
                      {"expiresAt", DateTime()}},
                     {"object", "sessionId", "url", "expiresAt"});
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
                            {"fields", Nullable({{"type", "object"},
                                                 {"additionalProperties",
                                                  Enum({"match", "mismatch", "not_compared", "not_found", "valid", "not_valid"})}})},
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
                       {"analysisStatus", Nullable(Enum({"ok", "error"}))},
                       {"purgedAt", Nullable(DateTime())}},
                      {});
  s["VerificationStepItem"] = obj({{"step", Enum({"document", "liveness", "face_match", "deepfake", "gov_curp", "gov_ine", "efirma"})},
                                   {"status", Enum({"passed", "failed", "review", "unavailable", "error",
                                                    "incomplete", "skipped"})},
                                   {"completedAt", Nullable(DateTime())},
                                   {"reasonCodes", Nullable(strs)}},
                                  {});
  core::Json weights =
      obj({{"faceMatch", num}, {"liveness", num}, {"document", num}, {"government", num}, {"efirma", num}}, {});
  // A session's e.firma stage as its evidence and report show it (the certificate: the short form).
  const core::Json ocsp_enum = {{"type", "string"},
                                {"enum", {"good", "revoked", "unknown", "unavailable", "not_checked", "skipped"}}};
  s["EfirmaCertificateSummary"] = obj({{"outcome", Enum({"passed", "failed", "review", "incomplete"})},
                                       {"reasonCodes", strs},
                                       {"certificateSha256", Nullable(Str())},
                                       {"ocsp", Nullable(ocsp_enum)},
                                       {"checkedAt", Nullable(DateTime())}},
                                      {"outcome", "reasonCodes", "certificateSha256", "ocsp", "checkedAt"});
  core::Json efirma_match = Enum({"match", "mismatch", "not_compared"});
  s["EfirmaSummary"] = obj({{"outcome", Enum({"passed", "failed", "review", "incomplete"})},
                            {"reasonCodes", strs},
                            {"certificateSha256", Nullable(Str())},
                            {"ocsp", Nullable(ocsp_enum)},
                            {"checkedAt", Nullable(DateTime())},
                            {"challengeId", Nullable(Id("efc"))},
                            {"certificate", Nullable(Ref("EfirmaCertificate"))},
                            {"holder", Nullable(obj({{"rfc", efirma_match}, {"curp", efirma_match}, {"document", efirma_match}},
                                                    {"rfc", "curp", "document"}))},
                            {"signatureSha256", Nullable(Str())}},
                           {"outcome", "reasonCodes", "certificateSha256", "ocsp", "checkedAt", "challengeId",
                            "certificate", "holder", "signatureSha256"});
  s["TrustBreakdown"] = {
      {"type", "object"},
      {"description", "How the trust score was made (docs/verification-pipeline.md#trust-score-and-risk-grade): "
                      "each component's score (null when that check did not score), the weights, "
                      "the cap a failed biometric check applies, the result and the risk grade."},
      {"required", {"method", "weights", "trustScore"}},
      {"properties",
       {{"method", Enum({"weighted_mean/v1", "weighted_mean/v2", "weighted_mean/v3"})},
        {"weights", weights},
        {"faceMatch", Nullable(num)},
        {"liveness", Nullable(num)},
        {"document", Nullable(num)},
        {"government", Nullable(num)},
        {"efirma", Nullable(num)},
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
  s["CertificateBiometric"] = obj({{"checkType", Enum({"liveness", "face_match", "deepfake"})},
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
                             {"verificationStatus", Enum(commands::verification::SessionStatuses())},
                             {"biometric", bios},
                             {"document", Nullable(Ref("DocumentSummary"))},
                             {"gov", govs},
                             {"efirma", Nullable(Ref("EfirmaSummary"))},
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
                                       {"document", Nullable(Ref("DocumentSummary"))},
                                       {"efirma", Nullable(Ref("EfirmaSummary"))}},
                                      {"biometric", "channel", "completedAt", "decidedAt", "createdAt",
                                       "decision", "gov", "id", "publicId", "status", "steps",
                                       "trustBreakdown"});
  s["VerificationCertificate"] = obj({{"timestamps", {{"type", "array"}, {"items", Ref("EvidenceTimestamp")}}},
                                      {"biometric", {{"type", "array"}, {"items", Ref("CertificateBiometric")}}},
                                      {"contentHash", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                                      {"decidedAt", Nullable(Str())},
                                      {"decidedBy", Nullable(Str())},
                                      {"environment", Enum({"live", "test"})},
                                      {"gov", {{"type", "array"}, {"items", Ref("CertificateGov")}}},
                                      {"efirma", Ref("EfirmaCertificateSummary")},
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
                            {"status", Enum(commands::verification::SessionStatuses())}}}};
  return area;
}

}  // namespace svc::api
