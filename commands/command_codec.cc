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
