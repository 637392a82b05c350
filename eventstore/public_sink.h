#pragma once
// The Kafka side of the public event topics (docs/events.md): a transactional producer that
// writes a batch of public records and, in the same transaction, where the batch ends in the
// service's log (a resume point per log partition, in the compacted topic
// `<prefix>.public-topics.checkpoints`). A consumer reading with isolation.level=read_committed
// sees a batch whole or not at all, and the publisher resumes from the last committed resume
// points: every event of the log is in its public topic exactly once, whatever crashed where.
//
// Opening the sink initialises its transactional id, which fences an earlier sink with the same
// id (a publisher that lost its node, or its leadership) and aborts its open transaction. Internal
// to eventstore/ as every librdkafka user; pipeline/events/publisher.h decides what is published.

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace svc::eventstore {

class PublicTopicSink {
 public:
  struct Options {
    std::string brokers;
    std::string topic_prefix = "svc";
    std::string transactional_id;  // default: <prefix>.public-topics
    uint32_t partitions = 4;       // of each public topic the sink creates
    std::chrono::milliseconds timeout{30000};
  };
  struct Record {
    std::string topic;
    std::string key;
    std::string value;
    std::vector<std::pair<std::string, std::string>> headers;
    bool tombstone = false;  // a null value (on a compacted topic: the key's state is gone)
  };

  static core::Result<std::unique_ptr<PublicTopicSink>> Open(const Options& options);
  // The topic of the resume points under `topic_prefix`.
  static std::string CheckpointTopicName(const std::string& topic_prefix);
  ~PublicTopicSink();

  // What the last committed transaction left: its resume points (log partition -> the checkpoint
  // as EncodeCheckpoint wrote it; empty before the first), and the work it named to be done once
  // it is committed (the publisher's: the pseudonym keys to destroy), to be finished on a restart.
  struct CommittedState {
    std::map<uint32_t, std::string> resume_points;
    std::string after_commit;
  };
  core::Result<CommittedState> Committed();
  // Creates the topics that do not exist yet: cleanup.policy=delete, retention.ms=-1 (the history
  // is kept), or with `compacted` cleanup.policy=compact (the latest record per key is kept).
  core::Status EnsureTopics(const std::vector<std::string>& topics, bool compacted = false);
  // One transaction: `records` in order, then `resume_points` and `after_commit` (kept under the
  // key "after-commit" of the checkpoints topic, replaced by every transaction). All of it is
  // committed, or none (an error: open the sink again and resume from Committed()).
  core::Status Publish(const std::vector<Record>& records, const std::map<uint32_t, std::string>& resume_points,
                       const std::string& after_commit = "");

  const std::string& CheckpointTopic() const;

  struct Impl;

 private:
  PublicTopicSink() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace svc::eventstore
