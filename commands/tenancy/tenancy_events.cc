#include "commands/tenancy/tenancy_events.h"

#include "commands/event_codec.h"

#include <optional>

namespace svc::commands::tenancy {

std::string_view TypeOf(const TenancyEvent& e) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kType; }, e);
}
int SchemaOf(const TenancyEvent& e) {
  return std::visit([](const auto& v) { return kSchemaOf<std::decay_t<decltype(v)>>; }, e);
}

std::string EncodeData(const TenancyEvent& event) { return EncodeEventData(event); }

core::Result<TenancyEvent> Decode(const eventstore::EventEnvelope& env) {
  return DecodeEvent<TenancyEvent>(env, "tenancy");
}

}  // namespace svc::commands::tenancy
