#pragma once
// Work shared by any number of worker processes (issue 34, docs/decisions.md "Verification work
// on workers"): a job is a record of the topic `<prefix>.<name>` (for verifications
// `<prefix>.jobs`), keyed by what it works on; the workers are the members of the consumer group
// `<prefix>-<name>` on it. Kafka's group assignment says which worker runs which partition's jobs,
// so a job runs on one worker at a time, and its lease is the group's session: a worker that dies
// keeps its partitions until the session times out (`session_timeout`), then another member is
// given them and runs their unfinished jobs again from the group's committed offset.
//
// - Publish: any node hands jobs to the topic (an idempotent producer; it returns once the broker
//   acknowledged every record). A job's partition is PartitionForTenant(key): the same key always
//   lands in the same partition, so two jobs on one thing never run on two workers at once.
// - Consume: the records of the partitions this member is given go to `job`, in order, on the
//   queue's thread (hand them on quickly). `Done(partition, offset)` says a job ended; the offset
//   the group keeps for a partition is its first job not done, so a job that never ends (its worker
//   died, it was stopped) is given again, and one that ended is not.
// - Giving a partition back: `revoked(p, lost)` runs on the queue's thread before the member tells
//   the group it let p go, and returns once p's jobs have stopped (the member then commits what
//   ended): only then can another member get p. lost = true when the group already gave p away
//   (this member's session expired).
// - Close: every partition is given back, then the member leaves the group, which reassigns them
//   at once.
//
// Jobs are at least once: a job given again may have run partly. Whoever runs one makes each of
// its effects idempotent (for verifications: each stage and the verdict are recorded once per
// submission by the session aggregate).

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/metrics.h"
#include "core/status.h"

namespace svc::eventstore {

struct JobRecord {
  uint32_t partition = 0;
  int64_t offset = -1;
  std::string key;
  std::string payload;
};

class JobQueue {
 public:
  struct Options {
    std::string brokers;
    std::string topic_prefix = "svc";
    std::string name = "jobs";  // topic <prefix>.<name>, group <prefix>-<name>
    uint32_t partitions = 4;
    std::string partitions_flag = "--partitions";  // named when the topic has another count
    std::string member;  // the node's id: the member's client.id
    // 0: kafka::DefaultSessionTimeout (6000 ms on a Kafka cluster, 4000 ms on svc dev-broker).
    std::chrono::milliseconds session_timeout{0};
    std::chrono::milliseconds timeout{30000};
    bool create_topic = true;
    core::MetricsRegistry* metrics = nullptr;
  };
  // Creates the topic when missing; publishes from now on. Consumes nothing until Consume.
  static core::Result<std::unique_ptr<JobQueue>> Open(const Options& options);
  ~JobQueue();

  // Writes the jobs (key, payload) and waits until the broker acknowledged them all.
  core::Status Publish(const std::vector<std::pair<std::string, std::string>>& jobs);

  // Joins the workers' group: from now on this member runs jobs. Call once.
  core::Status Consume(std::function<void(JobRecord)> job, std::function<void(uint32_t partition, bool lost)> revoked);
  // A job this member was given ended (whatever its outcome: it will not be given again).
  void Done(uint32_t partition, int64_t offset);
  // The partitions this member runs (ascending).
  std::vector<uint32_t> Owned() const;
  std::chrono::milliseconds session_timeout() const;
  // Gives every partition back and leaves the group; publishing goes on. Idempotent.
  void Leave();
  // Leave, then stops publishing. Idempotent.
  void Close();

  struct Impl;

 private:
  JobQueue() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace svc::eventstore
