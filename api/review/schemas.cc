// The OpenAPI schemas and tag of the review area (review_api.cc).
#include "api/review/routes.h"

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
  const core::Json status = Enum({"open", "in_progress", "escalated", "resolved", "closed"});
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
                                   {"reasonCodes", Nullable({{"type", "array"}, {"maxItems", 20}, {"items", Str()}})}},
                                  {"action"});
  s["ResolveResult"] = Obj({{"caseId", Id("cas")},
                            {"caseStatus", status},
                            {"sessionStatus", Str()},
                            {"awaitingSecondApproval", {{"type", "boolean"}}},
                            {"outcome", Nullable(Enum({"approved", "declined", "awaiting_input"}))}},
                           {"caseId", "caseStatus", "sessionStatus"});
  s["ReviewReassignRequest"] = Obj({{"assigneeUserId", Id("usr")}}, {"assigneeUserId"});
  return area;
}

}  // namespace svc::api::review
