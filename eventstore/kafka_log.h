#pragma once
// The Kafka log (librdkafka): topic `<prefix>.events`, one event per record, record key = tenant
// id, partition = PartitionForTenant (identical to the embedded log), value = the JSON envelope,
// CloudEvents Kafka-binding headers (binary mode) so any CloudEvents-aware client can read it.
//
// Writing: one transactional, idempotent producer (acks=all) per writer, with group commit: the
// appender thread takes every queued append and writes them in ONE transaction, so the cost of a
// transaction (about 600/s on its own) is shared by many commands. A second writer with the same
// transactional.id fences the first, whose next commit fails: it stops (fail-stop) and a restart
// recovers from the log.
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
    std::string transactional_id = "svc-writer";
    bool create_topic = true;            // create the topic when missing (replication 3, else 1)
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
  core::Result<std::vector<uint64_t>> EndOffsets() override;
  void Close() override;
  std::string BackendName() const override { return "kafka"; }
  std::string Topic() const { return options_.topic_prefix + ".events"; }

  struct Impl;

 private:
  explicit KafkaLog(const Options& options);
  void AppenderLoop();
  Options options_;
  std::unique_ptr<Impl> impl_;
};

// Whether the events topic's configuration (as DescribeConfigs gives it) keeps every event:
// retention.ms=-1, retention.bytes=-1 (or unset), cleanup.policy without compact. FailedPrecondition
// naming the setting and the value to set otherwise; a warning for min.insync.replicas=1.
core::Status CheckEventTopicConfig(const std::string& topic, const std::map<std::string, std::string>& config);

// Record headers of the CloudEvents Kafka protocol binding (binary content mode).
inline constexpr const char* kSeqHeader = "ce_svcseq";

}  // namespace svc::eventstore
