#pragma once
// The status machine of a verification session (docs/verification-sessions.md, "States"), in
// one place: the decider evolves its state with it, the sessions projector writes the record with
// it, the pipeline previews the record a verdict leaves, and the routes check an upload against
// the read model with the same rules before any blob is written.
//
//   pending --consent(accepted)--> in_progress --submit--> in_progress (step processing)
//   pending --consent(refused)--> abandoned
//   in_progress (processing) --verdict--> approved | declined | review | awaiting_input
//   awaiting_input --submit--> in_progress (processing)
//   pending | in_progress | awaiting_input --expiry--> expired   (not while processing)

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/verification/session_events.h"
#include "core/status.h"

namespace svc::commands::verification {

// Where an event leaves a session.
struct SessionPhase {
  std::string_view status;
  std::string_view current_step;  // "" = none (null in the record)
  bool starts = false;            // stamps startedAt
  bool completes = false;         // stamps completedAt
  bool decides = false;           // stamps decidedAt
};

// nullopt when the event does not move the session (captures, challenges, stages).
std::optional<SessionPhase> PhaseAfter(const SessionEvent& event);
// The phase a verdict with this outcome leads to (approved, declined, review, else
// awaiting_input).
SessionPhase PhaseAfterVerdict(std::string_view outcome);

// The captures a "more information" verdict asks for again, from its reason codes, the engine's or
// a reviewer's (DOCUMENT_FRONT_REQUIRED → document_front, DOCUMENT_BACK_REQUIRED → document_back,
// SELFIE_REQUIRED and SELFIE_UNUSABLE → selfie, LIVENESS_VIDEO_REQUIRED → liveness_video;
// DOCUMENT_UNREADABLE and DOCUMENT_SIDE_MISSING → both sides), in that order; empty when none is
// named (the page then asks for every capture).
std::vector<std::string> RequestedCaptures(const std::vector<std::string>& reason_codes);

// Every status a session can have, in the order the documents list them (the list filter and
// the OpenAPI enum).
const std::vector<std::string>& SessionStatuses();
// Captures and submits are possible (given consent and no running pipeline).
bool IsOpenStatus(std::string_view status);
// Nothing moves the session any more.
bool IsTerminalStatus(std::string_view status);

// The facts the capture rules need, which both the aggregate's state and the record have.
struct SessionFacts {
  std::string_view status;
  bool processing = false;   // a submission's pipeline is running
  bool past_expiry = false;  // now >= expiresAt
};
// Not expired (SESSION_EXPIRED: expired, or open, idle and past its expiry) and not completed
// (SESSION_COMPLETED).
core::Status CheckLive(const SessionFacts& s);
// Captures and liveness challenges: consent given (CONSENT_REQUIRED) and no submission running
// or in review (INVALID_STATE_TRANSITION).
core::Status CheckCaptureOpen(const SessionFacts& s);

}  // namespace svc::commands::verification
