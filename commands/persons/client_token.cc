#include "commands/persons/client_token.h"

#include <algorithm>

#include "commands/event_codec.h"
#include "core/crypto.h"

namespace svc::commands::persons {

namespace {
core::Status Invalid() {
  // One answer for every refusal of a spend, so a holder learns nothing about why.
  return core::Unauthenticated("the client token is not valid (unknown, expired, revoked or already used)",
                               "CLIENT_TOKEN_INVALID");
}
}  // namespace

core::Result<Decision> ClientTokenDecider::Decide(const ClientTokenState& s, const ClientTokenCommand& command,
                                                  const CommandContext& ctx) {
  Decision d;
  if (const auto* c = std::get_if<IssueClientToken>(&command)) {
    if (s.exists) return core::AlreadyExists("the client token exists", "CONFLICT");
    d.events.push_back(NewEventOf(ClientTokenEvent(c->issued)));
    return d;
  }
  if (const auto* u = std::get_if<UseClientToken>(&command)) {
    if (!s.exists || s.environment != ctx.environment || s.person_id != u->person_id) return Invalid();
    if (!core::ConstantTimeEquals(s.secret_hash, u->secret_hash)) return Invalid();
    if (s.used_micros != 0 || s.revoked_micros != 0 || ctx.now.micros >= s.expires_micros) return Invalid();
    for (const auto& f : u->fields) {
      if (std::find(s.fields.begin(), s.fields.end(), f) == s.fields.end()) {
        return core::PermissionDenied("the token does not cover the field " + f, "FIELD_NOT_IN_TOKEN_SCOPE");
      }
    }
    d.events.push_back(NewEventOf(ClientTokenEvent(ClientTokenUsed{u->fields})));
    d.result = {{"purpose", s.purpose}, {"reason", s.reason}, {"reasonSealed", s.reason_sealed}};
    return d;
  }
  const auto& r = std::get<RevokeClientToken>(command);
  if (!s.exists || s.environment != ctx.environment || s.person_id != r.person_id) {
    return core::NotFound("no such client token", "CLIENT_TOKEN_NOT_FOUND");
  }
  if (s.revoked_micros == 0) d.events.push_back(NewEventOf(ClientTokenEvent(ClientTokenRevoked{})));
  d.result = {{"revokedAt", core::FormatRfc3339(core::Timestamp{s.revoked_micros != 0 ? s.revoked_micros : ctx.now.micros})}};
  return d;
}

core::Status ClientTokenDecider::Evolve(ClientTokenState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(ClientTokenEvent event, DecodeClientToken(e));
  if (const auto* i = std::get_if<ClientTokenIssued>(&event)) {
    s.exists = true;
    s.environment = e.environment;
    s.person_id = i->person_id;
    s.fields = i->fields;
    s.purpose = i->purpose;
    s.reason = i->reason;
    s.reason_sealed = i->reason_sealed;
    s.secret_hash = i->secret_hash;
    s.created_micros = e.occurred_at.micros;
    s.expires_micros = i->expires_micros;
  } else if (std::holds_alternative<ClientTokenUsed>(event)) {
    s.used_micros = e.occurred_at.micros;
  } else {
    s.revoked_micros = e.occurred_at.micros;
  }
  return core::Status::Ok();
}

core::Json ClientTokenDecider::ResultOf(const std::vector<eventstore::EventEnvelope>& events) {
  for (const auto& e : events) {
    if (e.type == ClientTokenRevoked::kType) return {{"revokedAt", core::FormatRfc3339(e.occurred_at)}};
  }
  return nullptr;
}

}  // namespace svc::commands::persons
