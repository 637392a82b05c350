#pragma once
// The review read model's keys (prefix "review/"), for ReviewProjector and the review routes. No
// row holds personal data in the clear: notes stay sealed under the session's key (destroyed with
// it); the case detail opens them.
//
//   case/<ten>/<env>/<cas>            the case (ReviewQueueItem, as served)
//   q/<ten>/<env>/<rank><due BE><cas> = ""; every case, in queue order: priority (critical
//                                     first), then SLA due date, then id
//   qo/<ten>/<env>/<same entry>       = ""; the unfinished cases only (open, in_progress, escalated),
//                                     in the same order: the default queue reads it unfiltered
//   qsum/<ten>/<env>                  {open, inProgress, escalated, resolved, closed, total}
//   seq/<ten>/<env>                   the last case number given
//   events/<ten>/<env>/<cas>/<seq>    the case's log (CaseEventItem; a note's body as `noteSealed`,
//                                     sealed under the session's key: the case detail opens it)
//   bysession/<ten>/<env>/<vrf>       the latest case of a session (its id)
//   num/<ten>/<env>/<12-digit number> the case of a case number (its id: CASE-000042 is 42)
//   feed/<ten>/<env>/<n BE64>         the queue's change feed, one entry per case event in the
//                                     order applied: {type, caseId, status, priority,
//                                     assigneeUserId, assigneeApiKeyId} (the console's live queue)
//   feedseq/<ten>/<env>               the last feed number given
//   rstats/<ten>/<env>/<actorId>     one reviewer's (or key's) work: {actorType, actorId, held,
//                                     claims, decisions {approve, decline, request_more_info,
//                                     escalate}, proposals, overturned, overrides,
//                                     decisionSeconds, timedDecisions, decisionTimes {lt5m, lt15m,
//                                     lt1h, lt4h, lt24h, ge24h}, lastDecisionAt} (the team view)
//   moves/<ten>/<env>/<cas>           {tenantId, environment, caseId, sessionId, action, reasonCodes,
//                                     approvers}: a final resolution whose verdict the session has
//                                     not recorded yet (the review outcome writer's queue)

#include <cstdio>
#include <cstdint>
#include <string>
#include <string_view>

#include "projections/view_key.h"

namespace svc::projections {

struct ReviewView {
  static constexpr std::string_view kName = "review";

  static std::string Case(std::string_view te, std::string_view id) { return ScopedKey("case/", te, id); }
  static std::string Queue(std::string_view te) { return ScopedKey("q/", te, ""); }
  static std::string OpenQueue(std::string_view te) { return ScopedKey("qo/", te, ""); }
  static std::string Summary(std::string_view te) { return ScopedKey("qsum/", te, ""); }
  static std::string Sequence(std::string_view te) { return ScopedKey("seq/", te, ""); }
  static std::string Events(std::string_view te, std::string_view id) { return ScopedKey("events/", te, id) + "/"; }

  static std::string BySession(std::string_view te, std::string_view session) {
    return ScopedKey("bysession/", te, session);
  }
  static std::string ByNumber(std::string_view te, int64_t number) {
    char digits[24];
    std::snprintf(digits, sizeof digits, "%012lld", static_cast<long long>(number));
    return ScopedKey("num/", te, digits);
  }
  static std::string Feed(std::string_view te) { return ScopedKey("feed/", te, ""); }
  static std::string FeedSequence(std::string_view te) { return ScopedKey("feedseq/", te, ""); }

  static std::string Stats(std::string_view te, std::string_view actor) { return ScopedKey("rstats/", te, actor); }
  static std::string AllStats(std::string_view te) { return ScopedKey("rstats/", te, ""); }

  static std::string MovesPrefix() { return "moves/"; }
  static std::string Move(std::string_view te, std::string_view id) { return ScopedKey("moves/", te, id); }
  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }
};

}  // namespace svc::projections
