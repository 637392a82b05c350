#include "pipeline/kyb/subject_shredder.h"

#include "commands/kyb/company_decider.h"
#include "commands/writer.h"
#include "core/clock.h"
#include "core/log.h"
#include "eventstore/kv_store.h"
#include "pipeline/kyb/kyb_seal.h"
#include "projections/kyb/kyb_view.h"
#include "projections/projector.h"
#include "projections/runner.h"

namespace svc::pipeline::kyb {

namespace kc = commands::kyb;
using KV = projections::KybView;

SubjectShredder::SubjectShredder(Options options)
    : PeriodicManager("svc-kyb-shred", options.interval, "KYB subject shredder run failed",
                      [this] { return RunOnce().status(); }),
      options_(std::move(options)) {}

SubjectShredder::~SubjectShredder() { Stop(); }

core::Result<core::Json> SubjectShredder::RunOnce() {
  std::lock_guard run_lock(run_mu_);
  const eventstore::KvStore& store = *options_.store;
  const int cf = store.Cf(projections::kViewsCf);
  struct Due {
    std::string tenant, env, company, subject, type;
  };
  std::vector<Due> due;
  const std::string prefix = KV::Abs(KV::ShredPrefix());
  {
    auto it = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      // <tenant>/<environment>/<company>/<subject>
      const std::string rest(it->key().substr(prefix.size()));
      std::vector<std::string> parts;
      size_t from = 0;
      for (size_t at = rest.find('/'); at != std::string::npos; at = rest.find('/', from)) {
        parts.push_back(rest.substr(from, at - from));
        from = at + 1;
      }
      parts.push_back(rest.substr(from));
      if (parts.size() != 4 || !options_.Owns(parts[0])) continue;
      const std::string type = core::StringOr(core::ParseJsonOrDiscarded(it->value()), "subjectType");
      due.push_back({parts[0], parts[1], parts[2], parts[3], type});
    }
    SVC_RETURN_IF_ERROR(it->status());
  }
  int64_t destroyed = 0;
  std::vector<eventstore::LogPosition> positions;
  for (const auto& d : due) {
    const std::vector<std::string> names = {SubjectKeyName(d.tenant, d.env, d.company, d.subject)};
    SVC_RETURN_IF_ERROR(options_.keys->DestroyForGood(names));
    kc::SubjectKeysDestroyed k{d.type, d.subject, names};
    auto r = options_.writer->ExecuteAndWait(commands::MakeCommand<kc::CompanyDecider>(
        d.tenant, d.company, kc::CompanyCommand(kc::ConfirmSubjectKeysDestroyed{k}),
        commands::SystemContext(options_.clock->Now(), options_.ids, "kyb-shredder", d.env)));
    if (!r.ok()) {
      core::LogWarn("a KYB subject's key was destroyed but not recorded",
                    {{"subjectId", d.subject}, {"error", r.status().ToString()}});
      continue;
    }
    positions.insert(positions.end(), r->positions.begin(), r->positions.end());
    ++destroyed;
  }
  if (!positions.empty()) options_.projections->WaitApplied(positions, std::chrono::seconds(30));
  return core::Json{{"keysDestroyed", destroyed}};
}

}  // namespace svc::pipeline::kyb
