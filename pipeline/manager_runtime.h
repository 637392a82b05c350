#pragma once
// What every process manager borrows from the runtime: the writer it issues commands through, the
// store and projections it reads (and waits on), the clock, ids and metrics. Each manager's
// Options derive from it; the composition root lends them all at once (LendRuntime). (Extracted
// when the tenth manager declared the same six members.)
//
// Owns(tenant): a manager acts for the tenants whose log partition this node's writer decides.
// One process decides every partition; in a cluster each partition's work is done once, by the
// node that writes it, and moves with the partition (docs/operations.md#a-cluster-on-kafka).

#include <string_view>

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

  // Whether this node does `tenant`'s work (pipeline/manager_runtime.cc).
  bool Owns(std::string_view tenant) const;
};

}  // namespace svc::pipeline
