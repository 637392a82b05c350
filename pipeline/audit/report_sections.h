#pragma once
// The compliance report's sections computed from read models (GET /v1/compliance/reports,
// docs/compliance.md): the access log's chain, the verification volume and the ARCO requests of a
// tenant and environment, as they stand now, or as they stood at a moment (the tenant's events up
// to it replayed by the same projectors in a scratch store: pipeline/audit/history.h, AtMoment).

#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/json.h"
#include "core/status.h"
#include "eventstore/event_log.h"
#include "eventstore/kv_store.h"
#include "projections/audit/audit_reads.h"
#include "projections/projector.h"

namespace svc::pipeline::audit {

struct ReportSections {
  projections::ChainVerification chain;
  core::Json volume;
  core::Json arco;
  core::Json as_of;  // {asOf, tenantEventsReplayed, through} for a report at a moment, else null
};

struct ReportSectionsInput {
  eventstore::EventLog* log = nullptr;
  const eventstore::KvStore* views = nullptr;               // the live read models
  projections::IncrementalChainVerifier* verifier = nullptr;  // the live chain's
  std::vector<projections::Projector*> projectors;          // for a report at a moment
  std::string scratch_dir;
  std::string tenant, environment;
  core::Timestamp now;
  std::optional<core::Timestamp> as_of;
};

core::Result<ReportSections> ComputeReportSections(const ReportSectionsInput& in);

}  // namespace svc::pipeline::audit
