#include "commands/event_codec.h"
#include "commands/persons/arco_request.h"

namespace svc::commands::persons {

core::Result<ArcoEvent> DecodeArco(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<ArcoEvent>(envelope, "ARCO request");
}

const ArcoRecord& RecordOf(const ArcoEvent& event) {
  return std::visit([](const auto& e) -> const ArcoRecord& { return e; }, event);
}

bool FulfilsRight(std::string_view right, std::string_view operation) {
  if (right == "access") return operation == "export";
  if (right == "rectification") return operation == "rectification";
  if (right == "cancellation") return operation == "forget" || operation == "member_erasure";
  if (right == "opposition") return operation == "opposition";
  return false;
}

}  // namespace svc::commands::persons
