#include "commands/embedded/flow_events.h"

#include "commands/event_codec.h"

namespace svc::commands::embedded {

core::Result<FlowEvent> DecodeFlow(const eventstore::EventEnvelope& env) { return DecodeEvent<FlowEvent>(env, "flow"); }

}  // namespace svc::commands::embedded
