#pragma once
// `svc kafka-check`: what the Kafka log relies on, checked against an operator's own brokers
// (issue 67). Each check answers pass, fail, or not_answerable (the broker cannot show it: the
// development broker, librdkafka's mock cluster, fences no producer, hides no aborted record and
// answers no DescribeConfigs), with what was seen.
//
//   events_topic          <prefix>.events keeps every event it acknowledged (retention, cleanup,
//                         unclean leader election, min.insync.replicas against its replicas):
//                         what `svc serve` refuses to start without
//   producer_fencing      a second producer with the same transactional.id fences the first: the
//                         first's open transaction cannot commit (how a take-over stops a zombie)
//   read_committed        a read_committed consumer never sees a record of an aborted transaction
//                         (how readers skip a fenced writer's last group)
//
// The last two write to a scratch topic of their own, <prefix>.kafka-check (one partition,
// created when missing, records kept an hour), never to the events topic.

#include <chrono>
#include <string>
#include <vector>

#include "core/status.h"

namespace svc::eventstore {

struct KafkaCheck {
  std::string name;
  std::string outcome;  // pass | fail | not_answerable
  std::string detail;
};

struct KafkaCheckOptions {
  std::string brokers;
  std::string topic_prefix = "svc";
  std::chrono::milliseconds timeout{20000};
};

// Runs every check; an error only when the brokers cannot be reached at all.
core::Result<std::vector<KafkaCheck>> RunKafkaChecks(const KafkaCheckOptions& options);

}  // namespace svc::eventstore
