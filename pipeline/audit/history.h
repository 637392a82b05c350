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

#include <functional>
#include <string>
#include <vector>
#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/event_log.h"
#include "projections/audit/as_of.h"

namespace svc::pipeline::audit {

inline constexpr std::string_view kHistoryFormat = "svc/history/v1";

// `bundle` (its members: object, format, tenantId, environment, subjectType, subjectId, asOf, …)
// with signedNote and verifierKey added.
core::Result<core::Json> SignHistoryBundle(std::string_view checkpoint_root_key, core::Json bundle);

// The signed bundle of a replay (the route's answer and `svc audit history`'s output alike);
// `certificate` (the session's verification certificate as it stood at T, or null) is a member.
core::Result<core::Json> HistoryBundle(std::string_view checkpoint_root_key, const projections::AsOfQuery& q,
                                       std::string_view subject_type, const projections::AsOfReplay& replay,
                                       const core::Json& certificate = nullptr);

// Calls `read` with the read models named `views` as they stood for `tenant` at `as_of`
// (projections/audit/as_of.h, ReplayTenant), built in a scratch store under `scratch_dir` that is
// removed afterwards: a tenant's report as it stood at a moment, read by the report's own readers.
core::Status AtMoment(eventstore::EventLog& log, const std::vector<projections::Projector*>& projectors,
                      const std::string& scratch_dir, const std::vector<std::string_view>& views,
                      std::string_view tenant, core::Timestamp as_of,
                      const std::function<core::Status(const eventstore::KvStore&, const projections::TenantReplay&)>& read);

struct HistoryKeys {
  std::string checkpoint_root_key;   // signs the bundle (pipeline/audit/checkpoints.h)
  std::string certificate_root_key;  // signs a certificate at T (pipeline/certificate.h)
};
struct History {
  projections::AsOfReplay replay;
  core::Json bundle;  // signed; null when the subject had no event by then
};
// The whole of it, for the route and the CLI alike: the replay through the subject's projector
// (and, for a session, the verification projector, whose rows its certificate is built from),
// in a scratch store made under `scratch_dir` and removed after; the certificate in force at T
// for a session approved or declined by then (signed as GET …/certificate signs it, without
// trusted timestamps: those cover the certificate as it is now); the bundle signed.
core::Result<History> ReplayHistory(eventstore::EventLog& log, const std::vector<projections::Projector*>& projectors,
                                    const std::string& scratch_dir, std::string_view subject_type,
                                    const projections::AsOfQuery& q, const HistoryKeys& keys);

}  // namespace svc::pipeline::audit
