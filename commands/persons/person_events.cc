#include "commands/persons/person_events.h"

#include "commands/event_codec.h"

namespace svc::commands::persons {

std::string_view TypeOf(const PersonEvent& e) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kType; }, e);
}

std::string EncodeData(const PersonEvent& event) { return EncodeEventData(event); }

core::Result<PersonEvent> Decode(const eventstore::EventEnvelope& env) {
  return DecodeEvent<PersonEvent>(env, "person");
}

}  // namespace svc::commands::persons
