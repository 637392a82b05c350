#include "commands/webhooks/endpoint_decider.h"

namespace svc::commands::webhooks {

namespace {

NewEvent Make(std::string_view type, const core::Json& data) {
  return NewEvent{std::string(type), 1, core::DumpJson(data)};
}

}  // namespace

core::Result<Decision> EndpointDecider::Decide(const EndpointState& s, const EndpointCommand& command,
                                               const CommandContext& ctx) {
  Decision d;
  if (const auto* c = std::get_if<CreateEndpoint>(&command)) {
    if (s.exists) return core::AlreadyExists("the endpoint exists", "CONFLICT");
    d.events.push_back(Make(kEndpointCreated, {{"environment", c->environment},
                                               {"url", c->url},
                                               {"description", c->description},
                                               {"applicationId", c->application_id},
                                               {"events", c->events},
                                               {"secretSealed", c->secret_sealed}}));
    return d;
  }
  if (!s.exists || s.environment != ctx.environment) {
    return core::NotFound("no such webhook endpoint", "WEBHOOK_NOT_FOUND");
  }
  if (const auto* u = std::get_if<UpdateEndpoint>(&command)) {
    // Only real changes become an event (a PATCH that changes nothing appends nothing).
    core::Json changes = core::Json::object();
    auto differs = [&](const char* key, const core::Json& now) {
      auto it = u->changes.find(key);
      if (it != u->changes.end() && *it != now) changes[key] = *it;
    };
    differs("url", s.url);
    differs("description", s.description);
    differs("applicationId", s.application_id);
    differs("events", s.events);
    differs("isActive", s.active);
    if (!changes.empty()) {
      d.events.push_back(Make(kEndpointUpdated, {{"changes", changes}, {"reason", u->reason}}));
    }
    return d;
  }
  const auto& r = std::get<RotateSecret>(command);
  d.events.push_back(Make(kSecretRotated,
                          {{"secretSealed", r.secret_sealed},
                           {"previousSecretSealed", s.secret_sealed},
                           {"previousValidUntilMicros", ctx.now.micros + kRotationOverlapMicros}}));
  return d;
}

core::Status EndpointDecider::Evolve(EndpointState& s, const eventstore::EventEnvelope& e) {
  core::Json j = core::ParseJsonOrDiscarded(e.data);
  if (!j.is_object()) return core::DataLoss("webhook endpoint event data is not an object");
  if (e.type == kEndpointCreated) {
    s.exists = true;
    s.environment = j.value("environment", "");
    s.url = j.value("url", "");
    s.description = j.value("description", core::Json());
    s.application_id = j.value("applicationId", core::Json());
    s.events = j.value("events", core::Json());
    s.secret_sealed = j.value("secretSealed", "");
    s.active = true;
  } else if (e.type == kEndpointUpdated) {
    core::Json c = j.value("changes", core::Json::object());
    if (c.contains("url")) s.url = c["url"].get<std::string>();
    if (c.contains("description")) s.description = c["description"];
    if (c.contains("applicationId")) s.application_id = c["applicationId"];
    if (c.contains("events")) s.events = c["events"];
    if (c.contains("isActive")) s.active = c["isActive"].get<bool>();
  } else if (e.type == kSecretRotated) {
    s.previous_secret_sealed = j.value("previousSecretSealed", "");
    s.previous_valid_until_micros = j.value("previousValidUntilMicros", int64_t{0});
    s.secret_sealed = j.value("secretSealed", "");
    ++s.rotations;
  }
  return core::Status::Ok();
}

core::Json EndpointDecider::ToJson(const EndpointState& s) {
  return {{"exists", s.exists},           {"environment", s.environment},
          {"url", s.url},                 {"description", s.description},
          {"applicationId", s.application_id}, {"events", s.events},
          {"active", s.active},           {"secretSealed", s.secret_sealed},
          {"previousSecretSealed", s.previous_secret_sealed},
          {"previousValidUntil", s.previous_valid_until_micros},
          {"rotations", s.rotations}};
}

core::Result<EndpointState> EndpointDecider::FromJson(std::string_view text) {
  core::Json j = core::ParseJsonOrDiscarded(text);
  if (!j.is_object()) return core::DataLoss("webhook endpoint state is not a JSON object");
  EndpointState s;
  s.exists = j.value("exists", false);
  s.environment = j.value("environment", "");
  s.url = j.value("url", "");
  s.description = j.value("description", core::Json());
  s.application_id = j.value("applicationId", core::Json());
  s.events = j.value("events", core::Json());
  s.active = j.value("active", true);
  s.secret_sealed = j.value("secretSealed", "");
  s.previous_secret_sealed = j.value("previousSecretSealed", "");
  s.previous_valid_until_micros = j.value("previousValidUntil", int64_t{0});
  s.rotations = j.value("rotations", 0);
  return s;
}

}  // namespace svc::commands::webhooks
