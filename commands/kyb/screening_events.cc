#include "commands/kyb/screening_events.h"

#include "commands/event_codec.h"

namespace svc::commands::kyb {

core::Result<AmlListEvent> DecodeAmlList(const eventstore::EventEnvelope& env) {
  return DecodeEvent<AmlListEvent>(env, "aml list");
}
core::Result<ScreeningEvent> DecodeScreening(const eventstore::EventEnvelope& env) {
  return DecodeEvent<ScreeningEvent>(env, "screening");
}
core::Result<HitEvent> DecodeHit(const eventstore::EventEnvelope& env) {
  return DecodeEvent<HitEvent>(env, "screening hit");
}

}  // namespace svc::commands::kyb
