#pragma once
// What the service knew about one subject at a moment T (docs/audit.md, "History as of a
// moment"): the subject's read model rebuilt from the log's events up to T, by the same projector
// that builds the live one, in memory beside the live rows (never written), and every event of
// the subject up to T with its place in the log, its hash, and the subject's status right after it.
//
// The replay reads the tenant's partition from its first event and stops at the first event of
// the tenant that happened after T (the log's order is the order in which the service learned
// things), so its cost is the tenant's history up to T. Deterministic: the same log and T give the
// same answer, byte for byte.

#include <functional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/json.h"
#include "core/status.h"
#include "eventstore/event_log.h"
#include "eventstore/kv_store.h"
#include "projections/projector.h"
#include "projections/state_records.h"

namespace svc::projections {

struct AsOfQuery {
  std::string tenant;
  std::string environment;
  std::string subject_id;
  core::Timestamp as_of;
};

struct AsOfReplay {
  bool found = false;  // the subject had an event at or before T
  // Its read-model row at T, members named `sealed`, `index` or ending in `Sealed` (ciphertext
  // and blind indexes) left out; null when it did not exist yet.
  core::Json state;
  // The subject's events up to T, oldest first: {position "p:o", eventId, type, schemaVersion,
  // occurredAt, aggregateVersion, actor {type, id}, requestId, data (the same members left out),
  // eventSha256 (of the envelope's encoding, eventstore/envelope.h), status (the subject's right after it)}.
  core::Json events = core::Json::array();
  uint64_t tenant_events = 0;  // the tenant's events replayed
  std::string through;         // where the replay stopped: the last tenant event applied ("p:o"), or ""
  std::string state_row;       // the subject's row at T as stored (for readers that take it whole)
};

struct TenantReplay {
  uint64_t tenant_events = 0;  // the tenant's events applied
  std::string through;         // the last one ("p:o"), or ""
};
// Called after each event applied, with the projectors' writers (in the projectors' order).
using AfterEvent = std::function<core::Status(const eventstore::RecordedEvent&, const std::vector<ViewWriter*>&)>;
// Applies to `projectors` every event of `tenant` up to `as_of` (the tenant's partition from its
// first event, up to the first of its events after `as_of`), the rows built over `scratch` (an
// empty store of the read side's column families that nothing else uses) and written into it at
// the end under their real keys: the read models as they stood at `as_of`, for their usual readers.
core::Result<TenantReplay> ReplayTenant(eventstore::EventLog& log, eventstore::KvStore& scratch,
                                        const std::vector<Projector*>& projectors, std::string_view tenant,
                                        core::Timestamp as_of, const AfterEvent& after = {});

// Replays into `projectors` (the subject's first: StateTopicInfo::view; then any other whose rows
// the caller reads at T, such as the verification view for a certificate) the tenant's events up
// to T. The rows are built in memory over `scratch`, an empty store of the read side's column
// families that nothing else uses, and written into it at the end under their real keys: the
// caller reads the read models as they stood at T there, with the usual readers.
core::Result<AsOfReplay> ReplayAsOf(eventstore::EventLog& log, eventstore::KvStore& scratch,
                                    const std::vector<Projector*>& projectors, const StateTopicInfo& subject,
                                    const AsOfQuery& q);

// `value` with every member named `sealed` or `index`, or ending in `Sealed`, left out, at any depth.
core::Json WithoutSealed(const core::Json& value);

}  // namespace svc::projections
