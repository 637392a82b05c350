#include "eventstore/public_sink.h"

#include <librdkafka/rdkafka.h>

#include <set>

#include "core/log.h"
#include "eventstore/kafka_client.h"

namespace svc::eventstore {

namespace {

struct Destroy {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using Handle = std::unique_ptr<rd_kafka_t, Destroy>;

// The checkpoint record's key for a log partition.
std::string PartitionKey(uint32_t p) { return "p" + std::to_string(p); }
constexpr std::string_view kAfterCommitKey = "after-commit";

}  // namespace

struct PublicTopicSink::Impl {
  Options o;
  std::string checkpoint_topic;
  Handle producer;
  std::set<std::string> known_topics;
};

core::Result<std::unique_ptr<PublicTopicSink>> PublicTopicSink::Open(const Options& options) {
  std::unique_ptr<PublicTopicSink> sink(new PublicTopicSink());
  sink->impl_ = std::make_unique<Impl>();
  Impl& im = *sink->impl_;
  im.o = options;
  if (im.o.transactional_id.empty()) im.o.transactional_id = options.topic_prefix + ".public-topics";
  im.checkpoint_topic = CheckpointTopicName(options.topic_prefix);
  SVC_ASSIGN_OR_RETURN(rd_kafka_t * rk, kafka::NewTransactionalProducer(options.brokers, im.o.transactional_id, options.timeout));
  im.producer.reset(rk);
  // One partition: a total order of resume points; compacted: the last one per log partition.
  SVC_RETURN_IF_ERROR(kafka::EnsureTopic(im.producer.get(), im.checkpoint_topic, 1,
                                         {{"cleanup.policy", "compact"}, {"min.compaction.lag.ms", "0"}}, true,
                                         options.timeout, "the public topics' checkpoints"));
  // Fences an earlier sink with this id and completes (aborts) its open transaction, so that what
  // Committed() reads next is final.
  if (rd_kafka_error_t* e = rd_kafka_init_transactions(im.producer.get(), static_cast<int>(options.timeout.count()))) {
    return core::Unavailable("public topics: init_transactions: " + kafka::TakeErrorText(e));
  }
  return sink;
}

std::string PublicTopicSink::CheckpointTopicName(const std::string& topic_prefix) {
  return topic_prefix + ".public-topics.checkpoints";
}

PublicTopicSink::~PublicTopicSink() = default;

const std::string& PublicTopicSink::CheckpointTopic() const { return impl_->checkpoint_topic; }

core::Result<PublicTopicSink::CommittedState> PublicTopicSink::Committed() {
  Impl& im = *impl_;
  int64_t low = 0, high = 0;
  SVC_RETURN_IF_ERROR(kafka::Watermarks(im.producer.get(), im.checkpoint_topic, 0, im.o.timeout, &low, &high));
  CommittedState state;
  auto& out = state.resume_points;
  if (high <= low) return state;
  SVC_ASSIGN_OR_RETURN(kafka::ConsumerPtr consumer, kafka::NewConsumer(im.o.brokers, "svc-public-topics"));
  kafka::WarmTopicMetadata(consumer.get(), im.checkpoint_topic, im.o.timeout);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, im.checkpoint_topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_resp_err_t aerr = rd_kafka_assign(consumer.get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  if (aerr) return kafka::KafkaError("assigning " + im.checkpoint_topic, aerr);
  // `high` is the last stable offset (read_committed): everything before it is decided. Control
  // records (transaction markers) take offsets too, so the end is reached at the partition's EOF.
  const auto deadline = std::chrono::steady_clock::now() + im.o.timeout;
  for (;;) {
    if (std::chrono::steady_clock::now() > deadline) {
      return core::Unavailable("reading " + im.checkpoint_topic + " timed out");
    }
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer.get(), 100);
    if (m == nullptr) continue;
    const bool eof = m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF;
    if (!m->err && m->key != nullptr && m->key_len > 1) {
      const std::string key(static_cast<const char*>(m->key), m->key_len);
      if (key == kAfterCommitKey) {
        state.after_commit = m->payload == nullptr ? "" : std::string(static_cast<const char*>(m->payload), m->len);
      } else try {
        const uint32_t p = static_cast<uint32_t>(std::stoul(key.substr(1)));
        if (m->payload != nullptr) out[p] = std::string(static_cast<const char*>(m->payload), m->len);
      } catch (...) {
        core::LogWarn("public topics: a checkpoint record with a key not ours", {{"key", key}});
      }
    } else if (m->err && !eof) {
      core::LogWarn("public topics: checkpoint read error", {{"error", rd_kafka_message_errstr(m)}});
    }
    const bool done = eof && m->offset >= high;
    rd_kafka_message_destroy(m);
    if (done) break;
  }
  return state;
}

core::Status PublicTopicSink::EnsureTopics(const std::vector<std::string>& topics, bool compacted) {
  Impl& im = *impl_;
  for (const auto& t : topics) {
    if (im.known_topics.contains(t)) continue;
    SVC_RETURN_IF_ERROR(kafka::EnsureTopic(
        im.producer.get(), t, im.o.partitions,
        compacted ? std::map<std::string, std::string>{{"cleanup.policy", "compact"}}
                  : std::map<std::string, std::string>{{"cleanup.policy", "delete"}, {"retention.ms", "-1"}},
        true, im.o.timeout, "--public-topics-partitions"));
    im.known_topics.insert(t);
  }
  return core::Status::Ok();
}

core::Status PublicTopicSink::Publish(const std::vector<Record>& records,
                                      const std::map<uint32_t, std::string>& resume_points,
                                      const std::string& after_commit) {
  Impl& im = *impl_;
  rd_kafka_t* p = im.producer.get();
  if (rd_kafka_error_t* e = rd_kafka_begin_transaction(p)) {
    return core::Unavailable("public topics: begin_transaction: " + kafka::TakeErrorText(e));
  }
  auto produce = [&](const std::string& topic, const std::string& key, const std::string& value,
                     const std::vector<std::pair<std::string, std::string>>& headers,
                     bool tombstone = false) -> core::Status {
    rd_kafka_headers_t* h = rd_kafka_headers_new(headers.size());
    for (const auto& [name, v] : headers) {
      rd_kafka_header_add(h, name.data(), static_cast<ssize_t>(name.size()), v.data(), static_cast<ssize_t>(v.size()));
    }
    for (;;) {
      rd_kafka_resp_err_t err = rd_kafka_producev(
          p, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_KEY(key.data(), key.size()),
          RD_KAFKA_V_VALUE(tombstone ? nullptr : const_cast<char*>(value.data()), tombstone ? 0 : value.size()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
          RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return core::Status::Ok();  // the headers are the message's now
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(p, 10);
        continue;
      }
      rd_kafka_headers_destroy(h);
      return kafka::KafkaError("public topics: producing to " + topic, err);
    }
  };
  core::Status st = core::Status::Ok();
  for (const auto& r : records) {
    st = produce(r.topic, r.key, r.value, r.headers, r.tombstone);
    if (!st.ok()) break;
  }
  if (st.ok()) {
    for (const auto& [partition, checkpoint] : resume_points) {
      st = produce(im.checkpoint_topic, PartitionKey(partition), checkpoint, {});
      if (!st.ok()) break;
    }
  }
  if (st.ok()) st = produce(im.checkpoint_topic, std::string(kAfterCommitKey), after_commit, {});
  if (st.ok()) {
    // Flushes every record, then commits: all of them or none.
    if (rd_kafka_error_t* e = rd_kafka_commit_transaction(p, static_cast<int>(im.o.timeout.count()))) {
      st = core::Unavailable("public topics: commit_transaction: " + kafka::TakeErrorText(e));
    }
  }
  if (!st.ok()) {
    if (rd_kafka_error_t* e = rd_kafka_abort_transaction(p, static_cast<int>(im.o.timeout.count()))) {
      core::LogWarn("public topics: abort_transaction failed", {{"error", kafka::TakeErrorText(e)}});
    }
  }
  return st;
}

}  // namespace svc::eventstore
