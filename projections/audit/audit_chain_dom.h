#pragma once
// ReadLink from simdjson's DOM, for verifiers that parse many entries at once (an export).

#include <simdjson.h>

#include "projections/audit/audit_chain.h"

namespace svc::projections {

ChainLink ReadLink(simdjson::dom::element entry);

}  // namespace svc::projections
