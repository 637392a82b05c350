#pragma once
// A reviewer's resolution of a case as a use case, HTTP-free (docs/review.md#resolve): the note
// sealed under the session's key, the resolution recorded by the case (whose decider decides the
// double approval), and, for a final outcome, the session moved by the outcome writer — the one
// writer of that step — at once, so that the answer shows it moved. Also the case notes' sealing.

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "commands/command.h"
#include "commands/review/case_decider.h"
#include "commands/writer.h"
#include "core/executor.h"
#include "core/status.h"
#include "eventstore/key_store.h"
#include "pipeline/review/outcome_writer.h"
#include "projections/runner.h"

namespace svc::pipeline::review {

// The additional data a case note is sealed with (the case it belongs to).
std::string NoteAad(std::string_view case_id);
// `note` sealed under the key of the case's session (base64): CASE_HAS_NO_SESSION for a case
// without one, CASE_CLOSED once the session's data was erased. "" for an empty note.
core::Result<std::string> SealCaseNote(eventstore::KeyStore& keys, std::string_view tenant,
                                       std::string_view environment, std::string_view case_id,
                                       std::string_view session_id, std::string_view note);

struct ResolutionDeps {
  commands::Writer* writer = nullptr;
  projections::ProjectionSet* projections = nullptr;
  OutcomeWriter* outcomes = nullptr;  // null: the outcome writer's loop moves the session later
  core::ThreadPool* work_pool = nullptr;  // Settle blocks: it runs here
  std::chrono::milliseconds wait_for_views{5000};  // for the review read model to list the move
};

// Records `cmd` (its note already sealed) on the case; when the resolution is final, waits for the
// review read model to list the move and has the outcome writer make it (a failure there is left
// to its loop, which retries). `done` gets the case command's outcome (its result: outcome,
// awaitingSecondApproval) or its refusal.
void ResolveCase(const ResolutionDeps& deps, std::string environment, std::string case_id,
                 commands::review::ResolveCase cmd, commands::CommandContext ctx,
                 std::function<void(core::Result<commands::CommandOutcome>)> done);

}  // namespace svc::pipeline::review
