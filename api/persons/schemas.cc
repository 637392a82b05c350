// The OpenAPI schemas and tag of the persons area (persons_api.cc, reveal_api.cc).
#include "api/persons/routes.h"

#include "commands/persons/arco_request.h"
#include "commands/persons/person_events.h"
#include "pipeline/persons/purposes.h"

namespace svc::api::persons {

OpenApiArea PersonsOpenApi() {
  OpenApiArea area;
  std::string purposes;
  for (const auto& p : pipeline::persons::Purposes()) {
    purposes += (purposes.empty() ? "" : ", ") + std::string("`") + std::string(p.id) + "`";
  }
  area.tags = {{"Persons (vault)",
                "Verified personal data, sealed per person. Reads are masked; every reveal of plaintext is an "
                "audited command that consumes the daily reveal budget. Purposes: " + purposes + "."}};
  core::Json& s = area.schemas;
  using namespace schema;
  const auto obj = Obj;
  const core::Json dt = DateTime();
  const core::Json boolean = {{"type", "boolean"}};
  const core::Json integer = {{"type", "integer"}};
  std::vector<std::string> field_names;
  for (auto n : commands::persons::kPiiFieldNames) field_names.emplace_back(n);

  core::Json pii_props = core::Json::object();
  for (const auto& n : field_names) pii_props[n] = Nullable(Str());
  pii_props["curp"]["description"] = "18 characters; check digit verified";
  pii_props["rfc"]["description"] = "12 (company) or 13 (person) characters; check digit verified";
  pii_props["phone"]["description"] = "normalised to E.164; 10 digits without a country code are Mexican (+52)";
  pii_props["birthDate"]["description"] = "YYYY-MM-DD";
  pii_props["emision"]["description"] = "YYYY or YYYY-MM-DD";
  pii_props["vigencia"]["description"] = "YYYY or YYYY-MM-DD";
  pii_props["sex"]["description"] = "F, M or X";
  pii_props["state"]["description"] = "Mexican state code as in a CURP (NE: born abroad)";
  pii_props["nationality"]["description"] = "ISO 3166-1 alpha-3 (alpha-2 accepted)";
  s["PiiInput"] = {{"type", "object"}, {"additionalProperties", false}, {"properties", pii_props},
                   {"description", "Write-only. On PATCH, null clears a field."}};

  core::Json write_props = {{"id", Id("per")},         {"object", {{"const", "person"}}},
                            {"createdAt", dt},         {"updatedAt", dt},
                            {"environment", Enum({"live", "test"})},
                            {"piiVersion", integer},   {"status", Enum({"active", "merged", "redacted"})}};
  std::vector<std::string> write_required = {"id", "createdAt", "updatedAt", "environment", "piiVersion", "status"};
  for (const auto& n : field_names) {
    write_props[n + "Provided"] = boolean;
    write_required.push_back(n + "Provided");
  }
  s["PersonWriteResponse"] = obj(write_props, write_required);
  s["PersonWriteRequest"] = obj({{"applicationId", Nullable(Id("app"))},
                                 {"environment", Nullable(Enum({"live", "test"}))},
                                 {"externalRef", Nullable({{"type", "string"}, {"maxLength", 256},
                                                           {"description", "your user id; stored in clear, so never personal data"}})},
                                 {"metadata", Nullable({{"type", "object"}})},
                                 {"pii", Nullable(Ref("PiiInput"))}},
                                {});
  s["PersonWriteRequest"]["required"] = core::Json::array();
  s["PersonPatchRequest"] = obj({{"metadata", Nullable({{"type", "object"}})}, {"pii", Nullable(Ref("PiiInput"))},
                                 {"arcoRequestId", Nullable(Id("arc"))}}, {});
  s["PersonPatchRequest"]["required"] = core::Json::array();
  s["PersonExternalRefItem"] = obj({{"applicationId", Id("app")}, {"externalRef", Str()}}, {});
  s["PersonVerificationSummary"] =
      obj({{"status", Enum({"unverified", "verified"})},
           {"lastSessionId", Nullable(Id("vrf"))},
           {"lastVerifiedAt", Nullable(dt)},
           {"sessionCount", integer},
           {"verifiedFields", Strs()}},
          {});
  s["PiiProvenanceItem"] = obj({{"version", integer},
                                {"source", Enum({"api", "verification"})},
                                {"sessionId", Nullable(Id("vrf"))},
                                {"detail", Nullable(Str())},
                                {"setAt", dt}},
                               {});
  core::Json list_props = write_props;
  std::vector<std::string> list_required = write_required;
  list_props["applicationId"] = Id("app");
  list_props["externalRefs"] = {{"type", "array"}, {"items", Ref("PersonExternalRefItem")}};
  list_props["forgetRequested"] = boolean;
  list_props["mergedInto"] = Id("per");
  list_props["mergingInto"] = Id("per");
  for (const char* k : {"applicationId", "externalRefs", "forgetRequested"}) list_required.push_back(k);
  s["PersonListItem"] = obj(list_props, list_required);
  s["PersonList"] = List("PersonListItem");
  core::Json detail_props = list_props;
  std::vector<std::string> detail_required = list_required;
  detail_props["pii"] = {{"type", "object"},
                         {"additionalProperties", Str()},
                         {"description", "one member per held field: `********` (masked), or the plaintext "
                                         "for the fields of an `expand`"}};
  detail_props["piiProvenance"] = {{"type", "object"}, {"additionalProperties", Ref("PiiProvenanceItem")}};
  detail_props["metadata"] = {{"type", "object"}};
  detail_props["verificationSummary"] = Ref("PersonVerificationSummary");
  for (const char* k : {"pii", "piiProvenance", "metadata", "verificationSummary"}) detail_required.push_back(k);
  s["PersonDetailMasked"] = obj(detail_props, detail_required);
  s["PersonFieldsResponse"] = obj({{"id", Id("per")},
                                   {"object", {{"const", "person.fields"}}},
                                   {"fields", {{"type", "object"}, {"additionalProperties", boolean}}}},
                                  {});
  s["PersonSearchRequest"] = obj({{"field", Enum({"curp", "rfc", "email", "phone", "name"})},
                                  {"value", Str()},
                                  {"cursor", Nullable(Str())},
                                  {"environment", Nullable(Enum({"live", "test"}))},
                                  {"limit", integer}},
                                 {"field", "value"});
  s["PersonSearchResults"] = obj({{"object", {{"const", "list"}}},
                                  {"data", {{"type", "array"}, {"items", Ref("PersonListItem")}}},
                                  {"hasMore", boolean},
                                  {"totalCount", integer},
                                  {"totalIsEstimate", boolean},
                                  {"nextCursor", Nullable(Str())}},
                                 {"data", "hasMore", "totalCount", "totalIsEstimate"});
  s["DuplicateItem"] = obj({{"personId", Id("per")},
                            {"matchedOn", {{"type", "array"}, {"items", Enum({"curp", "email"})}}},
                            {"status", Enum({"active", "merged", "redacted"})},
                            {"createdAt", dt},
                            {"applicationId", Nullable(Id("app"))}},
                           {});
  s["DuplicatesResponse"] = obj({{"object", {{"const", "list"}}},
                                 {"data", {{"type", "array"}, {"items", Ref("DuplicateItem")}}}},
                                {});
  core::Json field_enum = Enum(field_names);
  s["DecryptRequest"] = obj({{"fields", {{"type", "array"}, {"items", field_enum}, {"minItems", 1}}},
                             {"purpose", Str()},
                             {"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}}},
                            {});
  core::Json plain_fields = {{"type", "object"}, {"additionalProperties", Nullable(Str())}};
  s["DecryptResponse"] = obj({{"object", {{"const", "person.decrypt"}}}, {"personId", Id("per")}, {"fields", plain_fields}}, {});
  s["BatchDecryptRequest"] = obj({{"personIds", {{"type", "array"}, {"items", Str()}, {"minItems", 1}, {"maxItems", 100}}},
                                  {"fields", {{"type", "array"}, {"items", field_enum}, {"minItems", 1}}},
                                  {"purpose", Str()},
                                  {"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}}},
                                 {});
  s["BatchDecryptItem"] = obj({{"personId", Id("per")}, {"fields", plain_fields}}, {});
  s["BatchDecryptErrorEntry"] = obj({{"personId", {{"type", "string"}, {"description", "the string sent"}}},
                                     {"error", obj({{"code", Str()}, {"reason", Str()}}, {})}},
                                    {});
  s["BatchDecryptResponse"] = obj({{"object", {{"const", "list"}}},
                                   {"data", {{"type", "array"}, {"items", Ref("BatchDecryptItem")}}},
                                   {"errors", {{"type", "array"}, {"items", Ref("BatchDecryptErrorEntry")}}}},
                                  {});
  s["ClientTokenCreateRequest"] = obj({{"fields", {{"type", "array"}, {"items", field_enum}, {"minItems", 1}}},
                                       {"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}},
                                       {"purpose", Nullable(Str())},
                                       {"scope", {{"const", "decrypt"}}},
                                       {"ttlSeconds", Nullable({{"type", "integer"}, {"minimum", 1}, {"maximum", 900}})}},
                                      {"fields", "reason"});
  s["ClientTokenIssueResponse"] = obj({{"id", Id("ctok")},
                                       {"object", {{"const", "person.client_token"}}},
                                       {"personId", Id("per")},
                                       {"token", {{"type", "string"}, {"description", "shown once"}}},
                                       {"scope", {{"const", "decrypt"}}},
                                       {"fields", Strs()},
                                       {"purpose", Nullable(Str())},
                                       {"createdAt", dt},
                                       {"expiresAt", dt}},
                                      {});
  s["ClientTokenRevokeResponse"] = obj({{"id", Id("ctok")},
                                        {"object", {{"const", "person.client_token"}}},
                                        {"personId", Id("per")},
                                        {"revokedAt", Nullable(dt)}},
                                       {});
  s["PersonVerificationSessionList"] = List("VerificationSessionResponse");
  s["PersonDocumentItem"] = obj({{"id", Id("med")},
                                 {"object", {{"const", "person.document"}}},
                                 {"sessionId", Id("vrf")},
                                 {"kind", Enum({"document_front", "document_back", "selfie", "liveness_video"})},
                                 {"mime", Str()},
                                 {"sizeBytes", integer},
                                 {"sha256", Str()},
                                 {"capturedAt", dt},
                                 {"legalHold", boolean},
                                 {"purgedAt", {{"type", {"string", "null"}}, {"format", "date-time"},
                                               {"description", "when the bytes were deleted under the media "
                                                               "retention policy (the hash stays); null: kept"}}}},
                                {});
  s["PersonDocumentList"] = List("PersonDocumentItem");
  s["IntegrityRequest"] = obj({{"fields", {{"type", "object"},
                                           {"additionalProperties", {{"type", "string"}, {"pattern", "^[0-9a-fA-F]{64}$"}}},
                                           {"description", "per field: hex HMAC-SHA256(signingKey, normalised value)"}}},
                               {"signingKey", {{"type", "string"}, {"description", "base64 of 16-64 bytes"}}},
                               {"reason", Nullable(Str())}},
                              {"fields", "signingKey"});
  s["IntegrityResponse"] = obj({{"id", Id("per")},
                                {"object", {{"const", "person.integrity"}}},
                                {"results", {{"type", "object"}, {"additionalProperties", Enum({"match", "mismatch", "absent"})}}}},
                               {});
  s["PersonExportRequest"] = obj({{"reason", Nullable(Str())},
                                  {"arcoRequestId", Nullable(Id("arc"))}}, {});
  s["PersonExportRequest"]["required"] = core::Json::array();
  s["ExportSessionItem"] = Ref("VerificationSessionResponse");
  s["PersonExportBundle"] = obj({{"object", {{"const", "person.export"}}},
                                 {"id", Id("pxb")},
                                 {"personId", Id("per")},
                                 {"generatedAt", dt},
                                 {"pii", plain_fields},
                                 {"piiProvenance", {{"type", "object"}, {"additionalProperties", Ref("PiiProvenanceItem")}}},
                                 {"metadata", {{"type", "object"}}},
                                 {"externalRefs", {{"type", "array"}, {"items", Ref("PersonExternalRefItem")}}},
                                 {"verificationSessions", {{"type", "array"}, {"items", Ref("ExportSessionItem")}}},
                                 {"media", {{"type", "array"}, {"items", Ref("PersonDocumentItem")}}},
                                 {"consents", {{"type", "array"},
                                               {"description", "the person's consents, newest first, each with the "
                                                               "evidence given for it (null when none)"},
                                               {"items", {{"allOf", {Ref("ConsentItem")}},
                                                          {"properties", {{"evidence", {{"type", {"object", "null"}}}}}}}}}}},
                                {"object", "id", "personId", "generatedAt", "pii", "piiProvenance", "verificationSessions", "media"});
  // The receipt of a bundle answered by the export (docs/persons.md#export-receipts): no value of it.
  s["PersonExportReceipt"] = obj({{"object", {{"const", "person.export_receipt"}}},
                                  {"id", Id("pxb")},
                                  {"personId", Id("per")},
                                  {"generatedAt", dt},
                                  {"recordedAt", dt},
                                  {"sha256", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                                  {"sizeBytes", integer},
                                  {"timestamps", {{"type", "array"}, {"items", Ref("EvidenceTimestamp")}}}},
                                 {});
  s["ReauthFaceRequest"] = obj({{"selfieBase64", {{"type", "string"}, {"contentEncoding", "base64"}}},
                                {"mime", Enum({"image/jpeg", "image/png"})}},
                               {"selfieBase64"});
  s["ReauthFaceResult"] = obj({{"object", {{"const", "person.reauth_face"}}},
                               {"decision", Enum({"match", "inconclusive", "no_match"})},
                               {"match", boolean},
                               {"score", Nullable(Num())},
                               {"threshold", Nullable(Num())},
                               {"referenceCapturedAt", dt},
                               {"livenessPassed", Nullable(boolean)},
                               {"deepfakeGenuineConfidence", Nullable(Num())},
                               {"presentationAttack", boolean},
                               {"reasonCodes", Strs()}},
                              {"decision", "match", "score", "threshold", "referenceCapturedAt"});
  std::vector<std::string> purpose_ids;
  for (const auto& p : pipeline::persons::Purposes()) purpose_ids.emplace_back(p.id);
  s["ConsentGrantRequest"] = obj({{"mechanism", Enum({"firma_electronica", "autenticacion"})},
                                  {"policyVersion", {{"type", "string"}, {"minLength", 1}, {"maxLength", 200}}},
                                  {"purpose", Enum(purpose_ids)},
                                  {"attestedBy", Nullable(Enum({"applicant", "integrator"}))},
                                  {"evidence", {{"type", {"object", "null"}},
                                                {"description", "write-only: sealed under the person's key, never listed"}}},
                                  {"expiresAt", Nullable(dt)}},
                                 {"mechanism", "policyVersion", "purpose"});
  s["ConsentItem"] = obj({{"id", Id("cns")},
                          {"object", {{"const", "person.consent"}}},
                          {"attestedBy", Nullable(Enum({"applicant", "integrator"}))},
                          {"createdAt", dt},
                          {"expiresAt", Nullable(dt)},
                          {"grantedAt", dt},
                          {"mechanism", Enum({"firma_electronica", "autenticacion"})},
                          {"policyVersion", Str()},
                          {"purpose", Str()},
                          {"revokedAt", Nullable(dt)},
                          {"efirmaChallengeId", {{"type", "string"},
                                                 {"pattern", "^efc_[0-9a-f]{32}$"},
                                                 {"description", "given by e.firma: the check whose signed text states this "
                                                                 "consent (its signature is the sealed evidence)"}}}},
                         {"id", "object", "attestedBy", "createdAt", "expiresAt", "grantedAt", "mechanism",
                          "policyVersion", "purpose", "revokedAt"});
  s["ConsentList"] = List("ConsentItem");
  s["GrantCreateRequest"] = obj({{"applicationId", Id("app")},
                                 {"allowedFields", {{"type", "array"}, {"items", Enum(field_names)}, {"minItems", 1}}},
                                 {"allowedPurposes", {{"type", "array"}, {"items", Enum(purpose_ids)}, {"minItems", 1}}},
                                 {"defaultRedaction", Enum({"plain", "masked", "redacted"})},
                                 {"expiresAt", Nullable(dt)}},
                                {"allowedFields", "allowedPurposes", "applicationId"});
  s["GrantItem"] = obj({{"id", Id("grt")},
                        {"object", {{"const", "person.grant"}}},
                        {"allowedFields", Strs()},
                        {"allowedPurposes", Strs()},
                        {"applicationId", Id("app")},
                        {"createdAt", dt},
                        {"createdVia", Str()},
                        {"defaultRedaction", Enum({"plain", "masked", "redacted"})},
                        {"expiresAt", Nullable(dt)},
                        {"revokedAt", Nullable(dt)}},
                       {"id", "object", "allowedFields", "allowedPurposes", "applicationId", "createdAt", "createdVia",
                        "defaultRedaction", "expiresAt", "revokedAt"});
  s["GrantList"] = List("GrantItem");
  s["LegalHoldSetRequest"] = obj({{"legalBasis", {{"type", "string"}, {"minLength", 1}, {"maxLength", 500}}},
                                  {"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}},
                                  {"expiresAt", Nullable(dt)}},
                                 {"legalBasis", "reason"});
  s["LegalHoldReleaseRequest"] = obj({{"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}},
                                      {"legalBasis", Nullable(Str())}},
                                     {"reason"});
  s["DocumentLegalHoldRequest"] = obj({{"action", Enum({"set", "release"})},
                                       {"legalBasis", {{"type", "string"}, {"minLength", 1}, {"maxLength", 500}}},
                                       {"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}},
                                       {"expiresAt", Nullable(dt)}},
                                      {"reason"});
  s["LegalHoldItem"] = obj({{"id", Id("lgh")},
                            {"object", {{"const", "person.legal_hold"}}},
                            {"action", Enum({"set", "renew", "release"})},
                            {"personId", Id("per")},
                            {"assetId", Nullable(Id("med"))},
                            {"reason", Str()},
                            {"legalBasis", Nullable(Str())},
                            {"createdAt", dt},
                            {"expiresAt", Nullable(dt)}},
                           {"id", "object", "action", "personId", "reason", "legalBasis", "createdAt", "expiresAt"});
  s["LegalHoldList"] = List("LegalHoldItem");
  s["PersonForgetRequest"] = obj({{"mode", Enum({"block", "purge"})}, {"reason", Nullable(Str())},
                                  {"arcoRequestId", Nullable(Id("arc"))}}, {"mode"});
  s["PersonForgetResponse"] = obj({{"mode", Enum({"block", "purge"})},
                                   {"object", {{"const", "person.forget"}}},
                                   {"personId", Id("per")},
                                   {"purgeDueAt", dt}},
                                  {"mode", "object", "personId", "purgeDueAt"});
  s["PersonDeletionCertificate"] = obj({{"timestamps", {{"type", "array"}, {"items", Ref("EvidenceTimestamp")}}},
                                        {"object", {{"const", "person.deletion_certificate"}}},
                                        {"personId", Id("per")},
                                        {"tenantId", Id("ten")},
                                        {"environment", Enum({"test", "live"})},
                                        {"purgedAt", dt},
                                        {"contentHash", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                                        {"signature", Str()},
                                        {"signatureEd25519", Str()},
                                        {"signingKeyId", Str()},
                                        {"mode", Enum({"block", "purge"})},
                                        {"forgetRequestedAt", dt},
                                        {"dataRemovedAt", dt},
                                        {"keysDestroyed", integer},
                                        {"verificationSessions", Strs()},
                                        {"method", Str()}},
                                       {"contentHash", "environment", "object", "personId", "purgedAt", "signature",
                                        "tenantId"});
  s["MediaLinkRequest"] = obj({{"sessionId", Id("vrf")},
                               {"mediaId", Id("med")},
                               {"purpose", Str()},
                               {"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}},
                               {"expiresInSeconds", {{"type", "integer"}, {"minimum", 30}, {"maximum", 3600}}}},
                              {"sessionId", "mediaId", "purpose", "reason"});
  s["MediaLinkContent"] = {{"type", "string"},
                            {"contentMediaType", "application/octet-stream"},
                            {"description", "the capture's bytes, served with the capture's own mime type"}};
  s["MediaLink"] = obj({{"object", {{"const", "media_link"}}},
                        {"id", {{"type", "string"}, {"pattern", "^mlk_[0-9a-f]{32}$"}}},
                        {"url", {{"type", "string"}, {"format", "uri"}}},
                        {"sessionId", Id("vrf")},
                        {"mediaId", Id("med")},
                        {"kind", Str()},
                        {"mime", Str()},
                        {"personId", Nullable(Id("per"))},
                        {"expiresAt", dt}},
                       {"object", "id", "url", "sessionId", "mediaId", "kind", "mime", "personId", "expiresAt"});
  s["PersonImportRequest"] = obj({{"persons", {{"type", "array"}, {"minItems", 1}, {"maxItems", 1000},
                                              {"items", Ref("PersonWriteRequest")}}}},
                                 {"persons"});
  s["PersonImportRow"] = obj({{"index", integer},
                              {"status", Enum({"created", "updated", "failed"})},
                              {"personId", Nullable(Id("per"))},
                              {"code", Nullable(Str())},
                              {"fields", Strs()}},
                             {"index", "status", "personId", "code"});
  s["PersonImportJob"] = obj({{"object", {{"const", "person.import"}}},
                              {"id", Id("imp")},
                              {"status", Enum({"completed"})},
                              {"createdAt", dt},
                              {"total", integer},
                              {"created", integer},
                              {"updated", integer},
                              {"failed", integer},
                              {"rows", {{"type", "array"}, {"items", Ref("PersonImportRow")}}}},
                             {"object", "id", "status", "createdAt", "total", "created", "updated", "failed", "rows"});
  s["PersonExportBulkRequest"] = obj({{"personIds", {{"type", "array"}, {"minItems", 1}, {"maxItems", 1000},
                                                      {"items", Id("per")},
                                                      {"description", "absent: every active person of the environment"}}},
                                       {"fields", {{"type", "array"}, {"minItems", 1}, {"items", field_enum},
                                                   {"description", "absent: every field the key may read"}}},
                                       {"purpose", {{"type", "string"}, {"maxLength", 64},
                                                    {"description", "from the purpose catalogue"}}},
                                       {"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}}},
                                      {"purpose", "reason"});
  s["PersonExportBulkSkip"] = obj({{"personId", Id("per")}, {"code", Str()}}, {"personId", "code"});
  s["PersonExportBulkDumpInfo"] = obj({{"format", {{"const", "svc-export-bulk-1"}}},
                                       {"sizeBytes", integer},
                                       {"sha256", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                                       {"timestamps", {{"type", "array"}, {"items", Ref("EvidenceTimestamp")}}}},
                                      {"format", "sizeBytes", "sha256", "timestamps"});
  s["PersonExportBulkFailure"] = obj({{"code", Str()}, {"message", Str()}}, {"code", "message"});
  s["PersonExportBulkJob"] = obj({{"object", {{"const", "person.export_bulk"}}},
                                  {"id", Id("exb")},
                                  {"status", Enum({"queued", "ready", "failed", "expired"})},
                                  {"createdAt", dt},
                                  {"selection", Enum({"all", "list"})},
                                  {"requestedPersonCount", Nullable(integer)},
                                  {"fields", Strs()},
                                  {"purpose", Str()},
                                  {"reason", Str()},
                                  {"recipientKeyId", {{"type", "string"}, {"pattern", "^xk_[0-9a-f]{16}$"}}},
                                  {"auditedCount", integer},
                                  {"personCount", Nullable(integer)},
                                  {"skippedCount", Nullable(integer)},
                                  {"skipped", {{"type", "array"}, {"items", Ref("PersonExportBulkSkip")}}},
                                  {"dump", Nullable(Ref("PersonExportBulkDumpInfo"))},
                                  {"completedAt", Nullable(dt)},
                                  {"expiresAt", Nullable(dt)},
                                  {"expiredAt", Nullable(dt)},
                                  {"failure", Nullable(Ref("PersonExportBulkFailure"))}},
                                 {"object", "id", "status", "createdAt", "selection", "fields", "purpose", "reason",
                                  "recipientKeyId", "auditedCount", "personCount", "skippedCount", "skipped", "dump",
                                  "completedAt", "expiresAt", "expiredAt", "failure"});
  s["PersonExportBulkDump"] = {{"type", "string"},
                               {"contentMediaType", "application/octet-stream"},
                               {"description", "the sealed dump (format svc-export-bulk-1, docs/persons.md#bulk-export)"}};
  s["ConsolidateRequest"] = obj({{"sourcePersonIds", {{"type", "array"}, {"minItems", 1}, {"maxItems", 20},
                                                      {"items", Id("per")}}},
                                 {"fieldResolutions", {{"type", "object"},
                                                       {"propertyNames", field_enum},
                                                       {"additionalProperties", Id("per")}}}},
                                {"sourcePersonIds"});
  const core::Json merge_status = Enum({"pending", "merging", "merged", "failed"});
  s["ConsolidateMergeRef"] = obj({{"sourcePersonId", Id("per")}, {"status", merge_status}}, {"sourcePersonId", "status"});
  s["ConsolidationEnvelope"] = obj({{"object", {{"const", "person.consolidation"}}},
                                    {"consolidationId", Id("csl")},
                                    {"survivorId", Id("per")},
                                    {"status", Enum({"pending", "completed"})},
                                    {"merges", {{"type", "array"}, {"items", Ref("ConsolidateMergeRef")}}}},
                                   {"object", "consolidationId", "survivorId", "status", "merges"});
  s["ConsolidationMergeStatusItem"] = obj({{"sourcePersonId", Id("per")},
                                           {"status", merge_status},
                                           {"fieldsTaken", Strs()},
                                           {"mergedAt", Nullable(dt)},
                                           {"error", Nullable(Str())}},
                                          {"sourcePersonId", "status", "fieldsTaken", "mergedAt", "error"});
  s["ConsolidationStatusResponse"] = obj({{"object", {{"const", "person.consolidation"}}},
                                          {"consolidationId", Id("csl")},
                                          {"survivorId", Id("per")},
                                          {"status", Enum({"pending", "completed"})},
                                          {"createdAt", dt},
                                          {"completedAt", Nullable(dt)},
                                          {"fieldResolutions", {{"type", "object"}, {"additionalProperties", Id("per")}}},
                                          {"merges", {{"type", "array"}, {"items", Ref("ConsolidationMergeStatusItem")}}}},
                                         {"object", "consolidationId", "survivorId", "status", "createdAt", "merges"});
  // ARCO requests (arco_api.cc; docs/persons.md#arco-requests).
  area.tags.push_back({"ARCO requests",
                       "A data subject's requests of access, rectification, cancellation or opposition (LFPDPPP), "
                       "with the law's deadlines on Mexico's business-day calendar, their states, and the operation "
                       "that fulfilled each."});
  const core::Json when = Nullable(dt);
  s["ArcoRequestCreate"] = obj(
      {{"personId", Id("per")},
       {"right", Enum(commands::persons::kArcoRights)},
       {"requester", Enum({"subject", "representative"})},
       {"identityVerification", obj({{"method", Enum(commands::persons::kArcoIdentityMethods)},
                                     {"reference", Nullable({{"type", "string"}, {"maxLength", 200}})}},
                                    {"method"})},
       {"receivedAt", dt},
       {"purposes", {{"type", "array"}, {"items", Str()}, {"maxItems", 16}}},
       {"reference", Nullable({{"type", "string"}, {"maxLength", 200}})},
       // A company member or owner instead of personId (docs/kyb.md#erasure): one subject per request.
       {"companyMember", obj({{"companyId", Id("cmp")}, {"memberId", Id("cmm")}}, {"companyId", "memberId"})},
       {"uboNode", obj({{"companyId", Id("cmp")}, {"uboNodeId", Id("ubo")}}, {"companyId", "uboNodeId"})}},
      {"right", "identityVerification"});
  s["ArcoDenyRequest"] = obj({{"reason", Enum(commands::persons::kArcoDenialReasons)}}, {"reason"});
  core::Json subject = obj({{"type", Enum({"person", "company_member", "ubo_node"})},
                            {"personId", Nullable(Id("per"))},
                            {"companyId", Nullable(Id("cmp"))},
                            {"memberId", Id("cmm")},
                            {"uboNodeId", Id("ubo")}},
                           {"type", "personId", "companyId"});
  core::Json history_item = obj({{"event", Str()}, {"at", dt}, {"actor", obj({{"type", Str()}, {"id", Str()}}, {"type", "id"})},
                                 {"deadline", Str()}, {"operation", Str()}, {"refusal", Str()}},
                                {"event", "at", "actor"});
  s["ArcoRequest"] = obj(
      {{"object", {{"const", "arco_request"}}},
       {"id", Id("arc")},
       {"subject", subject},
       {"right", Enum(commands::persons::kArcoRights)},
       {"requester", Enum({"subject", "representative"})},
       {"identityVerification", obj({{"method", Str()}, {"reference", Nullable(Str())}}, {"method", "reference"})},
       {"reference", Nullable(Str())},
       {"purposes", Strs()},
       {"status", Enum(commands::persons::kArcoStatuses)},
       {"receivedAt", dt},
       {"termCountedFrom", dt},
       {"responseDueAt", dt},
       {"responseExtended", boolean},
       {"informationRequestableUntil", dt},
       {"informationRequested", boolean},
       {"informationDueAt", when},
       {"respondedAt", when},
       {"effectDueAt", when},
       {"effectExtended", boolean},
       {"completedAt", when},
       {"denialReason", Nullable(Str())},
       {"fulfilment", Nullable(obj({{"operation", Str()}, {"reference", Nullable(Str())}}, {"operation", "reference"}))},
       {"overdue", boolean},
       {"history", {{"type", "array"}, {"items", history_item}}},
       {"createdAt", dt},
       {"updatedAt", dt}},
      {"object", "id", "subject", "right", "requester", "identityVerification", "reference", "purposes", "status",
       "receivedAt", "termCountedFrom", "responseDueAt", "responseExtended", "informationRequestableUntil",
       "informationRequested", "informationDueAt", "respondedAt", "effectDueAt", "effectExtended", "completedAt",
       "denialReason", "fulfilment", "overdue", "history", "createdAt", "updatedAt"});
  s["ArcoRequestList"] = List("ArcoRequest");
  s["OppositionCreate"] = obj({{"purpose", Str()},
                               {"reason", Nullable({{"type", "string"}, {"maxLength", 2000}})},
                               {"arcoRequestId", Nullable(Id("arc"))}},
                              {"purpose"});
  s["OppositionItem"] = obj({{"id", Id("opp")},
                             {"object", {{"const", "person.opposition"}}},
                             {"purpose", Str()},
                             {"reason", Nullable(Str())},
                             {"arcoRequestId", Nullable(Id("arc"))},
                             {"createdAt", dt},
                             {"liftedAt", when},
                             {"liftedByConsentId", Nullable(Id("cns"))}},
                            {"id", "object", "purpose", "reason", "arcoRequestId", "createdAt", "liftedAt", "liftedByConsentId"});
  s["OppositionList"] = List("OppositionItem");
  return area;
}

}  // namespace svc::api::persons
