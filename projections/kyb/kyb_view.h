#pragma once
// The KYB and AML read model's keys (prefix "kyb/"), for KybProjector, the kyb routes and the
// KYB process managers. Names and RFCs stay sealed in the rows (the routes open them); list
// entries' names are the lists' published data.
//
//   c/<ten>/<env>/<cmp>               the company (CompanyDetail as stored: sealed names, members,
//                                     documents, UBO nodes, checks, the last run's figures)
//   ca/<ten>/<env>/<cmp>              the company's row as its create made it: the first answer of
//                                     POST /v1/companies, told again to a retry with its key
//   l/<ten>/<env>/<~created BE><cmp>  = ""; every company, newest first
//   lc/<ten>/<env>/<claimStatus>/<~created BE><cmp> = ""; by claim status
//   rfc/<ten>/<env>/<blind>           the company holding an RFC (its id)
//   due/<ten>/<env>/<cmp>             {tenantId, environment, companyId, run}: a run in progress (the
//                                     company verifier's queue)
//   list/<source>                     the loaded version of a list (service-wide)
//   listv/<source>/<n BE>             every version loaded, in order
//   scr/<ten>/<env>/<scr>             a screening (its lists, hits and subject)
//   hit/<ten>/<env>/<hit>             a hit (ScreeningHitResponse as stored)
//   hits/<ten>/<env>/<~found BE><hit> = ""; every hit, newest first
//   hbc/<ten>/<env>/<cmp>/<hit>       = ""; the hits of a company, its members and owners
//   pf/<ten>/<env>/<portfolio>/<subject key>  the portfolio's subject {subjectType, subjectId,
//                                     subjectKey, subjectSealed}
//   shred/<ten>/<env>/<cmp>/<subject> {subjectType}: a forgotten member or node whose data key is
//                                     still to destroy (the subject shredder's queue)
//   del/<ten>/<env>/<subject>         the content of the subject's deletion certificate, once its
//                                     key is destroyed

#include <string>
#include <string_view>

#include "projections/view_key.h"

namespace svc::projections {

struct KybView {
  static constexpr std::string_view kName = "kyb";

  static std::string Company(std::string_view te, std::string_view id) { return ScopedKey("c/", te, id); }
  static std::string CompanyAsCreated(std::string_view te, std::string_view id) { return ScopedKey("ca/", te, id); }
  static std::string Companies(std::string_view te) { return ScopedKey("l/", te, ""); }
  static std::string ByClaim(std::string_view te, std::string_view claim) {
    return ScopedKey("lc/", te, claim) + "/";
  }
  static std::string Rfc(std::string_view te, std::string_view blind) { return ScopedKey("rfc/", te, blind); }
  static std::string DuePrefix() { return "due/"; }
  static std::string Due(std::string_view te, std::string_view id) { return ScopedKey("due/", te, id); }
  static std::string ListsPrefix() { return "list/"; }
  static std::string List(std::string_view source) { return "list/" + std::string(source); }
  static std::string ListVersions(std::string_view source) { return "listv/" + std::string(source) + "/"; }
  static std::string Screening(std::string_view te, std::string_view id) { return ScopedKey("scr/", te, id); }
  static std::string Hit(std::string_view te, std::string_view id) { return ScopedKey("hit/", te, id); }
  static std::string Hits(std::string_view te) { return ScopedKey("hits/", te, ""); }
  static std::string HitsOfCompany(std::string_view te, std::string_view company) {
    return ScopedKey("hbc/", te, company) + "/";
  }
  static std::string Portfolio(std::string_view te, std::string_view portfolio) {
    return ScopedKey("pf/", te, portfolio) + "/";
  }
  static std::string ShredPrefix() { return "shred/"; }
  static std::string Shred(std::string_view te, std::string_view company, std::string_view subject) {
    return ScopedKey("shred/", te, company) + "/" + std::string(subject);
  }
  static std::string Deletion(std::string_view te, std::string_view subject) { return ScopedKey("del/", te, subject); }
  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }
};

}  // namespace svc::projections
