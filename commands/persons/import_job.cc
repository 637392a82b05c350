#include "commands/persons/import_job.h"

#include "commands/event_codec.h"

namespace svc::commands::persons {

core::Result<ImportEvent> DecodeImport(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<ImportEvent>(envelope, "person import");
}

core::Result<Decision> ImportDecider::Decide(const ImportState& s, const RecordImport& c, const CommandContext&) {
  if (s.recorded) return core::AlreadyExists("the import job is recorded", "CONFLICT");
  Decision d;
  d.events.push_back(NewEventOf(ImportEvent(c.job)));
  return d;
}

core::Status ImportDecider::Evolve(ImportState& s, const eventstore::EventEnvelope& e) {
  SVC_RETURN_IF_ERROR(DecodeImport(e).status());
  s.recorded = true;
  return core::Status::Ok();
}

}  // namespace svc::commands::persons
