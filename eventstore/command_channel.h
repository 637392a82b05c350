#pragma once
// Commands between the nodes of a cluster (docs/decisions.md, "A cluster on Kafka"): a command
// for log partition p is a record in partition p of `<prefix>.commands`, read by the node the
// writers' group gives p to (eventstore/writer_group.h); that writer's answer is a record in the
// asking node's partition of `<prefix>.replies` (PartitionForTenant of the node's id), which the
// asking node reads from the end it found at start. The payloads are the commands' and replies'
// wire forms (commands/command_codec.h); this file only carries bytes.
//
// Headers: svc_from (the asking node), svc_reply (its replies partition), svc_request (an id
// unique to the asking process), svc_wait_us (how long the asker waits: the writer decides the
// command only within that wait less kCommandTransitMarginMicros, counted on its own clock from
// when it reads the record, so no two nodes' clocks are compared), svc_deadline (µs since the
// epoch on the asker's clock, read only by writers of an older version); a reply has svc_to and
// svc_request. A command whose asker answered 503 was not decided if its record reached the
// writer within the margin; a writer that read it later (paused, or catching up after taking the
// partition over) may decide it, so that 503 means "outcome unknown: retry with the same
// Idempotency-Key" (issue 67), and the late answer is counted
// (svc_cluster_command_late_replies_total).

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "core/metrics.h"
#include "core/status.h"

namespace svc::eventstore {

// The time a command record is allowed to take from its asker to its writer.
inline constexpr int64_t kCommandTransitMarginMicros = 1'000'000;

// A command as the writer's side reads it from the commands topic.
struct CommandRecord {
  uint32_t partition = 0;
  int64_t offset = -1;
  std::string from;
  uint32_t reply_partition = 0;
  std::string request_id;
  int64_t deadline_micros = 0;  // on the reading node's clock
  std::string payload;
};

class CommandChannel {
 public:
  struct Options {
    std::string brokers;
    std::string topic_prefix = "svc";
    uint32_t partitions = 4;
    std::string member;  // this node's id
    std::chrono::milliseconds timeout{30000};
    core::MetricsRegistry* metrics = nullptr;
  };
  using ReplyCallback = std::function<void(core::Result<std::string>)>;

  static core::Result<std::unique_ptr<CommandChannel>> Open(const Options& options);
  ~CommandChannel();

  // Sends `payload` to the writer of `partition`. `reply` runs once, on the channel's thread:
  // with the answer's payload, or kUnavailable when none came within `wait` (the command was then
  // not decided: its deadline passed) or the record could not be written.
  void Send(uint32_t partition, std::string payload, std::chrono::milliseconds wait, ReplyCallback reply);
  // The writer's side: answers `to`.
  void Reply(const CommandRecord& to, std::string payload);
  // Answers every pending send kUnavailable and stops. Idempotent.
  void Close();

  struct Impl;

 private:
  CommandChannel() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace svc::eventstore
