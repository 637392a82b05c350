#include "projections/webhooks_projector.h"

#include "commands/webhooks/endpoint_events.h"
#include "core/clock.h"
#include "core/json.h"

namespace svc::projections {

namespace wh = commands::webhooks;

core::Status WebhooksProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type != wh::kEndpointAggregate) return core::Status::Ok();
  core::Json j = core::ParseJsonOrDiscarded(env.data);
  if (!j.is_object()) return core::DataLoss("webhook endpoint event data is not an object");
  const std::string base = env.tenant_id + "/" + env.environment + "/" + env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  const std::string ep_key = "ep/" + base, sec_key = "sec/" + base;
  if (env.type == wh::kEndpointCreated) {
    core::Json row = {{"id", env.aggregate_id},
                      {"applicationId", j.value("applicationId", core::Json())},
                      {"createdAt", at},
                      {"description", j.value("description", core::Json())},
                      {"environment", j.value("environment", "")},
                      {"events", j.value("events", core::Json())},
                      {"isActive", true},
                      {"updatedAt", at},
                      {"url", j.value("url", "")}};
    view.Put(ep_key, core::DumpJson(row));
    view.Put(sec_key, core::DumpJson({{"secretSealed", j.value("secretSealed", "")},
                                      {"previousSecretSealed", ""},
                                      {"previousValidUntilMicros", 0}}));
    std::string idx = "idx/" + env.tenant_id + "/" + env.environment + "/";
    eventstore::PutFixed64BE(idx, static_cast<uint64_t>(INT64_MAX - env.occurred_at.micros));
    view.Put(idx + env.aggregate_id, "");
    return core::Status::Ok();
  }
  SVC_ASSIGN_OR_RETURN(auto stored, view.Get(ep_key));
  if (!stored.has_value()) return core::DataLoss("webhook endpoint event without its row: " + base);
  core::Json row = core::ParseJsonOrDiscarded(*stored);
  if (env.type == wh::kEndpointUpdated) {
    core::Json c = j.value("changes", core::Json::object());
    for (const auto& [from, to] : {std::pair<const char*, const char*>{"url", "url"},
                                   {"description", "description"},
                                   {"applicationId", "applicationId"},
                                   {"events", "events"},
                                   {"isActive", "isActive"}}) {
      if (c.contains(from)) row[to] = c[from];
    }
  } else if (env.type == wh::kSecretRotated) {
    view.Put(sec_key, core::DumpJson({{"secretSealed", j.value("secretSealed", "")},
                                      {"previousSecretSealed", j.value("previousSecretSealed", "")},
                                      {"previousValidUntilMicros",
                                       j.value("previousValidUntilMicros", int64_t{0})}}));
  }
  row["updatedAt"] = at;
  view.Put(ep_key, core::DumpJson(row));
  return core::Status::Ok();
}

}  // namespace svc::projections
