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

}  // namespace svc::pipeline::kyb
