#pragma once
// Which node decides which partition's commands, in a cluster: the Kafka consumer group
// `<prefix>-writers` on the commands topic `<prefix>.commands` (as many partitions as the events
// topic, same partitioner), with cooperative-sticky assignment. The partitions the group assigns
// to a member are the ones it writes (docs/decisions.md, "A cluster on Kafka").
//
// - Taking a partition: `take(p)` runs (fence the earlier writer, recover the write model) before
//   the member counts p as its own, and says where p's commands resume in the commands topic. A
//   take that fails is retried every second until it succeeds or the group moves p elsewhere;
//   meanwhile p's commands wait in the topic.
// - Commands: the records of the partitions taken, in order, go to `command`, on the group's
//   thread (it must hand them on quickly).
// - Giving one back: `release(p, lost)` runs before the member tells the group it let p go:
//   lost = false on a clean rebalance (the member stops deciding p, and only then can another
//   member get it), true when the group already gave p to another member (this member's session
//   expired): the newer owner's fence stops anything this member still writes.
// - Leave (and the destructor): every partition is released, then the member leaves the group,
//   which reassigns them at once (no session timeout to wait out).
//
// Session timeout: how long a member that died (kill -9, cut off) keeps its partitions
// (kafka::DefaultSessionTimeout: 6 s on Kafka, 4 s on svc dev-broker, and why).

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "eventstore/command_channel.h"

namespace svc::eventstore {

class WriterGroup {
 public:
  struct Options {
    std::string brokers;
    std::string topic_prefix = "svc";  // group <prefix>-writers on topic <prefix>.commands
    uint32_t partitions = 4;
    std::string member;  // the node's id: the member's client.id
    // 0: kafka::DefaultSessionTimeout (6000 ms on a Kafka cluster, 4000 ms on svc dev-broker).
    std::chrono::milliseconds session_timeout{0};
    std::chrono::milliseconds timeout{30000};
    bool create_topic = true;
    // Run on the group's thread, one partition at a time. `take` answers the offset of the commands
    // topic where p's commands resume (-2: its beginning).
    std::function<core::Result<int64_t>(uint32_t partition)> take;
    std::function<void(uint32_t partition, bool lost)> release;
    std::function<void(CommandRecord record)> command;
  };

  // Creates the commands topic when missing and joins the group; partitions arrive later (the
  // group's first rebalance).
  static core::Result<std::unique_ptr<WriterGroup>> Join(const Options& options);
  ~WriterGroup();

  // Releases every partition and leaves the group. Idempotent.
  void Leave();
  // Another writer took `partition` over (its fence refused this node's append) though the group
  // has not told this member yet (a member whose rejoin hangs, as on the dev broker's mock
  // coordinator): the member stops counting it as its own and releases it, on the group's
  // thread, and does not take it again until the group assigns it anew. Any thread; idempotent.
  void LetGo(uint32_t partition);
  // The partitions taken (ascending).
  std::vector<uint32_t> Owned() const;
  // The session timeout in force.
  std::chrono::milliseconds session_timeout() const;

  struct Impl;

 private:
  WriterGroup() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace svc::eventstore
