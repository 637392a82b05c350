#pragma once
// The ARCO requests' use cases below the edge (docs/persons.md#arco-requests): a request opened for
// a person of the vault, and an opposition to a purpose (the person's consents for it revoked in
// the same decision). HTTP-free; the routes parse, call one of these, and render.

#include <string>
#include <vector>

#include "commands/command.h"
#include "commands/persons/arco_request.h"
#include "core/status.h"
#include "eventstore/kv_store.h"
#include "pipeline/persons/person_writes.h"

namespace svc::pipeline::persons {

struct ArcoOpening {
  std::string right;
  std::string requester;  // subject | representative
  std::string identity_method;
  std::string identity_reference;
  std::string reference;
  std::vector<std::string> purposes;  // opposition
  int64_t received_micros = 0;        // 0: now
  // A company member or owner instead of a person (docs/kyb.md#erasure): subject_type
  // company_member or ubo_node, the company and the member's or node's id; who.person is then "".
  std::string subject_type = "person";
  std::string company_id;
  std::string subject_id;
};

// The command opening request `arco_id` of person `who.person`, who must be a person of the
// tenant and environment (PERSON_NOT_FOUND; erased persons too: their data is gone, a request
// about it is answered outside the vault). Purposes must be the catalogue's (PURPOSE_UNKNOWN); an
// opposition names at least one. A company member's or owner's request: the company
// (COMPANY_NOT_FOUND) must hold the member (COMPANY_MEMBER_NOT_FOUND) or node (UBO_NODE_NOT_FOUND),
// and the right is cancellation (VALIDATION_ERROR: the vault's other operations serve persons).
core::Result<commands::Command> OpenArcoCommand(const eventstore::KvStore& views, const PersonRef& who,
                                                const std::string& arco_id, ArcoOpening opening,
                                                const commands::persons::ArcoCalendar& calendar,
                                                commands::CommandContext ctx);

// The command recording person `who.person`'s opposition to `purpose` (a catalogue purpose, not
// `arco_request`: a subject's own requests are served whatever they oppose), with the ids of the
// consents for it the read model shows in force, which the decision revokes.
core::Result<commands::Command> OppositionCommand(const eventstore::KvStore& views, const PersonRef& who,
                                                  commands::persons::OppositionRecorded opposition,
                                                  commands::CommandContext ctx);

}  // namespace svc::pipeline::persons
