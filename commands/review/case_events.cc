#include "commands/review/case_events.h"

#include "core/json.h"

namespace svc::commands::review {

std::string EncodeData(const CaseEvent& event) {
  return core::DumpJson(std::visit([](const auto& e) { return core::EncodeFields(e); }, event));
}

core::Result<CaseEvent> Decode(const eventstore::EventEnvelope& env) {
  core::Json j = core::ParseJsonOrDiscarded(env.data);
  if (!j.is_object()) return core::DataLoss("case event data is not an object");
  if (env.type == CaseOpened::kType) {
    CaseOpened e;
    core::DecodeFields(j, e);
    return CaseEvent(std::move(e));
  }
  return core::InvalidArgument("not a review case event: " + env.type);
}

}  // namespace svc::commands::review
