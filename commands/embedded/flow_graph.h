#pragma once
// A verification flow's definition and its publish rules (docs/embedded.md#flows, issue 19): the
// steps a person walks (a graph: each step names the next), the checks the pipeline runs and the
// decision policy. Pure: the flow aggregate validates before it publishes, and the routes run the
// same function to answer FLOW_VALIDATION_FAILED with the full `issues` list.
//
//   {"steps": [{"id": "consent", "type": "consent", "next": "front"},
//              {"id": "front", "type": "document_front", "next": "back"},
//              {"id": "back", "type": "document_back", "next": "selfie"},
//              {"id": "selfie", "type": "selfie", "next": "live"},
//              {"id": "live", "type": "liveness", "mode": "passive", "next": "submit"},
//              {"id": "submit", "type": "submit"}],
//    "checks": {"document": true, "faceMatch": true, "governmentLookup": true, "liveness": true,
//               "livenessMode": "passive", "amlScreening": false},
//    "policy": {"faceMatchThreshold": 0.8, "livenessThreshold": 0.75}}
//
// Step types: consent, document_front, document_back, selfie, liveness (mode passive | active;
// `allowFile: true`, passive only, lets the applicant choose a recording instead of the camera:
// the capture is then marked as a file for the attack signals and the session goes to a
// reviewer), submit. The graph has one start (the step no other names), is a path without cycles that
// reaches every step, starts with consent and ends with submit; document_back comes after
// document_front, and a selfie after document_front. Every check that is on needs the step that
// feeds it (document: document_front; faceMatch: document_front and selfie; liveness: a liveness
// step, active when livenessMode is active), and a capture step no check uses is refused too.
// efirma and proofOfAddress are checks of the spec this service does not run yet, and
// amlScreening is run by the screening routes, not inside a session: all three refused when on. The
// policy holds the decision policy's thresholds (faceMatchThreshold, livenessThreshold,
// imageQualityThreshold: 0..1) and requireGovernmentLookup, as a session's policy override does.

#include <string>
#include <vector>

#include "core/json.h"

namespace svc::commands::embedded {

struct FlowIssue {
  std::string code;     // e.g. step_type_unknown, graph_cycle, check_needs_step
  std::string path;     // JSON pointer into the definition
  std::string message;  // for a person
  bool operator==(const FlowIssue&) const = default;
};

// Every problem of `definition` (empty: publishable).
std::vector<FlowIssue> ValidateFlow(const core::Json& definition);

// The steps in walking order (from the start, following `next`); empty when the graph is invalid.
std::vector<std::string> StepTypesInOrder(const core::Json& definition);

core::Json IssuesJson(const std::vector<FlowIssue>& issues);

// What a session of a published flow takes from it: the checks (every one named, on or off, and
// livenessMode; efirma only when on; livenessFileAllowed only when its liveness step allows a file), the policy, the capture kinds its steps have (media kinds: document_front,
// document_back, selfie, liveness_video) and the step types in order (for the widget).
struct FlowSessionSettings {
  core::Json checks;
  core::Json policy;
  std::vector<std::string> captures;
  std::vector<std::string> steps;
};
FlowSessionSettings SessionSettingsOf(const core::Json& definition);

// The steps the widget walks for a session: consent, its flow's capture steps (media kinds:
// liveness_video is the step `liveness`), or without a flow the steps its checks use, then `efirma`
// when the checks turn it on, then submit.
std::vector<std::string> WidgetSteps(const core::Json& checks, const std::vector<std::string>& flow_captures);

}  // namespace svc::commands::embedded
