#pragma once
// The ARCO requests' process manager (docs/persons.md#arco-requests), over two queues of the ARCO
// read model. Fulfilments: an operation that named a request (a rectification, a forget, an
// opposition, an access bundle) is recorded on it (FulfilArcoRequest), or, when it no longer
// applies, its refusal. Deadlines, as they come: A response or effect term within
// `warning_business_days` business days of its end is warned once (arco.deadline_approaching);
// one that passed unmet is recorded once (arco.deadline_missed) and the request counts as overdue
// until it moves; a request whose requester did not provide the information asked by its due date
// lapses. Each is a command the decider makes idempotent (a moved or met deadline records nothing),
// so a timer that fires late, twice or on two nodes is harmless.

#include <chrono>
#include <functional>
#include <mutex>

#include "commands/persons/arco_request.h"
#include "core/metrics.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/periodic.h"

namespace svc::pipeline::persons {

class ArcoManager final : public PeriodicManager {
 public:
  struct Options : ManagerRuntime {
    std::chrono::milliseconds interval{60'000};
    int warning_business_days = 3;
    commands::persons::ArcoCalendar calendar;  // the operator's extra days off
    // Before a run: the read models have applied the log as it stands (so that a run asked for
    // right after an operation finds what it queued); null: read what there is.
    std::function<core::Status()> caught_up;
  };
  explicit ArcoManager(const Options& options);
  ~ArcoManager();

  // Records the queued fulfilments, and warns, records and lapses what is due at the clock's now;
  // waits until the read models show it. Returns how many commands recorded something.
  core::Result<int> RunOnce();

 private:
  Options options_;
  std::mutex mu_;  // one RunOnce at a time
  core::Counter* warned_ = nullptr;
  core::Counter* missed_ = nullptr;
};

}  // namespace svc::pipeline::persons
