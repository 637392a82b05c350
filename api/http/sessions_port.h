#pragma once
// What another area needs of the sessions area, lent by the composition root through
// ApiContext::sessions (an area never includes another: scripts/layers). The embedded
// channel (api/embedded/) creates verification sessions the way the API channel does, and reads
// their evidence for verify. The sessions area fills it (api/sessions/routes.h: SessionsPort()).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/http/http.h"
#include "api/http/route.h"
#include "api/http/runtime.h"
#include "commands/verification/session_events.h"
#include "core/json.h"
#include "pipeline/verification/policy.h"

namespace svc::api {

struct ApiContext;

// A session create body checked and turned into its creation event: the id minted, the flow
// resolved (docs/embedded.md#flows).
struct PreparedSession {
  std::string id;  // vrf_…
  commands::verification::SessionCreated created;
  std::vector<std::string> flow_steps;  // the flow's step types in order (none: no flow)
};

struct SessionsPort {
  // Checks `body` as a session create (its fields, references and flow) for the caller; on a
  // refusal answers `respond` with the problem and returns nullopt.
  std::function<std::optional<PreparedSession>(Runtime&, const ApiContext&, ApiCall&, const core::Json& body,
                                               const Respond&)>
      prepare;
  // What the evidence is built from: the session of the caller's tenant and environment
  // (SESSION_NOT_FOUND otherwise).
  std::function<core::Result<pipeline::verification::ReportInputs>(Runtime&, const ApiCall&, const std::string& id)>
      report_inputs;
};

}  // namespace svc::api
