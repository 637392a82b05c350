#include "commands/review/case_events.h"

#include "commands/event_codec.h"
#include "core/json.h"

namespace svc::commands::review {

std::string EncodeData(const CaseEvent& event) { return EncodeEventData(event); }

core::Result<CaseEvent> Decode(const eventstore::EventEnvelope& env) {
  core::Json j = core::ParseJsonOrDiscarded(env.data);
  if (!j.is_object()) return core::DataLoss("case event data is not an object");
  if (auto e = DecodeEventData<CaseEvent>(env.type, j)) return std::move(*e);
  return core::InvalidArgument("not a review case event: " + env.type);
}

}  // namespace svc::commands::review
