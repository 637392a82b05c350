#include "projections/embedded/embedded_projector.h"

#include "commands/embedded/flow_events.h"
#include "commands/embedded/flow_graph.h"
#include "commands/verification/session_events.h"
#include "core/clock.h"
#include "core/json.h"

namespace svc::projections {

namespace ce = commands::embedded;
namespace vs = commands::verification;
using EmV = EmbeddedView;

namespace {

core::Status ApplyFlow(const eventstore::EventEnvelope& env, ViewWriter& view) {
  SVC_ASSIGN_OR_RETURN(ce::FlowEvent ev, ce::DecodeFlow(env));
  const std::string at = core::FormatRfc3339(env.occurred_at);
  const std::string key = EmV::Flow(env.tenant_id, env.aggregate_id);
  core::Json row;
  if (!std::holds_alternative<ce::FlowCreated>(ev)) {
    SVC_ASSIGN_OR_RETURN(auto text, view.Get(key));
    if (!text.has_value()) return core::DataLoss("a change of an unknown flow");
    row = core::ParseJsonOrDiscarded(*text);
  }
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, ce::FlowCreated>) {
          row = {{"id", env.aggregate_id}, {"object", "flow"},      {"tenantId", env.tenant_id},
                 {"key", e.key},           {"name", e.name},         {"status", "draft"},
                 {"version", 0},           {"draft", e.definition},  {"definitionHash", nullptr},
                 {"createdAt", at},        {"updatedAt", at},        {"publishedAt", nullptr},
                 {"archivedAt", nullptr}};
        } else if constexpr (std::is_same_v<T, ce::FlowDraftUpdated>) {
          row["draft"] = e.definition;
        } else if constexpr (std::is_same_v<T, ce::FlowPublished>) {
          row["status"] = "published";
          row["version"] = e.version;
          row["definitionHash"] = e.definition_hash;
          row["publishedAt"] = at;
          view.Put(EmV::FlowVersion(env.tenant_id, env.aggregate_id, e.version),
                   core::DumpJson({{"flowId", env.aggregate_id},
                                   {"key", row.value("key", "")},
                                   {"version", e.version},
                                   {"definition", e.definition},
                                   {"definitionHash", e.definition_hash},
                                   {"publishedAt", at}}));
        } else {
          row["status"] = "archived";
          row["archivedAt"] = at;
        }
      },
      ev);
  row["updatedAt"] = at;
  view.Put(key, core::DumpJson(row));
  return core::Status::Ok();
}

core::Status ApplySession(const eventstore::EventEnvelope& env, ViewWriter& view) {
  if (env.type != vs::EmbeddedOpened::kType && env.type != vs::EmbeddedMounted::kType &&
      env.type != vs::LinkOpened::kType && env.type != vs::SessionCreated::kType &&
      env.type != vs::HandoffIssued::kType) {
    return core::Status::Ok();
  }
  SVC_ASSIGN_OR_RETURN(vs::SessionEvent ev, vs::Decode(env));
  const std::string at = core::FormatRfc3339(env.occurred_at);
  if (const auto* c = std::get_if<vs::SessionCreated>(&ev)) {
    if (c->link_token_hash.empty()) return core::Status::Ok();
    view.Put(EmV::Link(c->link_token_hash),
             core::DumpJson({{"tenantId", env.tenant_id},
                             {"environment", env.environment},
                             {"sessionId", env.aggregate_id},
                             {"locale", c->locale},
                             {"redirectUrl", c->redirect_url.empty() ? core::Json(nullptr) : core::Json(c->redirect_url)},
                             {"steps", ce::WidgetSteps(c->checks, c->flow_captures)},
                             {"livenessMode", c->checks.is_object() ? c->checks.value("livenessMode", "passive")
                                                                    : std::string("passive")},
                             {"livenessFileAllowed", c->checks.is_object() && c->checks.value("livenessFileAllowed", false) == true}}));
    view.Put(EmV::SessionLink(env.aggregate_id), c->link_token_hash);
    return core::Status::Ok();
  }
  if (const auto* h = std::get_if<vs::HandoffIssued>(&ev)) {
    // A handoff link walks what the session's page walks: the embedded session's steps, or the
    // link session's (its own link row), with when it expires.
    const std::string embedded_id = "ems_" + env.aggregate_id.substr(env.aggregate_id.find('_') + 1);
    core::Json row;
    SVC_ASSIGN_OR_RETURN(auto embedded, view.Get(EmV::Embedded(embedded_id)));
    if (embedded.has_value()) {
      const core::Json e = core::ParseJsonOrDiscarded(*embedded);
      row = {{"tenantId", env.tenant_id},
             {"environment", env.environment},
             {"sessionId", env.aggregate_id},
             {"locale", "es-MX"},
             {"redirectUrl", nullptr},
             {"steps", e.value("steps", core::Json::array())},
             {"livenessMode", e.value("livenessMode", "passive")},
             {"livenessFileAllowed", e.value("livenessFileAllowed", false)}};
    } else {
      // (The decider hands over only such sessions; one whose link was indexed before this row
      // existed opens nothing until `svc replay --projector embedded`.)
      SVC_ASSIGN_OR_RETURN(auto own, view.Get(EmV::SessionLink(env.aggregate_id)));
      if (!own.has_value()) return core::Status::Ok();
      SVC_ASSIGN_OR_RETURN(auto base, view.Get(EmV::Link(*own)));
      if (!base.has_value()) return core::Status::Ok();
      row = core::ParseJsonOrDiscarded(*base);
    }
    row["handoff"] = true;
    row["expiresAt"] = core::FormatRfc3339(core::Timestamp{h->expires_at_micros});
    view.Put(EmV::Link(h->link_token_hash), core::DumpJson(row));
    return core::Status::Ok();
  }
  if (const auto* l = std::get_if<vs::LinkOpened>(&ev)) {
    view.Put(EmV::ApplicantToken(l->applicant_token_hash), core::DumpJson({{"tenantId", env.tenant_id},
                                                                         {"environment", env.environment},
                                                                         {"sessionId", env.aggregate_id},
                                                                         {"embeddedSessionId", ""}}));
    return core::Status::Ok();
  }
  if (const auto* o = std::get_if<vs::EmbeddedOpened>(&ev)) {
    view.Put(EmV::Embedded(o->embedded_id), core::DumpJson({{"id", o->embedded_id},
                                                          {"tenantId", env.tenant_id},
                                                          {"environment", env.environment},
                                                          {"sessionId", env.aggregate_id},
                                                          {"allowedOrigins", o->allowed_origins},
                                                          {"openedBy", o->opened_by},
                                                          {"keyId", o->key_id},
                                                          {"steps", o->steps},
                                                          {"livenessMode", o->liveness_mode},
                                                          {"livenessFileAllowed", o->liveness_file == "allowed"},
                                                          {"createdAt", at},
                                                          {"mountedAt", nullptr},
                                                          {"parentOrigin", nullptr}}));
    return core::Status::Ok();
  }
  const auto& m = std::get<vs::EmbeddedMounted>(ev);
  const std::string embedded_id = "ems_" + env.aggregate_id.substr(env.aggregate_id.find('_') + 1);
  SVC_ASSIGN_OR_RETURN(auto text, view.Get(EmV::Embedded(embedded_id)));
  if (!text.has_value()) return core::DataLoss("a mount of an unknown embedded session");
  core::Json row = core::ParseJsonOrDiscarded(*text);
  row["mountedAt"] = at;
  row["parentOrigin"] = m.parent_origin;
  view.Put(EmV::Embedded(embedded_id), core::DumpJson(row));
  view.Put(EmV::ApplicantToken(m.applicant_token_hash), core::DumpJson({{"tenantId", env.tenant_id},
                                                                      {"environment", env.environment},
                                                                      {"sessionId", env.aggregate_id},
                                                                      {"embeddedSessionId", embedded_id}}));
  return core::Status::Ok();
}

}  // namespace

core::Status EmbeddedProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type == ce::kFlowAggregate) return ApplyFlow(env, view);
  if (env.aggregate_type == vs::kSessionAggregate) return ApplySession(env, view);
  return core::Status::Ok();
}

}  // namespace svc::projections
