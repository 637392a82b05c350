#pragma once
// The catalogue of a reviewer's decision reasons (docs/review.md#decision-reasons): the codes a
// resolution may carry, per action, each with its label in es-MX and English for the console and
// for the integrator's report. A resolution without codes records the action's generic code
// (REVIEW_APPROVED, …), never the engine's codes: the engine's reasons stay on the engine's
// decision, the reviewer's on the reviewer's.
//
// An override of the engine needs a note: approving a case the engine opened for a signal against
// the applicant (a high or critical priority code: FACE_MISMATCH, GOV_CURP_DECEASED, …), or
// declining one it opened only because a source was unavailable (low priority).

#include <string>
#include <string_view>
#include <vector>

namespace svc::commands::review {

struct ReasonCode {
  std::string_view code;
  std::string_view action;  // approve | decline | request_more_info | escalate
  std::string_view label_es;
  std::string_view label_en;
  // request_more_info: the capture the code asks to take again (document_front, …); "" for none.
  std::string_view capture = {};
};

const std::vector<ReasonCode>& ReasonCatalogue();
// The code's entry for `action`, or null when the catalogue has no such code for it.
const ReasonCode* FindReason(std::string_view action, std::string_view code);
// The code recorded when a resolution of `action` names none.
std::string_view DefaultReason(std::string_view action);
// How the engine leaned when it opened the case, from the priority its reasons gave it:
// "against" (high, critical), "for" (low) or "neutral" (medium).
std::string_view EngineLean(std::string_view opening_priority);
// True when resolving with `action` goes against the engine's lean (a note is then required).
bool IsOverride(std::string_view lean, std::string_view action);

}  // namespace svc::commands::review
