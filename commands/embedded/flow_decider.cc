#include "commands/embedded/flow_decider.h"

#include "commands/embedded/flow_graph.h"
#include "commands/event_codec.h"
#include "core/canonical_json.h"
#include "core/crypto.h"

namespace svc::commands::embedded {

bool ValidFlowKey(std::string_view key) {
  if (key.empty() || key.size() > 64) return false;
  auto ok = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (!first && (c == '_' || c == '-'));
  };
  for (size_t i = 0; i < key.size(); ++i) {
    if (!ok(key[i], i == 0)) return false;
  }
  return true;
}

std::string FlowIdFor(std::string_view tenant_id, std::string_view key) {
  std::string material = "svc/flow-id/v1";
  material.push_back('\0');
  material.append(tenant_id);
  material.push_back('\0');
  material.append(key);
  return "flw_" + core::Sha256Hex(material).substr(0, 32);
}

core::Result<Decision> FlowDecider::Decide(const FlowState& s, const FlowCommand& command, const CommandContext&) {
  Decision d;
  if (const auto* c = std::get_if<CreateFlow>(&command)) {
    if (s.exists) return core::AlreadyExists("a flow with this key exists", "FLOW_KEY_TAKEN");
    if (!ValidFlowKey(c->created.key)) {
      return core::InvalidArgument("key is 1-64 of a-z, 0-9, _ and -, from a letter or digit", "VALIDATION_ERROR");
    }
    d.events.push_back(NewEventOf(FlowEvent(c->created)));
    d.result = {{"status", "draft"}, {"version", 0}};
    return d;
  }
  if (!s.exists) return core::NotFound("no such flow", "FLOW_NOT_FOUND");
  if (std::holds_alternative<ArchiveFlow>(command)) {
    if (s.status != "archived") d.events.push_back(NewEventOf(FlowEvent(FlowArchived{})));
    d.result = {{"status", "archived"}, {"version", s.version}};
    return d;
  }
  if (s.status == "archived") return core::FailedPrecondition("the flow is archived", "FLOW_NOT_PUBLISHABLE");
  if (const auto* u = std::get_if<UpdateFlowDraft>(&command)) {
    d.events.push_back(NewEventOf(FlowEvent(FlowDraftUpdated{u->definition})));
    d.result = {{"status", s.status}, {"version", s.version}};
    return d;
  }
  // Publish: the draft as it stands, when it validates.
  auto issues = ValidateFlow(s.draft);
  if (!issues.empty()) {
    core::Status st = core::InvalidArgument(
        "the flow does not validate: " + std::to_string(issues.size()) + " issue(s), the first: " + issues[0].message,
        "FLOW_VALIDATION_FAILED");
    st.WithJsonExtension("issues", core::DumpJson(IssuesJson(issues)));
    return st;
  }
  SVC_ASSIGN_OR_RETURN(std::string canonical, core::CanonicalJson(s.draft));
  const std::string hash = core::Sha256Hex(canonical);
  if (s.status == "published" && hash == s.published_hash) {  // nothing changed since: the same version
    d.result = {{"status", "published"}, {"version", s.version}};
    return d;
  }
  d.events.push_back(NewEventOf(FlowEvent(FlowPublished{s.version + 1, s.draft, hash})));
  d.result = {{"status", "published"}, {"version", s.version + 1}};
  return d;
}

core::Status FlowDecider::Evolve(FlowState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(FlowEvent ev, DecodeFlow(e));
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, FlowCreated>) {
          s.exists = true;
          s.status = "draft";
          s.key = x.key;
          s.draft = x.definition;
        } else if constexpr (std::is_same_v<T, FlowDraftUpdated>) {
          s.draft = x.definition;
        } else if constexpr (std::is_same_v<T, FlowPublished>) {
          s.status = "published";
          s.version = x.version;
          s.published_hash = x.definition_hash;
        } else {
          s.status = "archived";
        }
      },
      ev);
  return core::Status::Ok();
}


}  // namespace svc::commands::embedded
