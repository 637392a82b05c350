#pragma once
// librdkafka helpers the Kafka parts of the event store share (the log, the writers' group):
// configuration, headers, consumers, topics. Internal to eventstore/: nothing outside includes
// librdkafka. (Extracted when the writers' group became the second user of the log's consumer
// and topic code; the command topic is the third.)

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "core/status.h"
#include "eventstore/command_channel.h"

namespace svc::eventstore::kafka {

// A record of the commands topic as a CommandRecord; false when a header is missing or malformed
// (command_channel.cc).
bool ReadCommandRecord(rd_kafka_message_t* msg, CommandRecord* out);

core::Status KafkaError(const std::string& what, rd_kafka_resp_err_t err);

// rd_kafka_conf_set; false with `*error` set on a bad setting.
bool Set(rd_kafka_conf_t* conf, const char* key, const std::string& value, std::string* error);

// librdkafka's own log lines, through our JSON-lines logger.
void LogLine(const rd_kafka_t* rk, int level, const char* facility, const char* buf);
// librdkafka's debug contexts from SVC_KAFKA_DEBUG (for example "cgrp" or "mock,cgrp"), or null:
// a diagnostic for group rebalances (docs/operations.md). Its lines are logged at info.
const char* DebugContexts();

// A record header's value; empty when absent.
std::string Header(rd_kafka_headers_t* headers, const char* name);

struct ConsumerDeleter {
  void operator()(rd_kafka_t* rk) const {
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }
};
using ConsumerPtr = std::unique_ptr<rd_kafka_t, ConsumerDeleter>;

// A plain producer handle that never sends: metadata, watermarks, topic administration (no
// Nagle, librdkafka's log lines through ours). (Extracted at its third copy: the log, the writers'
// group, `svc kafka-check`.)
core::Result<rd_kafka_t*> NewMetadataClient(const std::string& brokers);

// A read_committed consumer that reports partition ends, keeps no offsets in Kafka and is
// assigned partitions explicitly (its group id is only a name).
core::Result<ConsumerPtr> NewConsumer(const std::string& brokers, const std::string& group);

// Asks the brokers for `topic`'s partition leaders on a consumer about to be assigned partitions
// of it. Assigned a logical offset (the beginning) before it knows a partition's leader, librdkafka
// starts the offset query on a fixed 500 ms retry timer: each new reader waited that long before
// its first record (every projector rebuilt by `svc replay`, every reader opened at a start).
// Best effort: when the brokers do not answer in `timeout`, the assignment still works, later.
void WarmTopicMetadata(rd_kafka_t* rk, const std::string& topic, std::chrono::milliseconds timeout);

// The low and high watermarks of one partition (under read_committed, as the handle's
// isolation.level says, the high one is the last stable offset), within `timeout` whatever the
// brokers do. librdkafka's rd_kafka_query_watermark_offsets bounds only its leader lookup by its
// timeout: against a broker that takes connections and never answers (a cut network) its
// ListOffsets requests are retried for as long as broker states keep changing, which is forever.
// rd_kafka_offsets_for_times (timestamps -2 and -1: earliest and latest) waits at most `timeout`.
core::Status Watermarks(rd_kafka_t* rk, const std::string& topic, int32_t partition, std::chrono::milliseconds timeout,
                        int64_t* low, int64_t* high);

// True when the cluster `rk` talks to is librdkafka's mock cluster (svc dev-broker).
bool IsMockCluster(rd_kafka_t* rk, std::chrono::milliseconds timeout);

// Makes sure `topic` exists with `partitions` partitions: creates it (replication 3 when the
// cluster has three brokers or more, else 1) with `config` when missing; FailedPrecondition when it
// has another partition count (naming `flag`, the setting that gives the count), or when it is
// missing and `create` is false.
core::Status EnsureTopic(rd_kafka_t* rk, const std::string& topic, uint32_t partitions,
                         const std::map<std::string, std::string>& config, bool create,
                         std::chrono::milliseconds timeout, const std::string& flag = "--partitions");

// An idempotent producer (acks=all, no Nagle) whose messages time out after `timeout`, reporting
// each delivery to `delivered` (message opaque: RD_KAFKA_V_OPAQUE). `what` names it in errors.
// (Extracted at its second copy: the command channel, the keys topic.)
core::Result<rd_kafka_t*> NewIdempotentProducer(const std::string& brokers, std::chrono::milliseconds timeout,
                                                int linger_ms,
                                                void (*delivered)(rd_kafka_t*, const rd_kafka_message_t*, void*),
                                                const std::string& what);

// A transactional, idempotent producer (acks=all, no Nagle) with transactional.id `id`, not yet
// initialised (rd_kafka_init_transactions fences an earlier one with the same id). (Extracted at
// its second user: `svc kafka-check`, the public topics' sink; the log's writer units set more.)
core::Result<rd_kafka_t*> NewTransactionalProducer(const std::string& brokers, const std::string& id,
                                                   std::chrono::milliseconds timeout);
// An rd_kafka_error_t's text (" (fatal)" added for a fatal one); the error is destroyed.
std::string TakeErrorText(rd_kafka_error_t* e);

// A member of the consumer group `group` subscribed to `topic`: cooperative-sticky assignment,
// `rebalance(…, opaque)` on every assignment change, no automatic commits or offset stores,
// read_committed, fetches that wait at most `fetch_wait_ms`, heartbeats at a tenth of `session`.
// (Extracted at its second user: the writers' group, the job queue.)
struct GroupMember {
  std::string brokers, group, member, topic;
  std::chrono::milliseconds session{6000};
  void (*rebalance)(rd_kafka_t*, rd_kafka_resp_err_t, rd_kafka_topic_partition_list_t*, void*) = nullptr;
  void* opaque = nullptr;
  int fetch_wait_ms = 10;
};
core::Result<rd_kafka_t*> JoinGroup(const GroupMember& g);

// A group member's session timeout when none is configured: how long a member that died keeps its
// partitions. Real Kafka brokers accept 6 s and up by default (group.min.session.timeout.ms).
// librdkafka's mock cluster (svc dev-broker) waits the session less 1 s before it completes a
// rebalance, so a short session keeps hand-overs quick there; but it also holds a member's first
// join into an empty group for 3 s while its once-a-second session check spares no member waiting
// in JoinGroup. At 2.5 s that check expired such a member about one time in two, and its JoinGroup
// then went unanswered until max.poll.interval.ms (300 s): 4 s leaves the check a whole tick.
inline std::chrono::milliseconds DefaultSessionTimeout(bool mock_cluster) {
  return std::chrono::milliseconds(mock_cluster ? 4000 : 6000);
}

// The fewest replicas any partition of `topic` has (its metadata).
core::Result<int> ReplicationFactor(rd_kafka_t* rk, const std::string& topic, std::chrono::milliseconds timeout);
// A topic's configuration (DescribeConfigs): every entry's name and value. Not for the mock
// cluster, which answers no DescribeConfigs (check IsMockCluster first).
core::Result<std::map<std::string, std::string>> DescribeTopicConfig(rd_kafka_t* rk, const std::string& topic,
                                                                     std::chrono::milliseconds timeout);

// The events topic's settings keep every event it acknowledged (eventstore/kafka_log.h,
// CheckEventTopicConfig, with the topic's replication factor); the mock cluster (svc dev-broker)
// is taken without asking: it answers no DescribeConfigs and keeps every record in memory.
// (kafka_log.cc: the log at every start, and `svc kafka-check`.)
core::Status CheckTopicKeepsEverything(rd_kafka_t* rk, const std::string& topic, std::chrono::milliseconds timeout);

}  // namespace svc::eventstore::kafka
