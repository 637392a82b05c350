#include "pipeline/persons/purger.h"

#include "commands/persons/person_decider.h"
#include "commands/verification/session_decider.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/log.h"
#include "eventstore/kv_store.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/runner.h"
#include "projections/verification_view.h"

namespace svc::pipeline::persons {

namespace ps = commands::persons;
namespace vs = commands::verification;
using PV = projections::PersonsView;
using VV = projections::VerificationView;

Purger::Purger(Options options)
    : PeriodicManager("svc-purger", options.interval, "purger run failed", [this] { return RunOnce().status(); }),
      options_(std::move(options)) {
  if (options_.metrics != nullptr) {
    purged_ = &options_.metrics->GetCounter("svc_persons_purged_total", "Persons forgotten: data purged and keys destroyed");
  }
}

Purger::~Purger() { Stop(); }

core::Result<core::Json> Purger::RunOnce() {
  std::lock_guard run_lock(run_mu_);
  const core::Timestamp now = options_.clock->Now();
  const eventstore::KvStore& store = *options_.store;
  const int cf = store.Cf(projections::kViewsCf);
  int64_t purged = 0, destroyed = 0, held = 0;
  std::vector<eventstore::LogPosition> positions;
  auto run = [&](const std::string& tenant, const std::string& env, const std::string& person,
                 ps::PersonCommand command) -> core::Result<bool> {
    auto r = options_.writer->ExecuteAndWait(commands::MakeCommand<ps::PersonDecider>(
        tenant, person, std::move(command), commands::SystemContext(now, options_.ids, "purger", env)));
    if (!r.ok()) {
      if (r.status().api_code() == "PERSON_LEGAL_HOLD") return false;
      return r.status();
    }
    positions.insert(positions.end(), r->positions.begin(), r->positions.end());
    return !r->positions.empty();
  };

  // 1. Due purges.
  const std::string due_prefix = PV::Abs(PV::PurgeDuePrefix());
  std::vector<projections::ScopedId> due;
  {
    auto it = store.NewIterator(cf, due_prefix, eventstore::PrefixEnd(due_prefix));
    for (it->Seek(due_prefix); it->Valid(); it->Next()) {
      auto e = projections::ParseTimedKey(it->key().substr(due_prefix.size()));
      if (!e) continue;
      if (e->micros > now.micros) break;
      if (!options_.Owns(e->id.tenant)) continue;  // another node's partition
      due.push_back(std::move(e->id));
    }
    SVC_RETURN_IF_ERROR(it->status());
  }
  for (const auto& p : due) {
    const std::string te = projections::TenantEnv(p.tenant, p.environment);
    ps::PurgePerson purge;
    const std::string sessions = PV::Abs(PV::Sessions(te, p.id));
    auto it = store.NewIterator(cf, sessions, eventstore::PrefixEnd(sessions));
    for (it->Seek(sessions); it->Valid(); it->Next()) purge.session_ids.emplace_back(it->value());
    SVC_RETURN_IF_ERROR(it->status());
    auto r = run(p.tenant, p.environment, p.id, ps::PersonCommand(purge));
    if (!r.ok()) {
      core::LogWarn("purge failed", {{"personId", p.id}, {"error", r.status().ToString()}});
      continue;
    }
    if (*r) {
      ++purged;
    } else {
      ++held;
    }
  }
  if (!positions.empty()) options_.projections->WaitApplied(positions, std::chrono::seconds(30));
  positions.clear();

  // 2. Purged persons whose keys remain.
  const std::string shred_prefix = PV::Abs(PV::ShredPrefix());
  struct Shred {
    std::string tenant, env, person;
    std::vector<std::string> sessions;
  };
  std::vector<Shred> shreds;
  {
    auto it = store.NewIterator(cf, shred_prefix, eventstore::PrefixEnd(shred_prefix));
    for (it->Seek(shred_prefix); it->Valid(); it->Next()) {
      auto id = projections::ParseScopedId(it->key().substr(shred_prefix.size()));
      if (!id || !options_.Owns(id->tenant)) continue;
      Shred s{id->tenant, id->environment, id->id, {}};
      for (const auto& v : core::ParseJsonOrDiscarded(it->value()).value("sessionIds", core::Json::array())) {
        if (v.is_string()) s.sessions.push_back(v.get<std::string>());
      }
      shreds.push_back(std::move(s));
    }
    SVC_RETURN_IF_ERROR(it->status());
  }
  for (const auto& s : shreds) {
    // Right before each person's effects: a run that began before this node lost the tenant's
    // partition stops there; the new owner purges the person (issue 67).
    if (!options_.Owns(s.tenant)) continue;
    std::vector<std::string> names = {PersonKeyName(s.tenant, s.env, s.person)};
    bool recorded = true;
    for (const auto& session : s.sessions) {
      names.push_back(eventstore::KeyStore::SessionKeyName(s.tenant, s.env, session));
      // The session records its captures' purge (evidence shows purgedAt, the hashes stay), then
      // the files go: sealed under the session's key, unreadable once it is gone anyway.
      auto m = options_.writer->ExecuteAndWait(commands::MakeCommand<vs::SessionDecider>(
          s.tenant, session, vs::SessionCommand(vs::PurgeMedia{0, "forget"}),
          commands::SystemContext(now, options_.ids, "purger", s.env)));
      if (!m.ok() && m.status().api_code() != "SESSION_NOT_FOUND") {
        core::LogWarn("a forgotten person's session did not record its purge", {{"sessionId", session}, {"error", m.status().ToString()}});
        recorded = false;
        break;
      }
      if (m.ok()) positions.insert(positions.end(), m->positions.begin(), m->positions.end());
      const std::string media = VV::Abs(VV::Media(projections::TenantEnv(s.tenant, s.env), session));
      auto it = store.NewIterator(cf, media, eventstore::PrefixEnd(media));
      for (it->Seek(media); it->Valid(); it->Next()) {
        const std::string blob = core::StringOr(core::ParseJsonOrDiscarded(it->value()), "blob");
        if (!blob.empty()) (void)options_.blobs->Delete(blob);
      }
    }
    if (!recorded) continue;  // tried again on the next run
    SVC_RETURN_IF_ERROR(options_.keys->DestroyForGood(names));
    auto r = run(s.tenant, s.env, s.person, ps::PersonCommand(ps::ConfirmKeysDestroyed{names}));
    if (!r.ok()) {
      core::LogWarn("keys destroyed but not recorded", {{"personId", s.person}, {"error", r.status().ToString()}});
      continue;
    }
    ++destroyed;
  }
  if (!positions.empty()) options_.projections->WaitApplied(positions, std::chrono::seconds(30));
  if (purged_ != nullptr) purged_->Add(static_cast<uint64_t>(destroyed));
  return core::Json{{"purged", purged}, {"keysDestroyed", destroyed}, {"held", held}};
}

}  // namespace svc::pipeline::persons
