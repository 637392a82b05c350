// The OpenAPI schemas and tag of the review area (review_api.cc).
#include "api/review/routes.h"
#include "commands/review/case_status.h"

namespace svc::api::review {

OpenApiArea ReviewOpenApi() {
  OpenApiArea area;
  area.tags = {{"Manual review",
                "Cases the engine could not decide, worked by people: the queue (priority, then SLA), the case "
                "lock, notes, reassignment and release. See docs/review.md for the case states and the "
                "priority policy."}};
  core::Json& s = area.schemas;
  using namespace schema;
  const core::Json integer = {{"type", "integer"}};
  const core::Json status = Enum(commands::review::CaseStatuses());
  const core::Json priority = Enum({"low", "medium", "high", "critical"});
  s["ReviewQueueItem"] = Obj({{"object", {{"const", "review_case"}}},
                              {"caseId", Id("cas")},
                              {"publicId", {{"type", "string"}, {"pattern", "^CASE-[0-9]{6,}$"}}},
                              {"caseNumber", integer},
                              {"tenantId", Id("ten")},
                              {"environment", Enum({"live", "test"})},
                              {"applicationId", Nullable(Id("app"))},
                              {"sessionId", Nullable(Id("vrf"))},
                              {"status", status},
                              {"priority", priority},
                              {"reason", Nullable(Str())},
                              {"reasonCodes", Strs()},
                              {"assigneeUserId", Nullable(Id("usr"))},
                              {"assigneeApiKeyId", Nullable(Id("key"))},
                              {"claimedAt", Nullable(DateTime())},
                              {"slaDueAt", Nullable(DateTime())},
                              {"escalatedAt", Nullable(DateTime())},
                              {"escalationLevel", integer},
                              {"awaitingSecondApproval", {{"type", "boolean"}}},
                              {"proposedResolution", Nullable({{"type", "object"}})},
                              {"resolution", Nullable(Str())},
                              {"resolvedAt", Nullable(DateTime())},
                              {"createdAt", DateTime()},
                              {"updatedAt", DateTime()}},
                             {"object", "caseId", "publicId", "caseNumber", "tenantId", "status", "priority", "reason",
                              "assigneeUserId", "claimedAt", "slaDueAt", "escalatedAt", "resolution", "createdAt"});
  s["ReviewQueueList"] = List("ReviewQueueItem");
  s["ReviewQueueSummary"] = Obj({{"open", integer},
                                 {"inProgress", integer},
                                 {"escalated", integer},
                                 {"resolved", integer},
                                 {"closed", integer},
                                 {"total", integer}},
                                {});
  s["ReviewQueueSummary"]["required"] = core::Json::array();
  s["ClaimResult"] = Obj({{"caseId", Id("cas")},
                          {"claimedAt", Nullable(DateTime())},
                          {"status", status},
                          {"assigneeUserId", Nullable(Id("usr"))},
                          {"assigneeApiKeyId", Nullable(Id("key"))}},
                         {"caseId", "claimedAt", "status"});
  s["ReviewNoteRequest"] = Obj({{"note", {{"type", "string"}, {"minLength", 1}, {"maxLength", 4000}}}}, {"note"});
  s["ReviewResolveRequest"] = Obj({{"action", Enum({"approve", "decline", "request_more_info", "escalate", "note", "assign"})},
                                   {"note", Nullable({{"type", "string"}, {"maxLength", 4000}})},
                                   {"applicantMessage",
                                    Nullable({{"type", "string"},
                                              {"maxLength", 2000},
                                              {"description",
                                               "request_more_info only: words for the applicant, in their language "
                                               "(at most 500 characters); shown on their page, in the session's "
                                               "requestedInput and the webhook; sealed at rest"}})},
                                   {"reasonCodes", Nullable({{"type", "array"}, {"maxItems", 20}, {"items", Str()}})}},
                                  {"action"});
  s["ResolveResult"] = Obj({{"caseId", Id("cas")},
                            {"caseStatus", status},
                            {"sessionStatus", Str()},
                            {"awaitingSecondApproval", {{"type", "boolean"}}},
                            {"outcome", Nullable(Enum({"approved", "declined", "awaiting_input"}))}},
                           {"caseId", "caseStatus", "sessionStatus"});
  // The case detail (GET /v1/review/cases/{case_id}).
  s["CaseSummary"] = s["ReviewQueueItem"];
  s["CaseSummary"]["properties"].erase("object");
  {
    core::Json req = core::Json::array();
    for (const auto& k : s["ReviewQueueItem"]["required"]) {
      if (k != "object") req.push_back(k);
    }
    s["CaseSummary"]["required"] = req;
  }
  const core::Json nstr = Nullable(Str());
  s["ApplicantPII"] = Obj({{"personId", Id("per")},
                           {"fullName", nstr},
                           {"curp", nstr},
                           {"rfc", nstr},
                           {"claveElector", nstr},
                           {"email", nstr},
                           {"phone", nstr},
                           {"birthDate", Nullable({{"type", "string"}, {"format", "date"}})},
                           {"sex", nstr},
                           {"nationality", nstr},
                           {"state", nstr}},
                          {});
  s["CaseEventItem"] = Obj({{"eventType", Str()},
                            {"actorType", Enum({"system", "user", "api_key"})},
                            {"actorUserId", Nullable(Id("usr"))},
                            {"actorId", Nullable(Str())},
                            {"action", Str()},
                            {"assigneeUserId", Id("usr")},
                            {"body", Nullable(Str())},
                            {"createdAt", DateTime()}},
                           {"eventType", "actorType", "actorUserId", "body", "createdAt"});
  s["ReviewActionItem"] = Obj({{"action", Enum({"claim", "release", "note", "reassign", "approve", "decline",
                                                "request_more_info", "escalate"})},
                               {"allowed", {{"type", "boolean"}}},
                               {"refusal", Nullable(Str())},
                               {"noteRequired", {{"type", "boolean"},
                                                 {"description", "approve, decline: the decision overrides the engine, so a note is required"}}}},
                              {});
  s["DecisionItem"] = Obj({{"decidedBy", {{"type", "string"}, {"description", "`policy:<version>` (the engine) or `review`"}}},
                           {"outcome", Nullable(Str())},
                           {"reasonCodes", Strs()},
                           {"trustScore", Nullable({{"type", "number"}})},
                           {"decidedAt", Nullable(DateTime())},
                           {"reviewers", {{"type", "array"}, {"items", {{"type", "object"}}}}}},
                          {"decidedBy", "outcome", "reasonCodes", "decidedAt"});
  s["MediaItem"] = Obj({{"mediaId", Id("med")},
                        {"kind", Str()},
                        {"mime", Str()},
                        {"sizeBytes", integer},
                        {"sha256", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                        {"capturedAt", DateTime()},
                        {"analysisStatus", Nullable(Str())},
                        {"qualityIssues", Strs()},
                        {"url", Nullable({{"type", "string"},
                                          {"description", "GET it with the same credential (an audited view)"}})}},
                       {"mediaId", "kind", "mime", "sizeBytes", "capturedAt", "url"});
  s["ReviewSessionSummary"] = Obj({{"sessionId", Id("vrf")},
                                   {"publicId", Str()},
                                   {"status", Str()},
                                   {"applicationId", Nullable(Id("app"))},
                                   {"channel", Nullable(Str())},
                                   {"locale", {{"type", "string"},
                                               {"description", "the applicant's language: write applicantMessage in it"}}},
                                   {"createdAt", DateTime()},
                                   {"completedAt", Nullable(DateTime())},
                                   {"outcome", Nullable(Str())},
                                   {"reasonCodes", Strs()},
                                   {"trustScore", Nullable({{"type", "number"}})},
                                   {"trustBreakdown", Nullable({{"type", "object"}})},
                                   {"faceMatchScore", Nullable({{"type", "number"}})},
                                   {"livenessScore", Nullable({{"type", "number"}})},
                                   {"document", Nullable({{"type", "object"}})},
                                   {"biometric", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                                   {"checks", {{"type", "array"}, {"items", {{"type", "object"}}}}}},
                                  {"sessionId", "status", "createdAt", "outcome", "reasonCodes", "trustScore"});
  s["ReviewCaseDetail"] = Obj({{"object", {{"const", "review_case_detail"}}},
                               {"actions", {{"type", "array"}, {"items", Ref("ReviewActionItem")}}},
                               {"applicant", Nullable(Ref("ApplicantPII"))},
                               {"case", Ref("CaseSummary")},
                               {"decisions", {{"type", "array"}, {"items", Ref("DecisionItem")}}},
                               {"events", {{"type", "array"}, {"items", Ref("CaseEventItem")}}},
                               {"govLookups", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                               {"media", {{"type", "array"}, {"items", Ref("MediaItem")}}},
                               {"session", Nullable(Ref("ReviewSessionSummary"))},
                               // Without a person: what the session's document said (its reading).
                               {"documentRead", Nullable(Obj({{"fullName", Nullable(Str())},
                                                              {"curp", Nullable(Str())},
                                                              {"birthDate", Nullable(Str())},
                                                              {"sex", Nullable(Str())},
                                                              {"documentNumber", Nullable(Str())},
                                                              {"claveElector", Nullable(Str())},
                                                              {"expiryDate", Nullable(Str())}},
                                                             {}))}},
                              {"actions", "applicant", "case", "decisions", "events", "govLookups", "media", "session"});
  s["CaseViewerItem"] = Obj({{"id", integer},
                            {"at", DateTime()},
                            {"actorType", Str()},
                            {"actorId", Str()},
                            {"actorLabel", Nullable(Str())},
                            {"actorRole", Nullable(Enum({"reviewer", "supervisor"}))},
                            {"channel", Enum({"review_case", "review_media"})},
                            {"fields", Strs()}},
                           {"id", "at", "actorType", "actorId", "channel", "fields"});
  s["CaseViewers"] = Obj({{"total", integer},
                          {"openings", integer},
                          {"entries", {{"type", "array"}, {"items", Ref("CaseViewerItem")}}}},
                         {"total", "openings", "entries"});
  s["ReviewCaseDetail"]["properties"]["viewers"] = Ref("CaseViewers");
  s["CaseEventItem"]["properties"]["sealed"] = {{"type", "boolean"}, {"description", "a note is there (its body is shown by the case detail only)"}};
  s["ReviewCaseState"] = Obj({{"object", {{"const", "review_case_state"}}},
                              {"actions", {{"type", "array"}, {"items", Ref("ReviewActionItem")}}},
                              {"case", Ref("CaseSummary")},
                              {"decisions", {{"type", "array"}, {"items", Ref("DecisionItem")}}},
                              {"events", {{"type", "array"}, {"items", Ref("CaseEventItem")}}},
                              {"govLookups", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                              {"media", {{"type", "array"}, {"items", Ref("MediaItem")}}},
                              {"session", Nullable(Ref("ReviewSessionSummary"))},
                              {"viewers", Ref("CaseViewers")}},
                             {"object", "actions", "case", "decisions", "events", "govLookups", "media", "session", "viewers"});
  s["ReviewReasonCode"] = Obj({{"code", Str()},
                               {"action", Enum({"approve", "decline", "request_more_info", "escalate"})},
                               {"label", Obj({{"es-MX", Str()}, {"en", Str()}}, {"es-MX", "en"})},
                               {"default", {{"type", "boolean"}}},
                               {"capture", Nullable(Enum({"document_front", "document_back", "selfie", "liveness_video"}))}},
                              {"code", "action", "label", "default", "capture"});
  s["ReviewReasonCodeList"] = List("ReviewReasonCode");
  s["ReviewTeamMember"] = Obj({{"actorType", Enum({"user", "api_key"})},
                              {"actorId", Str()},
                              {"label", Nullable(Str())},
                              {"role", Nullable(Enum({"reviewer", "supervisor"}))},
                              {"disabled", {{"type", "boolean"}}},
                              {"held", integer},
                              {"claims", integer},
                              {"decided", integer},
                              {"decisions", Obj({{"approve", integer}, {"decline", integer},
                                                 {"request_more_info", integer}, {"escalate", integer}},
                                                {"approve", "decline", "request_more_info", "escalate"})},
                              {"proposals", integer},
                              {"overturned", {{"type", "integer"}, {"description", "proposals a second reviewer resolved otherwise"}}},
                              {"overrides", {{"type", "integer"}, {"description", "decisions against the engine's lean"}}},
                              {"meanDecisionSeconds", Nullable(integer)},
                              {"decisionTimes", {{"type", "object"}, {"additionalProperties", integer},
                                                 {"description", "decisions by time from claim: lt5m, lt15m, lt1h, lt4h, lt24h, ge24h"}}},
                              {"lastDecisionAt", Nullable(DateTime())}},
                             {"actorType", "actorId", "held", "claims", "decided", "decisions", "overturned", "overrides"});
  s["ReviewSearchResult"] = Obj({{"object", {{"const", "review_search"}}},
                                {"query", Obj({{"matchedBy", Nullable(Enum({"case", "caseNumber", "session", "curp"}))}}, {"matchedBy"})},
                                {"data", {{"type", "array"}, {"items", Ref("ReviewQueueItem")}}}},
                               {"object", "query", "data"});
  s["ReviewTeam"] = Obj({{"object", {{"const", "review_team"}}},
                        {"members", {{"type", "array"}, {"items", Ref("ReviewTeamMember")}}},
                        {"queue", Ref("ReviewQueueSummary")}},
                       {"object", "members", "queue"});
  s["ReviewMediaBytes"] = {{"type", "string"},
                           {"contentMediaType", "application/octet-stream"},
                           {"description", "the capture's bytes; the response's Content-Type is the capture's own "
                                           "(image/jpeg, image/png, video/webm, …)"}};
  s["ReviewReassignRequest"] = Obj({{"assigneeUserId", Id("usr")}}, {"assigneeUserId"});
  return area;
}

}  // namespace svc::api::review
