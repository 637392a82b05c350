#pragma once
// The key store of a cluster on Kafka (docs/decisions.md, "Keys every node can open";
// docs/operations.md#keys-on-a-cluster): a compacted topic `<prefix>.keys` with one partition (a
// total order; keys are small), record key = the key's name, value = the key wrapped exactly as
// the key store keeps it (under the master key's KEK, the name as associated data), a tombstone
// for a destroyed key. No plaintext key and no personal data leave a node.
//
// Every node applies the topic to its own key store, in order, from the offset kept with its rows
// (eventstore/key_store.h: first wins). A node's first attach reads the whole topic, refuses a
// directory whose keys differ from the cluster's (another cluster, another master key), and
// publishes the keys only it holds (a single node becoming a cluster). A node away for longer
// than the topic keeps tombstones (delete.retention.ms) rebuilds its rows from the topic, since a
// tombstone it never saw may be gone.
//
// The topic's settings bound how long a destroyed key's wrapped form can stay in it: the service
// creates it with cleanup.policy=compact and max.compaction.lag.ms=86400000, and refuses at start
// a topic that could delete live keys (a delete policy) or keep destroyed ones without bound (no
// max.compaction.lag.ms). librdkafka's mock cluster (svc dev-broker) neither compacts nor
// describes configurations: nothing is checked there.

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "core/clock.h"
#include "core/metrics.h"
#include "core/status.h"
#include "eventstore/key_store.h"

namespace svc::eventstore {

class KafkaKeyTopic final : public KeyReplica {
 public:
  struct Options {
    std::string brokers;
    std::string topic_prefix = "svc";
    std::chrono::milliseconds timeout{30000};
    core::Clock* clock = nullptr;  // when the node last saw the topic (the rebuild rule); system clock when null
    core::MetricsRegistry* metrics = nullptr;
  };

  // Brings `keys` in line with the topic, then keeps applying it; `keys` owns the replica from
  // here (KeyStore::SetReplica). Returns once this node has applied everything the topic held.
  static core::Status Attach(const Options& options, KeyStore* keys);
  ~KafkaKeyTopic() override;

  core::Status Publish(const std::vector<KeyRecord>& records) override;
  core::Status CatchUp() override;
  void Stop() override;

  struct Impl;

 private:
  KafkaKeyTopic() = default;
  std::unique_ptr<Impl> impl_;
};

// The keys topic's settings (DescribeConfigs) checked: cleanup.policy exactly compact, and a bound
// on how long a destroyed key lingers (max.compaction.lag.ms set). Returns that bound in ms.
core::Result<int64_t> CheckKeyTopicConfig(const std::string& topic, const std::map<std::string, std::string>& config);

}  // namespace svc::eventstore
