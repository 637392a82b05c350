#include "commands/verification/session_events.h"

#include "commands/event_codec.h"

namespace svc::commands::verification {

std::string_view TypeOf(const SessionEvent& e) {
  if (const auto* v = std::get_if<VerdictReached>(&e)) return v->type;
  return std::visit(
      [](const auto& v) -> std::string_view {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, VerdictReached>) {
          return v.type;
        } else {
          return T::kType;
        }
      },
      e);
}
int SchemaOf(const SessionEvent& e) {
  return std::visit([](const auto& v) { return kSchemaOf<std::decay_t<decltype(v)>>; }, e);
}

std::string EncodeData(const SessionEvent& event) { return EncodeEventData(event); }

core::Result<const SessionEvent*> DecodeShared(const eventstore::RecordedEvent& recorded) {
  if (const auto* e = std::any_cast<SessionEvent>(&recorded.decoded)) return e;
  SVC_ASSIGN_OR_RETURN(SessionEvent e, Decode(recorded.event));
  recorded.decoded = std::move(e);
  return std::any_cast<SessionEvent>(&recorded.decoded);
}

core::Result<SessionEvent> Decode(const eventstore::EventEnvelope& env) {
  auto root = core::ParseObject(env.data);
  if (!root.has_value()) return core::DataLoss("session event data is not an object");
  if (auto e = DecodeEventData<SessionEvent>(env.type, *root)) return std::move(*e);
  for (auto t : kVerdictTypes) {
    if (env.type != t) continue;
    VerdictReached e;
    e.type = env.type;
    core::DecodeFields(*root, e);
    return SessionEvent(std::move(e));
  }
  return core::InvalidArgument("not a verification session event: " + env.type);
}

}  // namespace svc::commands::verification
