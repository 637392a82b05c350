#pragma once
// The Kafka log (librdkafka): topic `<prefix>.events`, one event per record, record key = tenant
// id, partition = PartitionForTenant (identical to the embedded log), value = the JSON envelope,
// CloudEvents Kafka-binding headers (binary mode) so any CloudEvents-aware client can read it.
//
// Writing: a writer unit is one transactional, idempotent producer (acks=all) and the partitions
// it writes, with group commit: its appender thread takes every queued append and writes them in
// ONE transaction, so the cost of a transaction (about 600/s on its own) is shared by many
// commands. One process writes every partition through one unit (the default, `single`), or, in a
// cluster, a node writes the partitions the writers' group gives it, one unit each (TakeOver,
// Release; eventstore/writer_group.h). A unit opens with a fence: a record of a higher writer
// epoch in each of its partitions. Readers drop whatever an older writer of those partitions
// writes after it, and the older writer finds the fence before acknowledging its next group and
// stops (fail-stop; the partition is recovered from the log where it is taken over next). A
// second producer with the same transactional.id is fenced by Kafka itself as well.
//
// Positions: each record carries `ce_svcseq`, a per-partition sequence assigned by the single
// writer, contiguous from 0; LogPosition.offset is that sequence on this backend, exactly as on
// the embedded one. Readers are `read_committed` consumers (assign, no group rebalancing) that
// also drop any sequence they have already seen, so a record of an aborted transaction that a
// broker shows anyway (librdkafka's mock cluster does not filter aborted transactions) is never
// applied twice. Consumers keep their Kafka offsets in their own RocksDB checkpoints
// (PartitionCheckpoint.backend_cursor), not in Kafka, so apply + offset is one atomic batch.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/metrics.h"
#include "eventstore/event_log.h"

namespace svc::eventstore {

class KafkaLog final : public EventLog {
 public:
  struct Options {
    std::string brokers;                 // bootstrap servers
    std::string topic_prefix = "svc";    // topic is <prefix>.events
    uint32_t partitions = 4;             // must equal the topic's partition count
    std::string transactional_id = "svc-writer";  // write_all's unit; svc serve passes <prefix>-writer
    // write_all: a topic whose last writer of a partition was a writer group's unit (TakeOver with
    // group) is refused unless this is set: a single writer would fence a running cluster (issue 67).
    bool take_over_group = false;
    bool create_topic = true;            // create the topic when missing (replication 3, else 1)
    // True: Open takes over every partition in one writer unit with `transactional_id` (one
    // process writes the log). False: Open writes nothing; the partitions this process writes are
    // the ones it takes over (a cluster's writers, or none: a process that only reads).
    bool write_all = true;
    int transaction_retries = 5;         // abort-and-retry attempts for one group
    std::chrono::milliseconds timeout{30000};
    core::MetricsRegistry* metrics = nullptr;
  };

  static core::Result<std::unique_ptr<KafkaLog>> Open(const Options& options);
  ~KafkaLog() override;

  uint32_t PartitionCount() const override { return options_.partitions; }
  void Append(uint32_t partition, std::vector<EventEnvelope> events,
              AppendCallback done) override;
  core::Result<std::unique_ptr<LogReader>> OpenReader(
      std::string consumer_name, std::vector<PartitionCheckpoint> start) override;
  core::Result<std::unique_ptr<LogReader>> OpenPartitionReader(std::string consumer_name,
                                                              std::vector<PartitionCheckpoint> start,
                                                              const std::vector<uint32_t>& partitions) override;
  core::Result<std::vector<uint64_t>> EndOffsets() override;
  // One partition's end: from memory when this process writes it, else from the topic within
  // `limit` (the watermark, then the tail read for the last event's sequence).
  core::Result<uint64_t> EndOffset(uint32_t partition, std::chrono::milliseconds limit) override;
  std::vector<uint32_t> OwnedPartitions() const override;
  bool Owns(uint32_t partition) const override;
  // EndOffsets: the partitions this process writes are answered from memory; the others are read
  // from the topic (their tails), so a reading node's answer is the log's end as of the call.

  // Starts writing `partitions` (none of them written here yet) as one writer unit whose producer
  // has `transactional_id`: fences their earlier writers and finds their ends. On failure nothing
  // is taken over.
  // `group`: a writer group's unit (its records say so, ce_svcwriters: group); else the single
  // writer of every partition (Open with write_all), refused where a group wrote last.
  core::Status TakeOver(const std::vector<uint32_t>& partitions, const std::string& transactional_id,
                        bool group = true);
  // Stops writing `partitions` (each unit that writes one of them stops as a whole). `drain`: the
  // appends already queued are written first (a clean hand-over: the partition is still ours);
  // else they fail kUnavailable (the partition was lost: a newer writer's fence would refuse them).
  void Release(const std::vector<uint32_t>& partitions, bool drain);
  void Close() override;
  std::string BackendName() const override { return "kafka"; }
  std::string Topic() const { return options_.topic_prefix + ".events"; }

  struct Impl;
  struct Unit;

 private:
  explicit KafkaLog(const Options& options);
  void AppenderLoop(Unit& unit);
  std::shared_ptr<Unit> UnitOf(uint32_t partition) const;
  Options options_;
  std::unique_ptr<Impl> impl_;
};

// Whether the events topic's configuration (as DescribeConfigs gives it) keeps every event it
// acknowledged: retention.ms=-1, retention.bytes=-1 (or unset), cleanup.policy without compact,
// unclean.leader.election.enable not true (an out-of-sync replica made leader drops what the old
// leader acknowledged), and, where the topic has two replicas or more (`replication_factor`, the
// fewest of any partition; 0 = unknown), min.insync.replicas of 2 or more (acks=all is
// acknowledged by that many). FailedPrecondition naming the setting and the value to set
// otherwise; a warning for a topic of one replica (a development broker: it is lost with its disk).
core::Status CheckEventTopicConfig(const std::string& topic, const std::map<std::string, std::string>& config,
                                   int replication_factor = 0);

// One record of a partition's tail as a take-over reads it (read_committed): a fence or an event,
// its writer epoch, its sequence.
struct TailRecord {
  int64_t offset;
  bool fence;
  uint64_t epoch;
  bool has_seq;
  uint64_t seq;
  bool group = false;  // written by a writer group's unit
};
// What one partition's tail window [max(low, high - window), high) tells a take-over, given the
// highest epoch over the unit's windows: the next sequence to assign (found_seq: an accepted
// event is in it) and whether the window must widen (it lacks a record of `max_epoch` or an
// accepted event, and does not reach the partition's start). An empty window widens too.
struct TailVerdict {
  uint64_t next_seq = 0;
  bool found_seq = false;
  bool widen = false;
  bool group = false;  // the partition's current writer (its last fence or accepted event) is a group's unit
};
TailVerdict JudgeTail(const std::vector<TailRecord>& records, uint64_t max_epoch, int64_t low, int64_t high,
                      int64_t window);

// Record headers of the CloudEvents Kafka protocol binding (binary content mode).
inline constexpr const char* kSeqHeader = "ce_svcseq";

}  // namespace svc::eventstore
