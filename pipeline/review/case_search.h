#pragma once
// Finding review cases for a reviewer (GET /v1/review/search, the console's search box): by case
// id (cas_…), case number (CASE-000042), verification session (vrf_…), or the applicant's CURP,
// looked up through the vault's blind index (an HMAC under the tenant's index key: the CURP itself
// is never stored nor compared in the clear), or the clientReference the integrator gave the
// session (when nothing else matched). At most `limit` cases, newest first; an unreadable query
// matches nothing.

#include <string>
#include <string_view>

#include "core/json.h"
#include "core/mx_ids.h"
#include "core/status.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"

namespace svc::pipeline::review {

struct CaseSearch {
  std::string tenant, environment;
  std::string query;  // trimmed by the caller
  size_t limit = 20;
  core::mx::CivilDate today;  // a CURP's birth date must not be after it
};

// {matchedBy: case|caseNumber|session|curp|clientReference|null, data: [the cases' rows as the queue serves them]}.
core::Result<core::Json> SearchCases(const eventstore::KvStore& views, eventstore::KeyStore& keys, const CaseSearch& s);

}  // namespace svc::pipeline::review
