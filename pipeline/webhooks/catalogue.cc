#include "pipeline/webhooks/catalogue.h"

#include <algorithm>

namespace svc::pipeline::webhooks {

const std::vector<EventType>& EventTypes() {
  static const std::vector<EventType> kTypes = {
      {"verification.approved", "the verification passed", true, "VerificationVerdictEvent"},
      {"verification.declined", "the verification failed", true, "VerificationVerdictEvent"},
      {"verification.review_required",
       "the engine does not decide alone; the case entered the review queue", true,
       "VerificationVerdictEvent"},
      {"verification.more_info_requested", "the person must provide more", true,
       "VerificationVerdictEvent"},
      {"verification.expired", "the session expired before completion", false,
       "VerificationExpiredEvent"},
      {"case.escalated", "a review case went up a level (emitted once the review API lands)",
       false, "CaseEscalatedEvent"},
      {"service.test", "test event: sent when an endpoint is registered, and by the test operation",
       false, "ServiceTestEvent"},
  };
  return kTypes;
}

const std::vector<std::string>& EventPatterns() {
  static const std::vector<std::string> kPatterns = {"*", "verification.*", "case.*", "service.*"};
  return kPatterns;
}

bool IsKnownSubscription(std::string_view entry) {
  for (const auto& t : EventTypes()) {
    if (t.type == entry) return true;
  }
  const auto& p = EventPatterns();
  return std::find(p.begin(), p.end(), entry) != p.end();
}

core::Json CatalogueJson() {
  core::Json types = core::Json::array();
  for (const auto& t : EventTypes()) {
    types.push_back({{"type", t.type}, {"description", t.description}, {"carriesReport", t.carries_report}});
  }
  return {{"eventTypes", types}, {"patterns", EventPatterns()}};
}

}  // namespace svc::pipeline::webhooks
