#include "commands/compliance/retention.h"

#include "commands/event_codec.h"

namespace svc::commands::compliance {

core::Result<Decision> RetentionDecider::Decide(const RetentionState& s, const SweepRows& c, const CommandContext&) {
  if (c.swept.resource != kWebhookDeliveriesResource) {
    return core::InvalidArgument("no retention sweep for resource " + c.swept.resource);
  }
  auto last = s.swept_before.find(c.swept.resource);
  const bool news = last == s.swept_before.end() || c.swept.before_micros > last->second;
  Decision d;
  d.result = {{"swept", news}};
  if (news) d.events.push_back(NewEventOf(RetentionEvent(c.swept)));
  return d;
}

core::Status RetentionDecider::Evolve(RetentionState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(RetentionEvent event, DecodeRetention(e));
  const auto& swept = std::get<RowsSwept>(event);
  s.swept_before[swept.resource] = swept.before_micros;
  return core::Status::Ok();
}

}  // namespace svc::commands::compliance
