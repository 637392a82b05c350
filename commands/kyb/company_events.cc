#include "commands/kyb/company_events.h"

#include "commands/event_codec.h"

namespace svc::commands::kyb {

std::string EncodeData(const CompanyEvent& event) { return EncodeEventData(event); }

core::Result<CompanyEvent> Decode(const eventstore::EventEnvelope& env) {
  return DecodeEvent<CompanyEvent>(env, "company");
}

}  // namespace svc::commands::kyb
