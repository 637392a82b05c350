#pragma once
// A command as data, for a writer on another node (docs/decisions.md, issue 34: commands travel
// to the one writer of their partition). The wire form is one JSON object:
//
//   {"tenantId", "aggregateType", "aggregateId", "freshId",
//    "context": {"now" (µs), "actor": {"type", "id"}, "environment", "requestId", "correlationId",
//                "causationId", "idempotencyKey", "requestFingerprint"},
//    "reading": whether the decider reads other aggregates (MakeReadingCommand),
//    "command": {"name": the struct's kCommand, "data": its Fields()},
//    "requiredClaims": [{"claimId", "conflictCode", "conflictMember"}] (claims::RequireClaims)}
//
// The receiving node decodes it with its registered aggregate types and decides it exactly as the
// sender would have: the decision is a function of the state, the command and the context, and
// all three travel (the context's id source is the receiver's: ids a decision mints come back in
// its result). Nothing in it is personal data in the clear: commands carry sealed values and
// blind keys, as events do.

#include <functional>
#include <string_view>

#include "commands/command.h"
#include "core/json.h"
#include "core/status.h"

namespace svc::commands {

// FAILED_PRECONDITION for a command bound without its data (built by hand, not by MakeCommand).
core::Result<core::Json> EncodeCommand(const Command& command);

using AggregateTypes = std::function<const AggregateType*(std::string_view name)>;
// INVALID_ARGUMENT for a malformed form or an unknown aggregate type or command name.
core::Result<Command> DecodeCommand(const core::Json& wire, const AggregateTypes& types, core::IdSource* ids);

// A writer's answer as data, for the node that sent the command: the outcome
//   {"ok": true, "aggregateId", "aggregateVersion", "positions": [[partition, offset], ...], "result",
//    "replayed"}
// or the refusal, as the status it was (code, catalogue code, message, problem extensions)
//   {"ok": false, "code", "apiCode", "message", "extensions": [[name, value]], "jsonExtensions": [[name, json]]}
core::Json EncodeReply(const core::Result<CommandOutcome>& reply);
// INVALID_ARGUMENT for a malformed form (the sender answers it as the writer's failure).
core::Result<core::Result<CommandOutcome>> DecodeReply(const core::Json& wire);

}  // namespace svc::commands
