#include "commands/claims/claim_decider.h"

#include "commands/event_codec.h"
#include "core/error_catalogue.h"
#include "commands/kyb/company_decider.h"
#include "commands/persons/person_decider.h"

namespace svc::commands::claims {

namespace {

core::Result<Decision> Conflict(const TakeClaim& c, const std::string& holder) {
  if (c.conflict_code.empty()) {
    Decision d;
    d.result = {{"holder", holder}, {"taken", false}};
    return d;
  }
  // The code as the catalogue holds it (a Status keeps a view of it): a take decoded from the wire
  // owns its copy only as long as the command lives.
  const core::ErrorCodeInfo* code = core::FindErrorCode(c.conflict_code);
  core::Status st = core::AlreadyExists("another holder has this value", code != nullptr ? code->code : std::string_view());
  if (!c.conflict_member.empty()) st.WithExtension(c.conflict_member, holder);
  return st;
}

}  // namespace

bool Holds(const HoldsRule& rule, const std::any& holder_state) {
  if (rule.kind.empty()) return true;
  if (rule.kind == HoldsRule::kCompanyExists) {
    const auto* s = std::any_cast<kyb::CompanyState>(&holder_state);
    return s != nullptr && s->exists;
  }
  const auto* p = std::any_cast<persons::PersonState>(&holder_state);
  if (p == nullptr) return false;
  if (rule.kind == HoldsRule::kPersonCurp) return persons::HoldsCurp(*p, rule.key);
  if (rule.kind == HoldsRule::kPersonExternalRef) return persons::HoldsExternalRef(*p, rule.key, rule.ref);
  return false;  // a rule this version does not know: the holder is taken to hold nothing
}

core::Result<Decision> ClaimDecider::Decide(const ClaimState& s, const ClaimCommand& command, const StateReader& read,
                                            const CommandContext& ctx) {
  Decision d;
  if (const auto* r = std::get_if<ReleaseClaim>(&command)) {
    if (s.holder == r->holder && !s.released) d.events.push_back(NewEventOf(ClaimEvent(ClaimReleased{r->holder})));
    return d;
  }
  const auto& c = std::get<TakeClaim>(command);
  d.result = {{"holder", c.holder}, {"taken", true}};
  if (s.holder == c.holder && !s.released) {  // held already: nothing to record
    d.result["alreadyHeld"] = true;
    return d;
  }
  std::string replaces;
  if (!s.holder.empty() && s.holder != c.holder) {
    // A release is a hint, never the last word: a holder gives a claim back when its own command
    // failed, and a failure whose outcome is unknown (an answer timeout, a forwarded command
    // decided after all, a commit reported failed that committed) may have written the holder
    // with the value. So a released claim is free only if its holder does not hold the value as
    // the write model has it now (this strand: every command before this one is decided), and a
    // held one as well once its holder's time is out (issue 67).
    SVC_ASSIGN_OR_RETURN(AggregateView holder, read(s.holder_type, s.holder));
    if (holder.version > 0) {
      if (Holds(c.holds, *holder.state)) return Conflict(c, s.holder);
    } else if (!s.released && ctx.now.micros < s.taken_micros + c.ttl_seconds * 1'000'000) {
      return Conflict(c, s.holder);  // its holder is being made
    }
    if (!s.released) replaces = s.holder;
  }
  d.events.push_back(NewEventOf(ClaimEvent(ClaimTaken{c.holder, c.holder_type, replaces})));
  return d;
}

core::Status ClaimDecider::Evolve(ClaimState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(ClaimEvent ev, DecodeClaim(e));
  if (const auto* t = std::get_if<ClaimTaken>(&ev)) {
    s.holder = t->holder;
    s.holder_type = t->holder_type;
    s.taken_micros = e.occurred_at.micros;
    s.released = false;
  } else {
    s.released = true;
  }
  return core::Status::Ok();
}

core::Result<TakeAnswer> ReadTake(const core::Json& result) {
  if (!result.is_object() || !result.contains("taken") || !result["taken"].is_boolean()) {
    return core::Internal("a claim's answer could not be read");
  }
  TakeAnswer a;
  a.taken = result["taken"].get<bool>();
  if (auto h = result.find("holder"); h != result.end() && h->is_string()) a.holder = h->get<std::string>();
  if (auto h = result.find("alreadyHeld"); h != result.end() && h->is_boolean()) a.already_held = h->get<bool>();
  return a;
}

core::Json ClaimDecider::ResultOf(const std::vector<eventstore::EventEnvelope>& events) {
  for (const auto& e : events) {
    auto ev = DecodeClaim(e);
    if (!ev.ok()) continue;
    if (const auto* t = std::get_if<ClaimTaken>(&*ev)) return {{"holder", t->holder}, {"taken", true}};
  }
  return nullptr;  // a release answers nothing
}

void RequireClaims(Command& command, std::vector<RequiredClaim> claims) {
  if (claims.empty()) return;
  command.required_claims = core::Json::array();
  for (const auto& c : claims) {
    command.required_claims.push_back(
        {{"claimId", c.claim_id}, {"conflictCode", c.conflict_code}, {"conflictMember", c.conflict_member}});
  }
  auto decide = std::move(command.decide);
  command.decide = nullptr;
  command.decide_reading = [decide = std::move(decide), holder = command.aggregate_id, claims = std::move(claims)](
                               const std::any& state, const StateReader& read,
                               const CommandContext& ctx) -> core::Result<Decision> {
    for (const auto& c : claims) {
      SVC_ASSIGN_OR_RETURN(AggregateView view, read(kClaimAggregate, c.claim_id));
      const ClaimState& s = StateOf<ClaimDecider>(view);
      if (s.holder == holder && !s.released) continue;
      // The code as the catalogue holds it (a Status keeps a view of it): a take decoded from the wire
  // owns its copy only as long as the command lives.
  const core::ErrorCodeInfo* code = core::FindErrorCode(c.conflict_code);
  core::Status st = core::AlreadyExists("another holder has this value", code != nullptr ? code->code : std::string_view());
      if (!c.conflict_member.empty() && !s.holder.empty() && !s.released) st.WithExtension(c.conflict_member, s.holder);
      return st;
    }
    return decide(state, ctx);
  };
}

}  // namespace svc::commands::claims
