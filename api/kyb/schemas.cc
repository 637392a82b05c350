// The OpenAPI schemas and tags of the KYB area (companies_api.cc, screening_api.cc).
#include "api/kyb/routes.h"

namespace svc::api::kyb {

OpenApiArea KybOpenApi() {
  OpenApiArea area;
  area.tags = {{"Companies (KYB)",
                "Legal-entity verification: the company record, its members, documents and ownership graph, and "
                "the pipeline `verify` runs (registry, ownership, screening, risk). See docs/kyb.md."},
               {"AML screening",
                "Sanctions and PEP screening against the lists the operator loaded (`svc aml load`), the hits and "
                "their review, and monitoring portfolios. See docs/screening.md."}};
  core::Json& s = area.schemas;
  using namespace schema;
  const core::Json integer = {{"type", "integer"}};
  const core::Json boolean = {{"type", "boolean"}};
  const core::Json obj = {{"type", "object"}};
  const core::Json status = Enum({"draft", "verifying", "verified", "needs_review", "rejected"});
  const core::Json claim = Enum({"unclaimed", "pending", "claimed"});
  const core::Json risk = Nullable(Enum({"low", "medium", "high"}));
  const core::Json pct = Nullable({{"type", "string"}, {"pattern", "^[0-9]{1,3}(\\.[0-9]{1,4})?$"}});
  s["CompanyCreate"] = Obj({{"legalName", Str()},
                            {"country", {{"type", "string"}, {"pattern", "^[A-Z]{2}$"}}},
                            {"rfc", Nullable(Str())},
                            {"subjectKind", Enum({"legal_entity", "individual_business"})},
                            {"tradeName", Nullable(Str())}},
                           {"legalName"});
  core::Json company = {{"object", {{"const", "company"}}},
                        {"id", Id("cmp")},
                        {"tenantId", Id("ten")},
                        {"legalName", Str()},
                        {"tradeName", Nullable(Str())},
                        {"country", Str()},
                        {"rfc", Nullable(Str())},
                        {"taxId", Nullable(Str())},
                        {"subjectKind", Enum({"legal_entity", "individual_business"})},
                        {"legalForm", Nullable(Str())},
                        {"activity", Nullable(Str())},
                        {"industryCode", Nullable(Str())},
                        {"incorporationDate", Nullable({{"type", "string"}, {"format", "date"}})},
                        {"registryAuthority", Nullable(Str())},
                        {"registryId", Nullable(Str())},
                        {"registryStatus", Nullable(Enum({"active", "suspended", "dissolved"}))},
                        {"networkCompanyId", Nullable(Str())},
                        {"claimStatus", claim},
                        {"status", status},
                        {"riskLevel", risk},
                        {"riskScore", Nullable(integer)},
                        {"verificationMethod", Nullable(Str())},
                        {"verifiedAt", Nullable(DateTime())},
                        {"createdAt", DateTime()},
                        {"updatedAt", DateTime()}};
  std::vector<std::string> company_required;
  for (auto it = company.begin(); it != company.end(); ++it) {
    if (it.key() != "object") company_required.push_back(it.key());
  }
  s["CompanyResponse"] = Obj(company, company_required);
  s["CompanyList"] = List("CompanyResponse");
  s["CompanyCheckResponse"] = Obj({{"type", Enum({"registry", "ownership", "screening", "risk"})},
                                   {"status", Enum({"passed", "failed", "needs_review", "not_run"})},
                                   {"run", integer},
                                   {"checkedAt", DateTime()},
                                   {"result", obj}},
                                  {});
  s["CompanyMemberCreate"] = Obj({{"name", Str()}, {"personId", Nullable(Id("per"))}, {"role", Nullable(Str())}}, {"name"});
  s["CompanyMemberResponse"] = Obj({{"id", Id("cmm")},
                                    {"companyId", Id("cmp")},
                                    {"createdAt", DateTime()},
                                    {"name", Nullable(Str())},
                                    {"personId", Nullable(Id("per"))},
                                    {"role", Nullable(Str())},
                                    {"verificationStatus", Enum({"pending", "clear", "hit"})},
                                    {"forgottenAt", {{"type", {"string", "null"}}, {"format", "date-time"},
                                                     {"description", "when the member's personal data was erased "
                                                                     "(docs/kyb.md#erasure); name is null since"}}}},
                                   {});
  s["CompanyDocumentCreate"] = Obj({{"kind", Nullable(Str())},
                                    {"sha256", Nullable({{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}})},
                                    {"storageKey", Nullable(Str())}},
                                   {"kind"});
  s["CompanyDocumentCreate"]["required"] = core::Json::array();
  s["CompanyDocumentResponse"] = Obj({{"id", Id("cdc")},
                                      {"companyId", Id("cmp")},
                                      {"createdAt", DateTime()},
                                      {"kind", Nullable(Str())},
                                      {"sha256", Nullable(Str())},
                                      {"status", Enum({"received"})},
                                      {"storageKey", Nullable(Str())},
                                      {"uploadedByUserId", Nullable(Id("usr"))}},
                                     {});
  // Erasure of a member's or owner's personal data (docs/kyb.md#erasure).
  s["KybForgetRequest"] = Obj({{"reason", Nullable({{"type", "string"}, {"maxLength", 2000}})},
                               {"arcoRequestId", Nullable(Id("arc"))}},
                              {});
  s["KybForgetRequest"]["required"] = core::Json::array();
  s["KybForgetResponse"] = Obj({{"object", {{"const", "kyb.forget"}}},
                                {"companyId", Id("cmp")},
                                {"subjectType", Enum({"member", "ubo_node"})},
                                {"subjectId", Str()},
                                {"keysDestroyed", boolean}},
                               {"object", "companyId", "subjectType", "subjectId", "keysDestroyed"});
  s["KybDeletionCertificate"] = Obj({{"timestamps", {{"type", "array"}, {"items", Ref("EvidenceTimestamp")}}},
                                     {"object", {{"const", "kyb.deletion_certificate"}}},
                                     {"subjectType", Enum({"member", "ubo_node"})},
                                     {"subjectId", Str()},
                                     {"companyId", Id("cmp")},
                                     {"tenantId", Id("ten")},
                                     {"environment", Enum({"test", "live"})},
                                     {"arcoRequestId", Nullable(Id("arc"))},
                                     {"forgottenAt", DateTime()},
                                     {"purgedAt", DateTime()},
                                     {"keysDestroyed", integer},
                                     {"method", Str()},
                                     {"contentHash", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                                     {"signature", Str()},
                                     {"signatureEd25519", Str()},
                                     {"signingKeyId", Str()}},
                                    {"object", "subjectType", "subjectId", "companyId", "tenantId", "environment",
                                     "purgedAt", "contentHash", "signature"});
  s["UboNodeCreate"] = Obj({{"name", Str()},
                            {"isControlPerson", boolean},
                            {"nodeType", Enum({"person", "company"})},
                            {"ownershipPct", Nullable({{"type", {"number", "string"}}})},
                            {"parentNodeId", Nullable(Id("ubo"))},
                            {"personId", Nullable(Id("per"))},
                            {"relatedCompanyId", Nullable(Id("cmp"))},
                            {"role", Nullable(Str())}},
                           {"name"});
  s["UboNodeResponse"] = Obj({{"id", Id("ubo")},
                              {"companyId", Id("cmp")},
                              {"createdAt", DateTime()},
                              {"effectivePct", pct},
                              {"isControlPerson", boolean},
                              {"name", {{"type", {"string", "null"}}, {"description", "null once erased (docs/kyb.md#erasure)"}}},
                              {"forgottenAt", {{"type", {"string", "null"}}, {"format", "date-time"}}},
                              {"nodeType", Enum({"person", "company"})},
                              {"ownershipPct", pct},
                              {"ownershipType", Nullable(Enum({"direct", "indirect"}))},
                              {"parentNodeId", Nullable(Id("ubo"))},
                              {"personId", Nullable(Id("per"))},
                              {"relatedCompanyId", Nullable(Id("cmp"))},
                              {"role", Nullable(Str())},
                              {"status", Enum({"declared", "clear", "hit"})}},
                             {});
  core::Json detail = company;
  detail["checks"] = {{"type", "array"}, {"items", Ref("CompanyCheckResponse")}};
  detail["documents"] = {{"type", "array"}, {"items", Ref("CompanyDocumentResponse")}};
  detail["members"] = {{"type", "array"}, {"items", Ref("CompanyMemberResponse")}};
  detail["screeningHits"] = {{"type", "array"}, {"items", Ref("ScreeningHitResponse")}};
  detail["uboNodes"] = {{"type", "array"}, {"items", Ref("UboNodeResponse")}};
  s["CompanyDetail"] = Obj(detail, company_required);
  s["CompanyStatusResponse"] = Obj({{"id", Id("cmp")}, {"status", status}, {"claimStatus", claim}, {"riskLevel", risk},
                                    {"riskScore", Nullable(integer)}},
                                   {});
  s["CompanyVerifyResponse"] = Obj({{"id", Id("cmp")}, {"status", status}, {"claimStatus", claim}, {"riskLevel", risk},
                                    {"riskScore", Nullable(integer)}, {"verifiedAt", Nullable(DateTime())}},
                                   {});
  const core::Json list_ref = Obj({{"source", Str()}, {"format", Str()}, {"contentHash", Str()}}, {});
  s["ScreeningHitResponse"] = Obj({{"object", {{"const", "screening_hit"}}},
                                   {"id", Id("hit")},
                                   {"screeningId", Id("scr")},
                                   {"subjectType", Enum({"person", "company", "company_member", "ubo_node", "name"})},
                                   {"subjectId", Nullable(Str())},
                                   {"companyId", Nullable(Id("cmp"))},
                                   {"list", list_ref},
                                   // The names are null once the subject's data is erased (docs/screening.md).
                                   {"entry", Obj({{"id", Str()}, {"kind", Str()}, {"name", Nullable(Str())}, {"programs", Strs()}}, {})},
                                   {"matchedName", Nullable(Str())},
                                   {"score", Num()},
                                   {"nameScore", Num()},
                                   {"reasons", Strs()},
                                   {"algorithm", Str()},
                                   {"status", Enum({"open", "confirmed", "dismissed"})},
                                   {"reviews", {{"type", "array"},
                                                {"items", Obj({{"decision", Enum({"confirmed", "dismissed"})},
                                                               {"reasonCode", Str()},
                                                               {"note", Nullable(Str())},
                                                               {"actorType", Enum({"api_key", "user"})},
                                                               {"actorId", Str()},
                                                               {"at", DateTime()}},
                                                              {})}}},
                                   {"createdAt", DateTime()},
                                   {"updatedAt", DateTime()}},
                                  {});
  s["ScreeningHitList"] = List("ScreeningHitResponse");
  s["ScreeningHitReview"] = Obj({{"decision", Enum({"confirmed", "dismissed"})},
                                 {"reasonCode", Enum({"true_match", "false_positive", "insufficient_data", "other"})},
                                 {"note", Nullable(Str())}},
                                {"decision", "reasonCode"});
  s["ScreeningRequest"] = Obj({{"subjectType", Enum({"person", "company", "name"})},
                               {"personId", Nullable(Id("per"))},
                               {"companyId", Nullable(Id("cmp"))},
                               {"name", Nullable(Str())},
                               {"kind", Nullable(Enum({"person", "company"}))},
                               {"birthDate", Nullable(Str())},
                               {"nationality", Nullable(Str())},
                               {"idNumber", Nullable(Str())},
                               {"portfolioId", Nullable({{"type", "string"}, {"pattern", "^[a-z0-9][a-z0-9_-]{0,63}$"}})}},
                              {"subjectType"});
  const core::Json lists = {{"type", "array"},
                            {"items", Obj({{"source", Str()}, {"format", Str()}, {"contentHash", Str()},
                                           {"entries", integer}, {"version", integer}, {"loadedAt", DateTime()}},
                                          {})}};
  s["ScreeningResponse"] = Obj({{"object", {{"const", "screening"}}},
                                {"id", Id("scr")},
                                {"subjectType", Enum({"person", "company", "name"})},
                                {"subjectId", Nullable(Str())},
                                {"portfolioId", Nullable(Str())},
                                {"lists", lists},
                                {"namesScreened", integer},
                                {"algorithm", Str()},
                                {"hits", {{"type", "array"}, {"items", Ref("ScreeningHitResponse")}}},
                                {"createdAt", DateTime()}},
                               {});
  s["PortfolioRunResponse"] = Obj({{"object", {{"const", "portfolio_run"}}},
                                   {"portfolioId", Str()},
                                   {"subjects", integer},
                                   {"subjectsSkipped", integer},
                                   {"namesScreened", integer},
                                   {"hits", integer},
                                   {"newHits", {{"type", "array"}, {"items", Ref("ScreeningHitResponse")}}},
                                   {"lists", lists},
                                   {"ranAt", DateTime()}},
                                  {});
  return area;
}

}  // namespace svc::api::kyb
