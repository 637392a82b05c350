#include "pipeline/retention/sweeper.h"

#include "commands/compliance/retention.h"
#include "commands/verification/session_decider.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/log.h"
#include "eventstore/kv_store.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/runner.h"
#include "projections/sessions_view.h"
#include "projections/verification_view.h"
#include "projections/webhooks_view.h"

namespace svc::pipeline::retention {

namespace vs = commands::verification;
namespace cc = commands::compliance;
using SV = projections::SessionsView;
using VV = projections::VerificationView;
using WV = projections::WebhooksView;
using PV = projections::PersonsView;

constexpr int64_t kDayMicros = 86'400'000'000;

core::Json SweepRun::ToJson() const {
  return {{"ranAt", at_micros == 0 ? core::Json(nullptr) : core::Json(core::FormatRfc3339(core::Timestamp{at_micros}))},
          {"idempotencyRecordsRemoved", idempotency_records},
          {"sessionsPurged", sessions_purged},
          {"sessionsHeld", sessions_held},
          {"mediaFilesRemoved", media_files},
          {"webhookDeliverySweeps", webhook_sweeps}};
}

Sweeper::Sweeper(Options options)
    : PeriodicManager("svc-retention", options.policies.interval, "retention sweep failed",
                      [this] { return RunOnce().status(); }, /*run_first=*/true),
      options_(std::move(options)) {
  if (options_.metrics != nullptr) {
    const char* help = "Items removed under the retention policies";
    removed_idempotency_ = &options_.metrics->GetCounter("svc_retention_removed_total", help, "resource=\"idempotency_records\"");
    removed_media_ = &options_.metrics->GetCounter("svc_retention_removed_total", help, "resource=\"media_files\"");
    swept_deliveries_ = &options_.metrics->GetCounter("svc_retention_removed_total", help, "resource=\"webhook_delivery_sweeps\"");
  }
}

Sweeper::~Sweeper() { Stop(); }

SweepRun Sweeper::last() const {
  std::lock_guard lock(last_mu_);
  return last_;
}

core::Result<bool> Sweeper::Held(const projections::ScopedId& s, core::Timestamp now) const {
  const eventstore::KvStore& store = *options_.store;
  const int cf = store.Cf(projections::kViewsCf);
  const std::string te = projections::TenantEnv(s.tenant, s.environment);
  SVC_ASSIGN_OR_RETURN(auto person, store.Get(cf, PV::Abs(PV::SessionPerson(te, s.id))));
  if (!person.has_value()) return false;
  auto in_force = [&](const std::string& asset) -> core::Result<bool> {
    SVC_ASSIGN_OR_RETURN(auto until, store.Get(cf, PV::Abs(PV::Hold(te, *person, asset))));
    if (!until.has_value()) return false;
    const int64_t t = std::stoll(*until);
    return t == 0 || t > now.micros;
  };
  SVC_ASSIGN_OR_RETURN(bool whole, in_force(""));
  if (whole) return true;
  const std::string media = VV::Abs(VV::Media(te, s.id));
  auto it = store.NewIterator(cf, media, eventstore::PrefixEnd(media));
  for (it->Seek(media); it->Valid(); it->Next()) {
    SVC_ASSIGN_OR_RETURN(bool one, in_force(core::StringOr(core::ParseJsonOrDiscarded(it->value()), "mediaId")));
    if (one) return true;
  }
  SVC_RETURN_IF_ERROR(it->status());
  return false;
}

core::Result<int64_t> Sweeper::PurgeMedia(core::Timestamp now, SweepRun& run,
                                          std::vector<eventstore::LogPosition>& positions) {
  const int64_t days = options_.policies.media_days;
  if (days <= 0) return int64_t{0};
  const int64_t cutoff = now.micros - days * kDayMicros;
  const eventstore::KvStore& store = *options_.store;
  const int cf = store.Cf(projections::kViewsCf);
  const std::string prefix = SV::Abs(SV::RetentionPrefix());
  std::vector<projections::ScopedId> due;
  {
    auto it = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      auto e = projections::ParseTimedKey(it->key().substr(prefix.size()));
      if (!e) continue;
      if (e->micros > cutoff) break;  // ordered by completion
      if (!options_.Owns(e->id.tenant)) continue;  // another node's partition
      due.push_back(std::move(e->id));
    }
    SVC_RETURN_IF_ERROR(it->status());
  }
  int64_t files = 0;
  for (const auto& s : due) {
    // Right before each session's effects: a sweep that began before this node lost the tenant's
    // partition stops there; the new owner sweeps it (issue 67).
    if (!options_.Owns(s.tenant)) continue;
    // A legal hold in force on the session's person, or on one of its captures, keeps the whole
    // session's captures (they are looked at again on the next sweep).
    SVC_ASSIGN_OR_RETURN(bool held, Held(s, now));
    if (held) {
      ++run.sessions_held;
      continue;
    }
    // Recorded first (the decider refuses what is not due or not completed), then the bytes go.
    auto r = options_.writer->ExecuteAndWait(commands::MakeCommand<vs::SessionDecider>(
        s.tenant, s.id, vs::SessionCommand(vs::PurgeMedia{days}), commands::SystemContext(now, options_.ids, "retention", s.environment)));
    if (!r.ok()) {
      core::LogWarn("media purge failed", {{"sessionId", s.id}, {"error", r.status().ToString()}});
      continue;
    }
    positions.insert(positions.end(), r->positions.begin(), r->positions.end());
    if (!r->result.value("purged", false)) continue;
    ++run.sessions_purged;
    const std::string media = VV::Abs(VV::Media(projections::TenantEnv(s.tenant, s.environment), s.id));
    auto it = store.NewIterator(cf, media, eventstore::PrefixEnd(media));
    for (it->Seek(media); it->Valid(); it->Next()) {
      const std::string blob = core::StringOr(core::ParseJsonOrDiscarded(it->value()), "blob");
      if (blob.empty()) continue;
      auto removed = options_.blobs->Delete(blob);
      if (!removed.ok()) {
        core::LogWarn("a purged capture's blob was not removed", {{"sessionId", s.id}, {"error", removed.status().ToString()}});
      } else if (*removed) {
        ++files;
      }
    }
    SVC_RETURN_IF_ERROR(it->status());
  }
  return files;
}

core::Result<int64_t> Sweeper::SweepDeliveries(core::Timestamp now, std::vector<eventstore::LogPosition>& positions) {
  const int64_t days = options_.policies.webhook_delivery_days;
  if (days <= 0) return int64_t{0};
  const int64_t cutoff = now.micros - days * kDayMicros;
  const eventstore::KvStore& store = *options_.store;
  const int cf = store.Cf(projections::kViewsCf);
  // The tenant-environments with endpoints, and of those the ones with a delivery older than the cutoff.
  const std::string eps = WV::Abs("eps/");
  std::vector<std::string> scopes;
  {
    auto it = store.NewIterator(cf, eps, eventstore::PrefixEnd(eps));
    for (it->Seek(eps); it->Valid(); it->Next()) scopes.emplace_back(it->key().substr(eps.size()));
    SVC_RETURN_IF_ERROR(it->status());
  }
  int64_t sweeps = 0;
  for (const auto& te : scopes) {
    size_t slash = te.find('/');
    if (slash == std::string::npos || !options_.Owns(te.substr(0, slash))) continue;
    const std::string all = WV::Abs(WV::Deliveries(te));
    auto it = store.NewIterator(cf, all, eventstore::PrefixEnd(all));
    it->Seek(all + WV::Inverted(cutoff - 1));
    const bool any_old = it->Valid();
    SVC_RETURN_IF_ERROR(it->status());
    if (!any_old) continue;
    cc::SweepRows c;
    c.swept.resource = std::string(cc::kWebhookDeliveriesResource);
    c.swept.before_micros = cutoff;
    c.swept.retention_days = days;
    const std::string env = te.substr(slash + 1);
    auto r = options_.writer->ExecuteAndWait(commands::MakeCommand<cc::RetentionDecider>(
        te.substr(0, slash), env, c, commands::SystemContext(now, options_.ids, "retention", env)));
    if (!r.ok()) {
      core::LogWarn("webhook delivery sweep failed", {{"scope", te}, {"error", r.status().ToString()}});
      continue;
    }
    positions.insert(positions.end(), r->positions.begin(), r->positions.end());
    if (r->result.value("swept", false)) ++sweeps;
  }
  return sweeps;
}

core::Result<SweepRun> Sweeper::RunOnce() {
  std::lock_guard run_lock(run_mu_);
  const core::Timestamp now = options_.clock->Now();
  SweepRun run;
  run.at_micros = now.micros;
  std::vector<eventstore::LogPosition> positions;
  SVC_ASSIGN_OR_RETURN(run.idempotency_records, options_.writer->SweepIdempotency(now));
  SVC_ASSIGN_OR_RETURN(run.media_files, PurgeMedia(now, run, positions));
  SVC_ASSIGN_OR_RETURN(run.webhook_sweeps, SweepDeliveries(now, positions));
  if (!positions.empty()) options_.projections->WaitApplied(positions, std::chrono::seconds(30));
  if (removed_idempotency_ != nullptr) {
    removed_idempotency_->Add(static_cast<uint64_t>(run.idempotency_records));
    removed_media_->Add(static_cast<uint64_t>(run.media_files));
    swept_deliveries_->Add(static_cast<uint64_t>(run.webhook_sweeps));
  }
  {
    std::lock_guard lock(last_mu_);
    last_ = run;
  }
  return run;
}

core::Json PolicyItems(const Policies& p, const SweepRun& last) {
  const std::string every = "the retention sweeper, every " + std::to_string(p.interval.count()) + " s";
  auto days = [](int64_t d) { return d > 0 ? core::Json(d) : core::Json(nullptr); };
  const core::Json ran = last.at_micros == 0 ? core::Json(nullptr)
                                             : core::Json(core::FormatRfc3339(core::Timestamp{last.at_micros}));
  return core::Json::array({
      {{"resource", "verification_media"},
       {"description", "captures of verification sessions (document images, selfies, liveness videos), sealed "
                       "under the session's key; their SHA-256, kind and size stay on record"},
       {"retentionDays", days(p.media_days)},
       {"startsAt", "the session's completion (approved, declined, expired or abandoned)"},
       {"enforcedBy", p.media_days > 0 ? core::Json(every) : core::Json("kept (media retention is off)")},
       {"lastRunAt", ran},
       {"lastRunRemoved", last.media_files}},
      {{"resource", "webhook_deliveries"},
       {"description", "finished webhook deliveries (sent or failed): their bodies, attempts and list entries"},
       {"retentionDays", days(p.webhook_delivery_days)},
       {"startsAt", "the delivery's creation"},
       {"enforcedBy", p.webhook_delivery_days > 0 ? core::Json(every + ", recorded as compliance.rows_swept")
                                                  : core::Json("kept (delivery retention is off)")},
       {"lastRunAt", ran},
       {"lastRunRemoved", last.webhook_sweeps}},
      {{"resource", "idempotency_records"},
       {"description", "the answer kept for each Idempotency-Key, so a retry gets the same result"},
       {"retentionHours", p.idempotency_hours},
       {"retentionDays", nullptr},
       {"startsAt", "the first request with the key"},
       {"enforcedBy", every},
       {"lastRunAt", ran},
       {"lastRunRemoved", last.idempotency_records}},
      {{"resource", "audit_log"},
       {"description", "the hash-chained log of personal-data accesses and its published checkpoints"},
       {"retentionDays", nullptr},
       {"startsAt", nullptr},
       {"enforcedBy", "kept for the life of the tenant: removing entries would break the chain"},
       {"lastRunAt", nullptr},
       {"lastRunRemoved", nullptr}},
      {{"resource", "event_log"},
       {"description", "the service's log of domain events (the source of truth; personal data in it is sealed "
                       "per person and becomes unreadable when the person's key is destroyed)"},
       {"retentionDays", nullptr},
       {"startsAt", nullptr},
       {"enforcedBy", "kept"},
       {"lastRunAt", nullptr},
       {"lastRunRemoved", nullptr}},
  });
}

}  // namespace svc::pipeline::retention
