#pragma once
// The company verifier: the KYB process manager (docs/kyb.md#verify). `POST …/verify` starts a run
// (kyb.verification_started); the read model lists the company under due/ until the run's risk
// is assessed. For each, one stage after the other, each recorded as an event on the company
// (kyb.stage_completed) before the next starts, so a restarted process resumes where it stopped:
//
//   registry   the company's record by RFC from the registry (sandbox or gateway)
//   ownership  the ownership analysis (ownership.h) over the declared UBO nodes: a node stands for
//              a party — the person it links (personId), the company it links (relatedCompanyId),
//              else its type and folded name — so one party declared under two parents is one
//              owner (a diamond) and a company declared under its own subsidiary closes a cycle
//   screening  the company's names, its members and its owners against the lists in force
//              (screening_run.h), recorded as a screening whose hits join the company
//   risk       the risk formula (risk.h) over the stages and the company's hits as reviewed now:
//              kyb.risk_assessed, with the status it leaves the company in
//
// Woken by every batch of the KYB read model; a route may wait for a company's run to end.

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/json.h"
#include "pipeline/kyb/company_registry.h"
#include "pipeline/kyb/kyb_seal.h"
#include "pipeline/kyb/list_registry.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/queue_manager.h"
#include "projections/kyb/kyb_projector.h"

namespace svc::pipeline::kyb {

class CompanyVerifier final : public QueueManager {
 public:
  struct Options : ManagerRuntime {
    projections::KybProjector* projector = nullptr;
    CompanyRegistry* registry = nullptr;
    ListRegistry* lists = nullptr;
    KybKeys keys;
    double ubo_threshold_pct = 15.0;
  };
  explicit CompanyVerifier(Options options);
  ~CompanyVerifier();
  // Also answers the waiters left: done(false).
  void Stop();
  // Calls `done(true)` once the company's run `run` has ended (its risk assessed), or
  // `done(false)` after `timeout` (checked at least every second). Called on the verifier's
  // thread.
  void WhenDone(const std::string& tenant, const std::string& environment, const std::string& company, int64_t run,
                std::chrono::milliseconds timeout, std::function<void(bool)> done);

 private:
  struct Due {
    std::string tenant, environment, company;
    int64_t run = 0;
  };
  struct Waiter {
    std::string key;
    int64_t run;
    std::chrono::steady_clock::time_point deadline;
    std::function<void(bool)> done;
  };
  core::Result<std::vector<Due>> Pending() const;
  void Pass() override;
  bool NothingDue() override;
  core::Status Process(const Due& d);
  void FireWaiters();

  Options options_;
  std::mutex waiters_mu_;
  std::vector<Waiter> waiters_;
};

// The ownership stage's graph and analysis over a company row's UBO nodes (opened names), as the
// verifier records it: {effective: {nodeId: "24.00"}, beneficialOwners, cycles, explainedPct,
// unexplainedPct, thresholdPct, truncated, refused}.
core::Json OwnershipStage(const std::string& company_id, const core::Json& nodes,
                          const std::map<std::string, std::string>& names, double threshold_pct);

}  // namespace svc::pipeline::kyb
