#pragma once
// The status machine of a review case (docs/review.md), in one place: the case decider evolves
// its state with it and the review projector writes the queue's rows with it.
//
//   open | escalated --claim, reassign--> in_progress
//   in_progress --release, a first approval of two--> open (escalated once escalated)
//   any unfinished --escalate--> escalated
//   in_progress --resolve--> resolved (closed for request_more_info)
// A note moves nothing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/review/case_events.h"

namespace svc::commands::review {

// The status `event` leaves a case in, given its escalation level before the event; nullopt when
// the event does not move the status (a note).
std::optional<std::string_view> CaseStatusAfter(const CaseEvent& event, int64_t escalation_level);

// Every status, in the order of the machine (the API's enum, the queue's filter).
inline std::vector<std::string> CaseStatuses() { return {"open", "in_progress", "escalated", "resolved", "closed"}; }

// A case no resolution can change any more.
inline bool IsFinishedCaseStatus(std::string_view status) { return status == "resolved" || status == "closed"; }

}  // namespace svc::commands::review
