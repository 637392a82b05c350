#pragma once
// What the review routes share (review_api.cc, case_detail.cc, console.cc): the caller as a case
// actor, the case of the path, and the note seal.

#include <optional>
#include <string>

#include "api/http/route.h"
#include "api/http/runtime.h"
#include "commands/review/case_events.h"
#include "core/json.h"

namespace svc::api::review {

std::string TeOf(const AuthContext& a);
// The caller as the case log names it: a reviewer signed in to the console ("user", usr_…) or an
// API key ("api_key", key_…: an integration acting on the queue).
commands::review::CaseActor ActorOf(const AuthContext& a);
// True when someone (a user or a key) holds the case row.
bool CaseHeld(const core::Json& row);
// True for the statuses of a finished case (resolved, closed).
bool CaseFinished(std::string_view status);
// True when the case row names the caller as its holder.
bool HeldByCaller(const core::Json& row, const AuthContext& a);
// A supervisor signed in to the console (a user of role supervisor): sees the captures of any
// case, reassigns any case, reads the team's workload.
bool CallerIsSupervisor(Runtime& rt, const AuthContext& a);
// A supervisor, or an API key (an integration acting on the queue, with its scopes): may act on
// cases others hold and read the team's workload.
bool CallerSupervises(Runtime& rt, const AuthContext& a);
// The case of the path in the caller's tenant and environment, or nullopt once answered (400
// INVALID_ID, 404 CASE_NOT_FOUND).
std::optional<core::Json> PathCase(Runtime& rt, ApiCall& call, const Respond& respond);

}  // namespace svc::api::review
