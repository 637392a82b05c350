#pragma once
// A company's creation as a use case, HTTP-free (docs/kyb.md#companies): its names and RFC sealed
// under the KYB key, its RFC's blind index, and, when it has an RFC, the RFC's claim taken first —
// unique in the tenant and environment, decided in the log (docs/write-side.md#claims), kept by the
// company for good; a clash is RFC_CONFLICT naming the holder.

#include <functional>
#include <string>

#include "commands/command.h"
#include "commands/writer.h"
#include "core/status.h"
#include "eventstore/kv_store.h"
#include "pipeline/kyb/kyb_seal.h"

namespace svc::pipeline::kyb {

struct NewCompany {
  std::string tenant, environment, id;
  std::string legal_name, trade_name;  // trade_name "" = none
  std::string country;                 // ISO 3166-1 alpha-2
  std::string rfc;                     // normalised and checked; "" = none
  std::string rfc_kind;                // moral | fisica | ""
  std::string subject_kind;            // legal_entity | individual_business
};

// Creates `c` (the values sealed here); `done` gets the company command's outcome, or
// RFC_CONFLICT, or the company's refusal.
void CreateCompany(commands::Writer& writer, const KybKeys& keys, const NewCompany& c, commands::CommandContext ctx,
                   std::function<void(core::Result<commands::CommandOutcome>)> done);

// The erasure of a member's or ownership node's personal data (docs/kyb.md#erasure), as the read
// model shows the company: COMPANY_NOT_FOUND, COMPANY_MEMBER_NOT_FOUND / UBO_NODE_NOT_FOUND,
// CONFLICT for one whose name was sealed before per-record keys (under the KYB key: no
// cancellation may destroy it); with `arco_request_id`, the request must be an open cancellation
// of this subject (ARCO_REQUEST_NOT_FOUND, ARCO_INVALID_TRANSITION, CONFLICT). The decider decides
// again in the log; a repeat is a no-op.
struct SubjectErasure {
  std::string tenant, environment, company;
  std::string subject_type;  // member | ubo_node
  std::string subject_id;
  std::string reason;
  std::string arco_request_id;
};
core::Result<commands::Command> ForgetSubjectCommand(const eventstore::KvStore& views, const SubjectErasure& e,
                                                     commands::CommandContext ctx);

}  // namespace svc::pipeline::kyb
