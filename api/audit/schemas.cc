// The OpenAPI schemas of the audit area (audit_api.cc).
#include "api/audit/routes.h"

namespace svc::api::audit {

OpenApiArea AuditOpenApi() {
  OpenApiArea area;
  area.tags = {{"Compliance",
                "The hash-chained, append-only log of personal-data accesses, one chain per tenant and "
                "environment, and its verification."}};
  core::Json& s = area.schemas;
  using namespace schema;
  const core::Json integer = {{"type", "integer"}};
  const core::Json hex64 = {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}};
  s["AuditLogEntry"] = Obj({{"id", {{"type", "integer"}, {"minimum", 1}, {"description", "counts from 1 per tenant and environment"}}},
                            {"object", {{"const", "audit_log_entry"}}},
                            {"personId", Nullable(Id("per"))},
                            {"applicationId", Nullable(Id("app"))},
                            {"actorType", Str()},
                            {"actorId", Str()},
                            {"channel", Str()},
                            {"fields", Strs()},
                            {"redaction", Str()},
                            {"purpose", Nullable(Str())},
                            {"reason", Nullable(Str())},
                            {"reasonSealed", {{"type", "string"}, {"description", "the reason sealed under the person's key (docs/audit.md#the-reason)"}}},
                            {"reasonCommitment", {{"allOf", core::Json::array({hex64})}, {"description", "HMAC-SHA-256 of the reason under reasonKey"}}},
                            {"reasonKey", {{"anyOf", core::Json::array({hex64, {{"type", "null"}}})}, {"description", "the commitment's key, opened with the reason (null once the person is forgotten)"}}},
                            {"requestId", Nullable(Str())},
                            {"createdAt", DateTime()},
                            {"personCount", Nullable(integer)},
                            {"eventId", Id("evt")},
                            {"caseId", {{"type", "string"}, {"pattern", "^cas_[0-9a-f]{32}$"},
                                        {"description", "the review case the data was shown for (channels review_case, review_media)"}}},
                            {"prevHash", hex64},
                            {"hash", hex64}},
                           {"id", "personId", "applicationId", "actorType", "actorId", "channel", "fields",
                            "redaction", "purpose", "reason", "requestId", "createdAt"});
  s["AuditLogEntryList"] = List("AuditLogEntry");
  s["HistoryEvent"] = Obj({{"position", {{"type", "string"}, {"description", "partition:offset in the service's log"}}},
                           {"eventId", Id("evt")},
                           {"type", Str()},
                           {"schemaVersion", integer},
                           {"occurredAt", DateTime()},
                           {"aggregateVersion", integer},
                           {"actor", {{"type", "object"}}},
                           {"requestId", Nullable(Str())},
                           {"data", {{"type", "object"}, {"description", "the event's data, ciphertext and blind indexes left out"}}},
                           {"eventSha256", hex64},
                           {"status", {{"description", "the subject's status right after the event"}}}},
                          {"position", "eventId", "type", "occurredAt", "data", "eventSha256"});
  s["HistoryBundle"] = Obj({{"object", {{"const", "history_bundle"}}},
                            {"format", {{"const", "svc/history/v1"}}},
                            {"tenantId", Str()},
                            {"environment", Str()},
                            {"subjectType", Str()},
                            {"subjectId", Str()},
                            {"asOf", DateTime()},
                            {"state", {{"description", "the subject as the service held it at asOf (ciphertext and blind indexes left out)"}}},
                            {"events", {{"type", "array"}, {"items", {{"$ref", "#/components/schemas/HistoryEvent"}}}}},
                            {"tenantEventsReplayed", integer},
                            {"through", Str()},
                            {"certificate", {{"description", "a session's verification certificate as it stood at asOf "
                                                              "(null before its approval or decline, and for other subjects)"}}},
                            {"signedNote", {{"type", "string"}, {"description", "a C2SP signed note over the bundle's SHA-256 (docs/audit.md)"}}},
                            {"verifierKey", Str()}},
                           {"object", "format", "tenantId", "environment", "subjectType", "subjectId", "asOf", "state",
                            "events", "signedNote", "verifierKey"});
  s["AuditChainVerification"] = Obj({{"object", {{"const", "audit_chain_verification"}}},
                                     {"valid", {{"type", "boolean"}}},
                                     {"count", integer},
                                     {"brokenAt", Nullable(integer)}},
                                    {"valid", "count"});
  const core::Json hashes = {{"type", "array"}, {"items", hex64}};
  s["AuditTreeHead"] = Obj({{"object", {{"const", "audit_tree_head"}}}, {"treeSize", integer}, {"rootHash", hex64}},
                           {"object", "treeSize", "rootHash"});
  s["AuditInclusionProof"] = Obj({{"object", {{"const", "audit_inclusion_proof"}}},
                                  {"id", integer},
                                  {"leafIndex", integer},
                                  {"treeSize", integer},
                                  {"leafHash", hex64},
                                  {"rootHash", hex64},
                                  {"hashes", hashes}},
                                 {"object", "id", "leafIndex", "treeSize", "leafHash", "rootHash", "hashes"});
  s["AuditConsistencyProof"] = Obj({{"object", {{"const", "audit_consistency_proof"}}},
                                    {"fromSize", integer},
                                    {"toSize", integer},
                                    {"fromRootHash", hex64},
                                    {"toRootHash", hex64},
                                    {"hashes", hashes}},
                                   {"object", "fromSize", "toSize", "fromRootHash", "toRootHash", "hashes"});
  s["AuditCheckpoint"] = {{"type", "string"},
                          {"description", "A C2SP signed note: `<origin>\\n<tree size>\\n<base64 root hash>\\n`, a blank "
                                          "line, and `\u2014 <origin> <base64(key id || Ed25519 signature)>`"}};
  s["AuditPublishedCheckpoint"] = Obj({{"timestamps", {{"type", "array"}, {"items", Ref("EvidenceTimestamp")}}},
                                       {"object", {{"const", "audit_checkpoint"}}},
                                       {"treeSize", integer},
                                       {"rootHash", hex64},
                                       {"checkpoint", Ref("AuditCheckpoint")},
                                       {"publishedAt", DateTime()},
                                       {"eventId", Id("evt")}},
                                      {"object", "treeSize", "rootHash", "checkpoint", "publishedAt", "eventId"});
  s["AuditCheckpointList"] = List("AuditPublishedCheckpoint");
  s["AuditCheckpointKey"] = Obj({{"object", {{"const", "audit_checkpoint_key"}}},
                                 {"origin", Str()},
                                 {"algorithm", {{"const", "Ed25519"}}},
                                 {"verifierKey", Str()}},
                                {"object", "origin", "algorithm", "verifierKey"});
  return area;
}

}  // namespace svc::api::audit
