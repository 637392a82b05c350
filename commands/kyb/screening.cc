#include "commands/kyb/screening.h"

#include "commands/event_codec.h"
#include "core/crypto.h"

namespace svc::commands::kyb {

std::string HitIdFor(std::string_view tenant, std::string_view environment, std::string_view subject_key,
                     std::string_view list_source, std::string_view entry_id) {
  std::string material = "svc/hit/v1";
  for (std::string_view part : {tenant, environment, subject_key, list_source, entry_id}) {
    material += '|';
    material += part;
  }
  return "hit_" + core::Sha256Hex(material).substr(0, 32);
}

core::Result<Decision> AmlListDecider::Decide(const AmlListState& s, const AmlListCommand& command,
                                              const CommandContext&) {
  Decision d;
  const auto& c = std::get<LoadList>(command);
  if (s.exists && s.content_hash == c.loaded.content_hash) {
    d.result = {{"unchanged", true}, {"version", s.versions}};
    return d;
  }
  d.events.push_back(NewEventOf(AmlListEvent(c.loaded)));
  d.result = {{"unchanged", false}, {"version", s.versions + 1}};
  return d;
}

core::Status AmlListDecider::Evolve(AmlListState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(AmlListEvent ev, DecodeAmlList(e));
  const auto& l = std::get<ListLoaded>(ev);
  s.exists = true;
  s.content_hash = l.content_hash;
  ++s.versions;
  return core::Status::Ok();
}

core::Result<Decision> ScreeningDecider::Decide(const ScreeningState& s, const ScreeningCommand& command,
                                                const CommandContext&) {
  Decision d;
  if (s.exists) return d;  // recorded already (a resumed run)
  d.events.push_back(NewEventOf(ScreeningEvent(std::get<RecordScreening>(command).completed)));
  return d;
}

core::Status ScreeningDecider::Evolve(ScreeningState& s, const eventstore::EventEnvelope& e) {
  SVC_RETURN_IF_ERROR(DecodeScreening(e).status());
  s.exists = true;
  return core::Status::Ok();
}

core::Result<Decision> HitDecider::Decide(const HitState& s, const HitCommand& command, const CommandContext&) {
  Decision d;
  if (const auto* f = std::get_if<FindHit>(&command)) {
    d.result = {{"new", !s.exists}};
    if (!s.exists) d.events.push_back(NewEventOf(HitEvent(f->found)));
    return d;
  }
  const auto& r = std::get<ReviewHit>(command);
  if (!s.exists) return core::NotFound("no such screening hit", "SCREENING_NOT_FOUND");
  if (r.review.decision != "confirmed" && r.review.decision != "dismissed") {
    return core::InvalidArgument("decision must be confirmed or dismissed", "VALIDATION_ERROR");
  }
  d.events.push_back(NewEventOf(HitEvent(r.review)));
  d.result = {{"status", r.review.decision}};
  return d;
}

core::Status HitDecider::Evolve(HitState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(HitEvent ev, DecodeHit(e));
  if (std::holds_alternative<HitFound>(ev)) {
    s.exists = true;
    s.status = "open";
  } else {
    s.status = std::get<HitReviewed>(ev).decision;
  }
  return core::Status::Ok();
}


}  // namespace svc::commands::kyb
