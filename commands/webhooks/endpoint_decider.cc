#include "commands/webhooks/endpoint_decider.h"

#include "commands/event_codec.h"
#include "commands/tenancy/tenant_decider.h"

namespace svc::commands::webhooks {

namespace {

NewEvent Make(const EndpointEvent& e) { return NewEventOf(e); }

}  // namespace

core::Result<Decision> EndpointDecider::Decide(const EndpointState& s, const EndpointCommand& command,
                                               const CommandContext& ctx) {
  Decision d;
  if (const auto* c = std::get_if<CreateEndpoint>(&command)) {
    if (s.exists) return core::AlreadyExists("the endpoint exists", "CONFLICT");
    d.events.push_back(Make(EndpointCreated{c->environment, c->url, c->description, c->application_id, c->events,
                                            c->secret_sealed, c->public_key}));
    return d;
  }
  if (!s.exists || s.environment != ctx.environment) {
    return core::NotFound("no such webhook endpoint", "WEBHOOK_NOT_FOUND");
  }
  if (const auto* u = std::get_if<UpdateEndpoint>(&command)) {
    // Only real changes become an event (a PATCH that changes nothing appends nothing).
    EndpointUpdated e;
    e.reason = u->reason;
    auto differs = [&](const char* key, const core::Json& now) {
      auto it = u->changes.find(key);
      if (it != u->changes.end() && *it != now) e.changes[key] = *it;
    };
    differs("url", s.url);
    differs("description", s.description);
    differs("applicationId", s.application_id);
    differs("events", s.events);
    differs("isActive", s.active);
    if (!e.changes.empty()) d.events.push_back(Make(e));
    return d;
  }
  const auto& r = std::get<RotateSecret>(command);
  if (r.public_key.empty() != s.public_key.empty()) {
    return core::FailedPrecondition("a rotation keeps the endpoint's signature scheme (v1 or v1a)", "CONFLICT");
  }
  d.events.push_back(Make(SecretRotated{r.secret_sealed, s.secret_sealed, ctx.now.micros + kRotationOverlapMicros,
                                        r.public_key, s.public_key}));
  return d;
}

core::Result<Decision> EndpointDecider::Decide(const EndpointState& s, const EndpointCommand& command,
                                               const StateReader& read, const CommandContext& ctx) {
  const core::Json* app = nullptr;
  std::string tenant_id;
  if (const auto* c = std::get_if<CreateEndpoint>(&command)) {
    app = &c->application_id;
    tenant_id = c->tenant_id;
  }
  if (const auto* u = std::get_if<UpdateEndpoint>(&command)) {
    auto it = u->changes.find("applicationId");
    if (it != u->changes.end()) app = &*it;
    tenant_id = u->tenant_id;
  }
  if (app != nullptr && app->is_string()) {
    if (tenant_id.empty()) return core::Internal("an endpoint command naming an application without its tenant");
    SVC_ASSIGN_OR_RETURN(AggregateView tenant, read(tenancy::TenantDecider::kName, tenant_id));
    if (StateOf<tenancy::TenantDecider>(tenant).FindApplication(app->get<std::string>()) == nullptr) {
      return core::NotFound("no such application in this tenant", "APPLICATION_NOT_FOUND");
    }
  }
  return Decide(s, command, ctx);
}

core::Status EndpointDecider::Evolve(EndpointState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(EndpointEvent event, DecodeEndpointEvent(e));
  if (const auto* c = std::get_if<EndpointCreated>(&event)) {
    s.exists = true;
    s.environment = c->environment;
    s.url = c->url;
    s.description = c->description;
    s.application_id = c->application_id;
    s.events = c->events;
    s.secret_sealed = c->secret_sealed;
    s.public_key = c->public_key;
    s.active = true;
  } else if (const auto* u = std::get_if<EndpointUpdated>(&event)) {
    const core::Json& ch = u->changes;
    if (ch.contains("url") && ch["url"].is_string()) s.url = ch["url"].get<std::string>();
    if (ch.contains("description")) s.description = ch["description"];
    if (ch.contains("applicationId")) s.application_id = ch["applicationId"];
    if (ch.contains("events")) s.events = ch["events"];
    if (ch.contains("isActive") && ch["isActive"].is_boolean()) s.active = ch["isActive"].get<bool>();
  } else if (const auto* r = std::get_if<SecretRotated>(&event)) {
    s.previous_secret_sealed = r->previous_secret_sealed;
    s.previous_valid_until_micros = r->previous_valid_until_micros;
    s.secret_sealed = r->secret_sealed;
    s.public_key = r->public_key;
    ++s.rotations;
  }
  return core::Status::Ok();
}

}  // namespace svc::commands::webhooks
