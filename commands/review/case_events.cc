#include "commands/review/case_events.h"

#include "commands/event_codec.h"
#include "core/json.h"

namespace svc::commands::review {

std::string EncodeData(const CaseEvent& event) { return EncodeEventData(event); }

core::Result<CaseEvent> Decode(const eventstore::EventEnvelope& env) {
  return DecodeEvent<CaseEvent>(env, "review case");
}

}  // namespace svc::commands::review
