#pragma once
// The public topics' publisher (docs/events.md): a derived consumer of the log, like the read
// models, the access log and the webhooks. It reads the committed history (on Kafka: fence-filtered
// by the log's reader, so what a fenced writer wrote never appears) and publishes each public
// event to its area's topic of its environment, keyed by the aggregate id, in CloudEvents binary
// mode, with the payload's public form (commands/event_catalogue.h: no sealed value, no blind
// index, no free text) and each person id replaced by the person's pseudonym
// (pipeline/events/pseudonyms.h). Each batch and where it ends in the log are one Kafka transaction
// (eventstore/public_sink.h), and the publisher resumes from the last committed end: every event is
// in its topic exactly once for a read_committed consumer, across crashes and restarts.
//
// With the events, in the same transaction, the state topics (projections/state_records.h): for
// each session, person, review case or company an event of the batch touched, its read-model row
// as it stands once the read models have applied the batch, cut to its state record (or a
// tombstone), on the compacted topic <prefix>.<env>.<area>.state.
//
// One publisher for a deployment: its transactional id fences any other (docs/events.md,
// "Running the publisher"). On the embedded log the node publishes to the Kafka cluster it is
// given (--public-topics-brokers); on the Kafka log to its own brokers.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/metrics.h"
#include "core/status.h"
#include "eventstore/event_log.h"
#include "eventstore/kv_store.h"
#include "eventstore/public_sink.h"
#include "pipeline/events/pseudonyms.h"

namespace svc::projections {
class ProjectionSet;
}

namespace svc::pipeline::events {

// The records one event becomes (none for an internal type or a type the catalogue does not know;
// two for a tenant-level fact, one per environment's topic), every person id in their keys,
// headers and payloads replaced by its pseudonym.
core::Result<std::vector<eventstore::PublicTopicSink::Record>> PublicRecords(const eventstore::RecordedEvent& e,
                                                                             const std::string& topic_prefix,
                                                                             const std::string& public_base_url,
                                                                             PersonPseudonyms& pseudonyms);

// The public topics under `topic_prefix`: <prefix>.<live|test>.<area> for every area.
std::vector<std::string> PublicTopicNames(const std::string& topic_prefix);
// The state topics under `topic_prefix`: <prefix>.<live|test>.<area>.state (compacted).
std::vector<std::string> StateTopicNames(const std::string& topic_prefix);

class PublicTopicsPublisher {
 public:
  struct Options {
    eventstore::EventLog* log = nullptr;
    eventstore::KeyStore* keys = nullptr;  // the persons' data keys and pseudonym keys
    // The read models the state records are read from, and the runners that feed them.
    eventstore::KvStore* views = nullptr;
    projections::ProjectionSet* projections = nullptr;
    std::chrono::milliseconds views_wait{30000};
    eventstore::PublicTopicSink::Options sink;
    std::string public_base_url;
    size_t batch_events = 1000;
    core::MetricsRegistry* metrics = nullptr;
  };
  explicit PublicTopicsPublisher(Options options);
  ~PublicTopicsPublisher();

  // Opens the sink and the log's reader at the committed resume points, then publishes in the
  // background; a failure (the brokers away, a fenced sink) is retried from the committed points.
  void Start();
  void Stop();
  // Waits until every event the log held when called is committed to the public topics (or
  // `timeout`): for tests and the operator (POST /admin/public-topics/wait-caught-up).
  bool WaitCaughtUp(std::chrono::milliseconds timeout);

 private:
  core::Status Connect();
  core::Status PublishOnce();
  core::Status DestroyAfterCommit(const std::string& after_commit);
  // The state records of the subjects `events` touched (after the read models applied them).
  core::Status AppendStates(const std::vector<eventstore::RecordedEvent>& events,
                            std::vector<eventstore::PublicTopicSink::Record>& records);
  void Loop();

  Options o_;
  std::unique_ptr<eventstore::PublicTopicSink> sink_;
  std::unique_ptr<eventstore::LogReader> reader_;
  PersonPseudonyms pseudonyms_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  std::vector<uint64_t> committed_;  // next offset per log partition, as last committed (mu_)
  core::Counter* published_ = nullptr;
  core::Counter* transactions_ = nullptr;
  core::Counter* failures_ = nullptr;
};

}  // namespace svc::pipeline::events
