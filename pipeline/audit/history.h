#pragma once
// The signed history bundle (docs/audit.md, "History as of a moment"): a subject's replay as of T
// (projections/audit/as_of.h) with a C2SP signed note over the SHA-256 of the bundle's canonical
// JSON, signed by the same key as the access log's checkpoints of that tenant and environment. A
// regulator verifies it offline with the verifier key they already hold
// (docs/verify_history.py, or any signed-note tool for the note).
//
// The note's text, one item a line:
//   svc/history/v1
//   <origin: svc/audit/<tenant>/<environment>>
//   <subjectType> <subjectId>
//   <asOf, RFC 3339>
//   <SHA-256 hex of the canonical JSON of the bundle without signedNote and verifierKey>

#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "projections/audit/as_of.h"

namespace svc::pipeline::audit {

inline constexpr std::string_view kHistoryFormat = "svc/history/v1";

// `bundle` (its members: object, format, tenantId, environment, subjectType, subjectId, asOf, …)
// with signedNote and verifierKey added.
core::Result<core::Json> SignHistoryBundle(std::string_view checkpoint_root_key, core::Json bundle);

// The signed bundle of a replay (the route's answer and `svc audit history`'s output alike).
core::Result<core::Json> HistoryBundle(std::string_view checkpoint_root_key, const projections::AsOfQuery& q,
                                       std::string_view subject_type, const projections::AsOfReplay& replay);

}  // namespace svc::pipeline::audit
