#include "pipeline/webhooks/catalogue.h"

#include <algorithm>

namespace svc::pipeline::webhooks {

const std::vector<EventType>& EventTypes() { return commands::webhooks::WebhookTypes(); }

const std::vector<std::string>& EventPatterns() {
  static const std::vector<std::string> kPatterns = {"*", "verification.*", "case.*", "service.*", "compliance.*", "audit.*",
                                                     "company.*", "aml.*", "arco.*"};
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
    types.push_back({{"type", t.type},
                     {"description", t.description},
                     {"carriesReport", t.carries_report},
                     {"emitted", t.emitted}});
  }
  return {{"eventTypes", types}, {"patterns", EventPatterns()}};
}

}  // namespace svc::pipeline::webhooks
