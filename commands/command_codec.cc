#include "commands/command_codec.h"

#include "commands/claims/claim_decider.h"
#include "core/error_catalogue.h"

namespace svc::commands {

namespace {

core::Json EncodeContext(const CommandContext& c) {
  return {{"now", c.now.micros},
          {"actor", {{"type", c.actor.type}, {"id", c.actor.id}}},
          {"environment", c.environment},
          {"requestId", c.request_id},
          {"correlationId", c.correlation_id},
          {"causationId", c.causation_id},
          {"idempotencyKey", c.idempotency_key},
          {"requestFingerprint", c.request_fingerprint}};
}

CommandContext DecodeContext(const core::Json& j, core::IdSource* ids) {
  CommandContext c;
  c.now = core::Timestamp{j.value("now", int64_t{0})};
  c.ids = ids;
  const core::Json actor = j.value("actor", core::Json::object());
  c.actor = {core::StringOr(actor, "type"), core::StringOr(actor, "id")};
  c.environment = core::StringOr(j, "environment");
  c.request_id = core::StringOr(j, "requestId");
  c.correlation_id = core::StringOr(j, "correlationId");
  c.causation_id = core::StringOr(j, "causationId");
  c.idempotency_key = core::StringOr(j, "idempotencyKey");
  c.request_fingerprint = core::StringOr(j, "requestFingerprint");
  return c;
}

}  // namespace

core::Result<core::Json> EncodeCommand(const Command& c) {
  if (!c.encode) return core::FailedPrecondition("a " + c.aggregate_type + " command without its data");
  const bool claims = c.required_claims.is_array() && !c.required_claims.empty();
  core::Json out = {{"tenantId", c.tenant_id},
                    {"aggregateType", c.aggregate_type},
                    {"aggregateId", c.aggregate_id},
                    {"freshId", c.fresh_id},
                    {"context", EncodeContext(c.context)},
                    // RequireClaims turns a plain command into a reading one: the base is plain.
                    {"reading", !claims && static_cast<bool>(c.decide_reading)},
                    {"command", c.encode()}};
  if (claims) out["requiredClaims"] = c.required_claims;
  return out;
}

core::Result<Command> DecodeCommand(const core::Json& wire, const AggregateTypes& types, core::IdSource* ids) {
  if (!wire.is_object() || !wire.contains("command") || !wire.contains("context")) {
    return core::InvalidArgument("not a command");
  }
  const std::string type_name = core::StringOr(wire, "aggregateType");
  const AggregateType* type = types(type_name);
  if (type == nullptr) return core::InvalidArgument("no aggregate type " + type_name);
  SVC_ASSIGN_OR_RETURN(Command c, type->DecodeCommand(core::StringOr(wire, "tenantId"), core::StringOr(wire, "aggregateId"),
                                                     wire["command"], wire.value("reading", false),
                                                     DecodeContext(wire["context"], ids)));
  c.fresh_id = wire.value("freshId", false);
  const core::Json claims = wire.value("requiredClaims", core::Json());
  if (claims.is_array() && !claims.empty()) {
    std::vector<claims::RequiredClaim> required;
    for (const auto& r : claims) {
      if (!r.is_object()) return core::InvalidArgument("a required claim is not an object");
      const core::ErrorCodeInfo* code = core::FindErrorCode(core::StringOr(r, "conflictCode"));
      required.push_back({core::StringOr(r, "claimId"), code != nullptr ? code->code : std::string_view(),
                          core::StringOr(r, "conflictMember")});
    }
    claims::RequireClaims(c, std::move(required));
  }
  return c;
}

}  // namespace svc::commands

namespace svc::commands {

core::Json EncodeReply(const core::Result<CommandOutcome>& reply) {
  if (reply.ok()) {
    const CommandOutcome& o = *reply;
    core::Json positions = core::Json::array();
    for (const auto& p : o.positions) positions.push_back(core::Json::array({p.partition, p.offset}));
    return {{"ok", true},
            {"aggregateId", o.aggregate_id},
            {"aggregateVersion", o.aggregate_version},
            {"positions", std::move(positions)},
            {"result", o.result},
            {"replayed", o.replayed}};
  }
  const core::Status& st = reply.status();
  core::Json ext = core::Json::array(), json_ext = core::Json::array();
  for (const auto& [k, v] : st.extensions()) ext.push_back(core::Json::array({k, v}));
  for (const auto& [k, v] : st.json_extensions()) json_ext.push_back(core::Json::array({k, v}));
  return {{"ok", false},
          {"code", static_cast<int>(st.code())},
          {"apiCode", std::string(st.api_code())},
          {"message", st.message()},
          {"extensions", std::move(ext)},
          {"jsonExtensions", std::move(json_ext)}};
}

core::Result<core::Result<CommandOutcome>> DecodeReply(const core::Json& wire) {
  if (!wire.is_object() || !wire.contains("ok") || !wire["ok"].is_boolean()) return core::InvalidArgument("not a reply");
  if (wire["ok"].get<bool>()) {
    CommandOutcome o;
    o.aggregate_id = core::StringOr(wire, "aggregateId");
    o.aggregate_version = wire.value("aggregateVersion", int64_t{0});
    o.result = wire.contains("result") ? wire["result"] : core::Json();
    o.replayed = wire.value("replayed", false);
    for (const auto& p : wire.value("positions", core::Json::array())) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() || !p[1].is_number_unsigned()) {
        return core::InvalidArgument("a reply's position is not [partition, offset]");
      }
      o.positions.push_back({p[0].get<uint32_t>(), p[1].get<uint64_t>()});
    }
    return core::Result<CommandOutcome>(std::move(o));
  }
  const int code = wire.value("code", static_cast<int>(core::StatusCode::kInternal));
  if (code <= 0 || code > static_cast<int>(core::StatusCode::kCancelled)) return core::InvalidArgument("a reply's code is unknown");
  std::string_view api_code;
  if (const std::string c = core::StringOr(wire, "apiCode"); !c.empty()) {
    const core::ErrorCodeInfo* info = core::FindErrorCode(c);
    if (info == nullptr) return core::InvalidArgument("a reply's apiCode is not in the catalogue");
    api_code = info->code;
  }
  core::Status st(static_cast<core::StatusCode>(code), core::StringOr(wire, "message"), api_code);
  for (const auto& e : wire.value("extensions", core::Json::array())) {
    if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) st.WithExtension(e[0], e[1]);
  }
  for (const auto& e : wire.value("jsonExtensions", core::Json::array())) {
    if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) st.WithJsonExtension(e[0], e[1]);
  }
  return core::Result<CommandOutcome>(std::move(st));
}

}  // namespace svc::commands
