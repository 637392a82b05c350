#include "commands/review/case_decider.h"

#include "commands/event_codec.h"

#include "core/crypto.h"

namespace svc::commands::review {

std::string CaseIdForTracking(std::string_view tracking_id) {
  return "cas_" + core::Sha256Hex("svc/case/v1|" + std::string(tracking_id)).substr(0, 32);
}

core::Result<Decision> CaseDecider::Decide(const CaseState& s, const CaseCommand& c,
                                           const CommandContext&) {
  Decision d;
  const auto& open = std::get<OpenCase>(c);
  if (s.exists) return d;  // opened already: a resumed pipeline
  d.events.push_back(NewEvent{std::string(CaseOpened::kType), CaseOpened::kSchema,
                              EncodeData(CaseEvent(open.opened))});
  return d;
}

core::Status CaseDecider::Evolve(CaseState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(CaseEvent ev, Decode(e));
  const auto& o = std::get<CaseOpened>(ev);
  s.exists = true;
  s.status = "open";
  s.session_id = o.session_id;
  return core::Status::Ok();
}

core::Json CaseDecider::ToJson(const CaseState& s) { return core::EncodeFields(s); }

core::Result<CaseState> CaseDecider::FromJson(std::string_view text) {
  return DecodeSnapshot<CaseState>(text, "case");
}

}  // namespace svc::commands::review
