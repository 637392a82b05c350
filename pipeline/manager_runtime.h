#pragma once
// What every process manager borrows from the runtime: the writer it issues commands through, the
// store and projections it reads (and waits on), the clock, ids and metrics. Each manager's
// Options derive from it; the composition root lends them all at once (LendRuntime). (Extracted
// when the tenth manager declared the same six members.)

namespace svc::commands {
class Writer;
}
namespace svc::eventstore {
class KvStore;
}
namespace svc::projections {
class ProjectionSet;
}
namespace svc::core {
class Clock;
class IdSource;
class MetricsRegistry;
}  // namespace svc::core

namespace svc::pipeline {

struct ManagerRuntime {
  commands::Writer* writer = nullptr;
  const eventstore::KvStore* store = nullptr;
  projections::ProjectionSet* projections = nullptr;
  const core::Clock* clock = nullptr;
  core::IdSource* ids = nullptr;
  core::MetricsRegistry* metrics = nullptr;  // optional
};

}  // namespace svc::pipeline
