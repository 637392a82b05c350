#include "commands/persons/person_events.h"

#include "commands/event_codec.h"

namespace svc::commands::persons {

std::string_view TypeOf(const PersonEvent& e) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kType; }, e);
}

std::string EncodeData(const PersonEvent& event) { return EncodeEventData(event); }

core::Result<PersonEvent> Decode(const eventstore::EventEnvelope& env) {
  core::Json j = core::ParseJsonOrDiscarded(env.data);
  if (!j.is_object()) return core::DataLoss("person event data is not an object");
  if (auto e = DecodeEventData<PersonEvent>(env.type, j)) return std::move(*e);
  return core::InvalidArgument("not a person event: " + env.type);
}

}  // namespace svc::commands::persons
