#pragma once
// A Kafka-protocol broker for development and CI: librdkafka's mock cluster (rdkafka_mock.h)
// on loopback ports, with the events, commands, replies, keys and jobs topics created. Any Kafka client (kcat, confluent-kafka,
// librdkafka) can talk to it. It keeps every record, in memory (the mock cluster's own limit of
// 5 MiB per partition is lifted; see KeepEverything in the .cc). It is not a production broker:
// production points --kafka-brokers at a real Kafka or Redpanda cluster.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace svc::eventstore {

class KafkaDevBroker {
 public:
  struct Options {
    int brokers = 3;
    std::string topic_prefix = "svc";
    int partitions = 4;
    int job_partitions = 16;  // <prefix>.jobs, the verification jobs (eventstore/job_queue.h)
    // More topics made at start (name, partitions), each keeping every record: the mock cluster
    // answers no CreateTopics (the public event topics, docs/events.md).
    std::vector<std::pair<std::string, int>> more_topics;
  };
  static core::Result<std::unique_ptr<KafkaDevBroker>> Start(const Options& options);
  ~KafkaDevBroker();

  std::string Bootstraps() const;

  // Fault injection, for tests (one line of the dev-broker control protocol):
  //   produce-errors N ERROR_NAME    the next N Produce requests fail with ERROR_NAME
  //   endtxn-errors N ERROR_NAME     the next N EndTxn requests fail
  //   broker-down ID | broker-up ID
  // ERROR_NAME is a Kafka error name as librdkafka spells it without the prefix
  // (e.g. NOT_LEADER_FOR_PARTITION, REQUEST_TIMED_OUT, COORDINATOR_NOT_AVAILABLE).
  core::Status Control(const std::string& line);

 private:
  KafkaDevBroker() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace svc::eventstore
