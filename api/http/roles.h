#pragma once
// The roles of a `svc serve` process (--roles): which parts of the service it runs. One process
// runs them all by default; on the Kafka backend several processes share them
// (docs/operations.md#roles).
//
//   api        the public HTTP API, the pages, the progress streams
//   writer     decides commands: owns log partitions and appends their events
//   projector  builds this process's read models from the log
//   pipeline   the process managers that follow events: verification stages, verified data,
//              consolidation, review outcomes, company verification
//   webhooks   webhook deliveries
//   timers     what runs on a clock: session expiry, retention sweeps and the blob collector,
//              audit checkpoints, purges, bulk exports, portfolio runs
//   worker     in a cluster: runs verification jobs from the jobs topic (any number of workers
//              share them); elsewhere the pipeline role runs them in its own process

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace svc::api {

enum class Role : uint8_t { kApi, kWriter, kProjector, kPipeline, kWebhooks, kTimers, kWorker };
inline constexpr Role kAllRoles[] = {Role::kApi,      Role::kWriter, Role::kProjector, Role::kPipeline,
                                     Role::kWebhooks, Role::kTimers, Role::kWorker};

std::string_view RoleName(Role role);

class Roles {
 public:
  static Roles All();
  // A comma-separated list of role names, or "all". Checks that the set can run in one process
  // of the given log backend ("embedded" | "kafka") and Kafka writers ("single" | "group"):
  // - the embedded log belongs to one process: there, every role runs in it;
  // - api, pipeline, webhooks and timers read the read models, so they need projector;
  // - api, pipeline, webhooks and timers issue commands: with one writer (`single`) the process
  //   that issues them decides them, so they need writer; in a cluster (`group`) they travel to
  //   their partition's writer, but pipeline, webhooks and timers act for the partitions their
  //   own process writes (pipeline/manager_runtime.h), so they still need writer;
  // - worker reads the read models and issues commands too; it takes jobs from a cluster's jobs
  //   topic, so it needs `group` and no writer.
  static core::Result<Roles> Parse(const std::vector<std::string>& names, std::string_view backend,
                                   std::string_view writers = "single");

  bool Has(Role role) const { return (bits_ & Bit(role)) != 0; }
  bool IsAll() const { return bits_ == All().bits_; }
  // The names, in kAllRoles order.
  std::vector<std::string> Names() const;

 private:
  static uint8_t Bit(Role role) { return static_cast<uint8_t>(1u << static_cast<unsigned>(role)); }
  uint8_t bits_ = 0;
};

}  // namespace svc::api
