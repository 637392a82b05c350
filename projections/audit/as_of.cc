#include "projections/audit/as_of.h"

#include "core/crypto.h"
#include "eventstore/envelope.h"

namespace svc::projections {

core::Json WithoutSealed(const core::Json& value) {
  if (value.is_array()) {
    core::Json out = core::Json::array();
    for (const auto& v : value) out.push_back(WithoutSealed(v));
    return out;
  }
  if (!value.is_object()) return value;
  core::Json out = core::Json::object();
  constexpr std::string_view kSealed = "Sealed";
  for (const auto& [k, v] : value.items()) {
    const bool sealed = k == "sealed" || k == "index" ||
                        (k.size() > kSealed.size() && k.compare(k.size() - kSealed.size(), kSealed.size(), kSealed) == 0);
    if (!sealed) out[k] = WithoutSealed(v);
  }
  return out;
}

core::Result<TenantReplay> ReplayTenant(eventstore::EventLog& log, eventstore::KvStore& scratch,
                                        const std::vector<Projector*>& projectors, std::string_view tenant,
                                        core::Timestamp as_of, const AfterEvent& after) {
  TenantReplay out;
  if (projectors.empty()) return core::Internal("no projector to replay into");
  const uint32_t partition = log.PartitionFor(tenant);
  SVC_ASSIGN_OR_RETURN(const uint64_t end, log.EndOffset(partition, std::chrono::seconds(10)));
  const int cf = scratch.Cf(kViewsCf);
  std::vector<std::unique_ptr<ViewWriter>> views;
  std::vector<ViewWriter*> writers;
  for (auto* p : projectors) {
    views.push_back(std::make_unique<ViewWriter>(&scratch, cf, std::string(p->Name()) + "/"));
    writers.push_back(views.back().get());
  }
  if (end > 0) {
    SVC_ASSIGN_OR_RETURN(auto reader, log.OpenReader("history-as-of", {}));
    bool done = false;
    while (!done) {
      SVC_ASSIGN_OR_RETURN(auto batch, reader->Poll(2000, std::chrono::milliseconds(200)));
      if (batch.empty()) {
        if (reader->CaughtUp()) break;
        continue;
      }
      for (const auto& re : batch) {
        if (re.position.partition != partition) continue;
        if (re.position.offset + 1 >= end) done = true;
        const auto& e = re.event;
        if (e.tenant_id != tenant) {
          if (done) break;
          continue;
        }
        if (e.occurred_at.micros > as_of.micros) {
          done = true;
          break;
        }
        for (size_t i = 0; i < projectors.size(); ++i) SVC_RETURN_IF_ERROR(projectors[i]->Apply(re, *views[i]));
        ++out.tenant_events;
        out.through = std::to_string(re.position.partition) + ":" + std::to_string(re.position.offset);
        if (after) SVC_RETURN_IF_ERROR(after(re, writers));
        if (done) break;
      }
    }
  }
  eventstore::KvStore::Batch batch;
  for (auto& v : views) v->Drain(batch);
  SVC_RETURN_IF_ERROR(scratch.Write(batch, /*sync=*/false));
  return out;
}

core::Result<AsOfReplay> ReplayAsOf(eventstore::EventLog& log, eventstore::KvStore& scratch,
                                    const std::vector<Projector*>& projectors, const StateTopicInfo& subject,
                                    const AsOfQuery& q) {
  AsOfReplay out;
  if (projectors.empty()) return core::Internal("no projector to replay into");
  const std::string row_key = subject.row_key(q.tenant, q.environment, q.subject_id);
  const std::string prefix = std::string(projectors.front()->Name()) + "/";
  if (row_key.rfind(prefix, 0) != 0) return core::Internal("the subject's row is not the projector's: " + row_key);
  const std::string relative = row_key.substr(prefix.size());
  auto row_of = [&](const ViewWriter& view) -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(auto row, view.Get(relative));
    if (!row.has_value()) return core::Json(nullptr);
    return WithoutSealed(core::ParseJsonOrDiscarded(*row));
  };
  auto after_event = [&](const eventstore::RecordedEvent& re, const std::vector<ViewWriter*>& views) -> core::Status {
    const auto& e = re.event;
    if (e.aggregate_id == q.subject_id && e.environment == q.environment) {
      out.found = true;
      SVC_ASSIGN_OR_RETURN(core::Json after, row_of(*views.front()));
      const std::string position = std::to_string(re.position.partition) + ":" + std::to_string(re.position.offset);
      out.events.push_back({{"position", position},
                            {"eventId", e.id},
                            {"type", e.type},
                            {"schemaVersion", e.schema_version},
                            {"occurredAt", core::FormatRfc3339Micros(e.occurred_at)},
                            {"aggregateVersion", e.aggregate_version},
                            {"actor", {{"type", e.actor.type}, {"id", e.actor.id}}},
                            {"requestId", e.request_id.empty() ? core::Json(nullptr) : core::Json(e.request_id)},
                            {"data", WithoutSealed(core::ParseJsonOrDiscarded(e.data))},
                            {"eventSha256", core::Sha256Hex(eventstore::EncodeEnvelope(e))},
                            {"status", after.is_object() ? after.value("status", core::Json(nullptr)) : core::Json(nullptr)}});
    }
    return core::Status::Ok();
  };
  SVC_ASSIGN_OR_RETURN(TenantReplay tenant, ReplayTenant(log, scratch, projectors, q.tenant, q.as_of, after_event));
  out.tenant_events = tenant.tenant_events;
  out.through = tenant.through;
  // The rows are in the scratch store now, under their real keys.
  SVC_ASSIGN_OR_RETURN(auto raw, scratch.Get(scratch.Cf(kViewsCf), row_key));
  out.state_row = raw.value_or("");
  out.state = raw.has_value() ? WithoutSealed(core::ParseJsonOrDiscarded(*raw)) : core::Json(nullptr);
  return out;
}

}  // namespace svc::projections
