#pragma once
// The consolidator: the process manager that carries out merges of duplicate persons
// (docs/persons.md#consolidation). A consolidation is queued in the persons read model
// (`consolidating/`, from persons.consolidation_requested until persons.consolidation_completed);
// for each, and for each source in the order the request named them:
//
//   1. the source is frozen (persons.merge_started: writes, forget and other merges refused), or,
//      when it cannot be merged any more (erased, forgotten, merged elsewhere), the survivor
//      records the refusal for that source (persons.source_absorbed with `error`);
//   2. the source's values are opened with its key and the survivor absorbs the ones the
//      resolution gives it, sealed under its own key (persons.person_revised, provenance
//      `consolidation`, and persons.source_absorbed, in one decision);
//   3. the source is merged (persons.merged: status merged, pointing to the survivor; its values
//      leave the read models);
//
// and then the survivor records persons.consolidation_completed. Every step is idempotent in its
// decider (a second start, absorption, merge or completion decides nothing), and each runs after
// the read models show the step before, so a crash anywhere is finished on the next run exactly
// once. Woken by every batch of the persons read model (like the verified-data writer).

#include <chrono>
#include <string>

#include "commands/persons/person_decider.h"
#include "core/json.h"
#include "core/metrics.h"
#include "eventstore/key_store.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/queue_manager.h"
#include "projections/persons/persons_projector.h"

namespace svc::pipeline::persons {

class Consolidator final : public QueueManager {
 public:
  struct Options : ManagerRuntime {
    eventstore::KeyStore* keys = nullptr;
    projections::PersonsProjector* projector = nullptr;
    // Tests only (--fault-kill-consolidation-after): the process kills itself with SIGKILL right
    // after this step ("merge_started", "absorbed", "merged") is durable: a crash at a chosen point.
    std::string fault_kill_after;
  };
  explicit Consolidator(Options options);
  ~Consolidator();

 private:
  struct Queued {
    std::string tenant, env, survivor, consolidation;
  };
  core::Result<std::vector<Queued>> Pending() const;
  void Pass() override;
  bool NothingDue() override;
  core::Status Process(const Queued& q);
  core::Status MergeOne(const Queued& q, const std::string& source, const std::string& status,
                        const core::Json& resolutions);
  // Runs a command and waits until the persons read model shows it.
  core::Result<commands::CommandOutcome> Run(commands::Command command);
  core::Result<commands::CommandOutcome> RunPerson(const Queued& q, const std::string& person,
                                                   commands::persons::PersonCommand command);
  void Fault(const std::string& step) const;

  Options options_;
  core::Counter* merged_ = nullptr;
};

}  // namespace svc::pipeline::persons
