#include "eventstore/key_topic.h"

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/executor.h"
#include "core/log.h"
#include "eventstore/kafka_client.h"

namespace svc::eventstore {

namespace {

using Ms = std::chrono::milliseconds;
constexpr size_t kApplyBatch = 512;
constexpr int64_t kSeenEveryMicros = 60LL * 1000 * 1000;
// Kafka's default when max.compaction.lag.ms is not set: no bound.
constexpr std::string_view kUnbounded = "9223372036854775807";

// One Publish call's records on their way to the broker.
struct Ticket {
  std::mutex mu;
  std::condition_variable cv;
  size_t left = 0;
  int64_t last_offset = -1;
  std::string error;
};

void KeyDelivered(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
  auto* held = static_cast<std::shared_ptr<Ticket>*>(msg->_private);
  if (held == nullptr) return;  // a re-assertion: nobody waits for it
  Ticket& t = **held;
  {
    std::lock_guard lock(t.mu);
    if (msg->err) {
      if (t.error.empty()) t.error = rd_kafka_err2str(msg->err);
    } else {
      t.last_offset = std::max<int64_t>(t.last_offset, msg->offset);
    }
    --t.left;
  }
  t.cv.notify_all();
  delete held;
}

}  // namespace

struct KafkaKeyTopic::Impl {
  Options o;
  std::string topic;
  KeyStore* keys = nullptr;
  rd_kafka_t* producer = nullptr;
  kafka::ConsumerPtr consumer;
  std::thread applier, reporter;
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::condition_variable cv;
  int64_t applied = 0;  // the offset after the last record applied
  core::Status failed;
  core::Counter* published = nullptr;
  core::Counter* applied_records = nullptr;
  core::Counter* lost = nullptr;

  int64_t NowMicros() const { return o.clock != nullptr ? o.clock->Now().micros : core::SystemClock().Now().micros; }

  core::Status WaitApplied(int64_t offset) {
    std::unique_lock lock(mu);
    const bool done = cv.wait_for(lock, o.timeout, [&] { return !failed.ok() || applied >= offset || stop.load(); });
    if (!failed.ok()) return failed;
    if (stop.load()) return core::Unavailable("the key store is stopping");
    if (!done) {
      return core::Unavailable("the cluster's keys topic was not applied in time (is the Kafka cluster reachable?)",
                               "SERVICE_UNAVAILABLE");
    }
    return core::Status::Ok();
  }

  // Appends without waiting; `ticket` (may be null) counts the deliveries.
  core::Status Produce(const KeyRecord& r, const std::shared_ptr<Ticket>& ticket) {
    auto* held = ticket ? new std::shared_ptr<Ticket>(ticket) : nullptr;
    const void* value = r.wrapped.has_value() ? r.wrapped->data() : nullptr;
    const size_t len = r.wrapped.has_value() ? r.wrapped->size() : 0;
    rd_kafka_resp_err_t e = rd_kafka_producev(
        producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY(r.name.data(), r.name.size()), RD_KAFKA_V_VALUE(const_cast<void*>(value), len),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(held), RD_KAFKA_V_END);
    if (e) {
      delete held;
      return kafka::KafkaError("appending to " + topic, e);
    }
    if (published != nullptr) published->Add();
    return core::Status::Ok();
  }

  // Reads records from the consumer's position until `end`; for the first attach or a rebuild.
  core::Result<std::vector<KeyRecord>> ReadUntil(int64_t end) {
    std::vector<KeyRecord> out;
    int64_t next = 0;
    const auto deadline = std::chrono::steady_clock::now() + o.timeout;
    while (next < end) {
      if (std::chrono::steady_clock::now() > deadline) {
        return core::Unavailable("reading " + topic + " from its start timed out");
      }
      rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer.get(), 100);
      if (m == nullptr) continue;
      if (!m->err) {
        out.push_back(ToRecord(m));
        next = m->offset + 1;
      } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        core::LogWarn("keys topic read error", {{"error", rd_kafka_message_errstr(m)}});
      } else if (m->offset >= end) {
        next = end;
      }
      rd_kafka_message_destroy(m);
    }
    return out;
  }

  static KeyRecord ToRecord(rd_kafka_message_t* m) {
    KeyRecord r;
    r.name.assign(static_cast<const char*>(m->key), m->key_len);
    if (m->payload != nullptr) r.wrapped = std::string(static_cast<const char*>(m->payload), m->len);
    return r;
  }

  void Loop() {
    int64_t last_seen = 0;
    while (!stop.load()) {
      std::vector<KeyRecord> records;
      int64_t next = -1;
      bool at_end = false;
      rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer.get(), 50);
      while (m != nullptr) {
        if (!m->err) {
          records.push_back(ToRecord(m));
          next = m->offset + 1;
        } else if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
          at_end = true;
        } else {
          core::LogWarn("keys topic read error", {{"error", rd_kafka_message_errstr(m)}});
        }
        rd_kafka_message_destroy(m);
        if (records.size() >= kApplyBatch) break;
        m = rd_kafka_consumer_poll(consumer.get(), 0);
      }
      if (!records.empty()) {
        std::vector<KeyRecord> reassert;
        core::Status st = keys->ApplyReplicated(records, next, &reassert);
        if (!st.ok()) {
          core::LogError("cannot apply the cluster's keys topic", {{"error", st.ToString()}});
          std::lock_guard lock(mu);
          failed = st;
          cv.notify_all();
          return;
        }
        if (applied_records != nullptr) applied_records->Add(static_cast<int64_t>(records.size()));
        {
          std::lock_guard lock(mu);
          applied = next;
        }
        cv.notify_all();
        // A key that lost to an earlier one of its name is published again, so that compaction
        // (which keeps a name's last record) keeps the winner. Every node that sees the loss does
        // so; the copies are the same key.
        for (const auto& r : reassert) {
          if (lost != nullptr) lost->Add();
          if (auto e = Produce(r, nullptr); !e.ok()) core::LogWarn("re-publishing a key failed", {{"error", e.ToString()}});
        }
      }
      if (at_end) {
        const int64_t now = NowMicros();
        if (now - last_seen >= kSeenEveryMicros) {
          if (keys->MarkReplicaSeen(now).ok()) last_seen = now;
        }
      }
    }
  }
};

core::Result<int64_t> CheckKeyTopicConfig(const std::string& topic, const std::map<std::string, std::string>& config) {
  auto value = [&config](const std::string& k) {
    auto it = config.find(k);
    return it == config.end() ? std::string("(unset)") : it->second;
  };
  auto refuse = [&](const std::string& setting, const std::string& want, const std::string& why) {
    return core::FailedPrecondition("topic " + topic + " has " + setting + "=" + value(setting) + ": " + why +
                                    ". Set " + setting + "=" + want + " (kafka-configs --alter --entity-type topics "
                                    "--entity-name " + topic + " --add-config " + setting + "=" + want +
                                    "; docs/operations.md#keys-on-a-cluster)");
  };
  if (value("cleanup.policy") != "compact") {
    return refuse("cleanup.policy", "compact",
                  "the keys topic keeps each key's last record for good (a delete policy would drop live keys, "
                  "and the data sealed under them with them)");
  }
  const std::string lag = value("max.compaction.lag.ms");
  int64_t bound = -1;
  try {
    if (lag != "(unset)" && lag != kUnbounded) bound = std::stoll(lag);
  } catch (...) {
  }
  if (bound <= 0) {
    return refuse("max.compaction.lag.ms", "86400000",
                  "without it a destroyed key's wrapped form may stay in the topic without bound");
  }
  return bound;
}

core::Status KafkaKeyTopic::Attach(const Options& options, KeyStore* keys) {
  std::unique_ptr<KafkaKeyTopic> t(new KafkaKeyTopic());
  t->impl_ = std::make_unique<Impl>();
  Impl& im = *t->impl_;
  im.o = options;
  im.keys = keys;
  im.topic = options.topic_prefix + ".keys";
  SVC_ASSIGN_OR_RETURN(im.producer,
                       kafka::NewIdempotentProducer(options.brokers, options.timeout, 2, KeyDelivered, "kafka keys topic"));
  SVC_RETURN_IF_ERROR(kafka::EnsureTopic(im.producer, im.topic, 1,
                                         {{"cleanup.policy", "compact"},
                                          {"max.compaction.lag.ms", "86400000"},
                                          {"min.compaction.lag.ms", "0"},
                                          {"segment.ms", "3600000"},
                                          {"delete.retention.ms", "86400000"},
                                          {"min.cleanable.dirty.ratio", "0.01"}},
                                         true, options.timeout));
  int64_t delete_retention_ms = -1;
  if (!kafka::IsMockCluster(im.producer, options.timeout)) {
    auto config = kafka::DescribeTopicConfig(im.producer, im.topic, options.timeout);
    if (!config.ok()) {
      return core::FailedPrecondition("cannot read the configuration of topic " + im.topic + " (" +
                                      config.status().message() +
                                      "); grant DescribeConfigs on it (docs/operations.md#keys-on-a-cluster)");
    }
    SVC_ASSIGN_OR_RETURN(int64_t bound, CheckKeyTopicConfig(im.topic, *config));
    try {
      delete_retention_ms = std::stoll((*config)["delete.retention.ms"]);
    } catch (...) {
      delete_retention_ms = 86400000;  // Kafka's default
    }
    core::LogInfo("keys topic: a destroyed key's wrapped form leaves it within max.compaction.lag.ms",
                  {{"topic", im.topic}, {"maxCompactionLagMs", bound}, {"deleteRetentionMs", delete_retention_ms}});
  }
  if (options.metrics != nullptr) {
    im.published = &options.metrics->GetCounter("svc_cluster_keys_published_total",
                                                "Records this node appended to the cluster's keys topic");
    im.applied_records = &options.metrics->GetCounter("svc_cluster_keys_applied_total",
                                                      "Records of the cluster's keys topic applied to this node's key store");
    im.lost = &options.metrics->GetCounter("svc_cluster_keys_conflicts_total",
                                           "Keys created at once on two nodes under one name (the first kept)");
  }

  int64_t low = 0, high = 0;
  SVC_RETURN_IF_ERROR(kafka::Watermarks(im.producer, im.topic, 0, options.timeout, &low, &high));
  SVC_ASSIGN_OR_RETURN(auto state, keys->LoadReplicaState());
  bool rebuild = false, adopt = false;
  if (!state.has_value()) {
    adopt = true;  // the first attach: this directory's own keys join the topic
  } else if (state->next_offset > high) {
    // The topic is behind what this node applied: it was deleted and made again. The keys this
    // directory holds are published again (a key destroyed meanwhile stays destroyed: its
    // tombstone was applied here).
    core::LogWarn("the keys topic holds less than this node applied: publishing this node's keys again",
                  {{"topic", im.topic}, {"applied", state->next_offset}, {"end", high}});
    adopt = true;
  } else if (state->next_offset < low) {
    rebuild = true;
  } else if (delete_retention_ms > 0 &&
             im.NowMicros() - state->seen_micros > delete_retention_ms * 1000 / 2) {
    // Away long enough that a tombstone may have been compacted away before this node read it.
    core::LogWarn("this node was away longer than the keys topic keeps tombstones: rebuilding its keys from the topic",
                  {{"topic", im.topic}, {"deleteRetentionMs", delete_retention_ms}});
    rebuild = true;
  }
  SVC_ASSIGN_OR_RETURN(im.consumer, kafka::NewConsumer(options.brokers, "svc-keys"));
  kafka::WarmTopicMetadata(im.consumer.get(), im.topic, options.timeout);
  const int64_t start = (adopt || rebuild) ? RD_KAFKA_OFFSET_BEGINNING : state->next_offset;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, im.topic.c_str(), 0)->offset = start;
  rd_kafka_resp_err_t aerr = rd_kafka_assign(im.consumer.get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  if (aerr) return kafka::KafkaError("assigning " + im.topic, aerr);
  std::vector<KeyRecord> publish;
  if (adopt || rebuild) {
    SVC_ASSIGN_OR_RETURN(auto all, im.ReadUntil(high));
    SVC_RETURN_IF_ERROR(keys->Reconcile(all, high, adopt, &publish, im.NowMicros()));
    im.applied = high;
  } else {
    im.applied = state->next_offset;
  }
  im.reporter = std::thread([&im] {
    core::SetThreadName("svc-keys-out");
    while (!im.stop.load()) rd_kafka_poll(im.producer, 50);
  });
  im.applier = std::thread([&im] {
    core::SetThreadName("svc-keys-in");
    im.Loop();
  });
  KafkaKeyTopic* replica = t.get();
  keys->SetReplica(std::move(t));
  for (size_t i = 0; i < publish.size(); i += 256) {
    std::vector<KeyRecord> chunk(publish.begin() + static_cast<std::ptrdiff_t>(i),
                                 publish.begin() + static_cast<std::ptrdiff_t>(std::min(publish.size(), i + 256)));
    SVC_RETURN_IF_ERROR(replica->Publish(chunk));
  }
  // Everything the topic held at start is applied before the node answers anything.
  return replica->CatchUp();
}

KafkaKeyTopic::~KafkaKeyTopic() {
  Stop();
  if (impl_ && impl_->producer != nullptr) {
    rd_kafka_flush(impl_->producer, 2000);
    rd_kafka_destroy(impl_->producer);
  }
}

void KafkaKeyTopic::Stop() {
  if (!impl_) return;
  impl_->stop.store(true);
  impl_->cv.notify_all();
  if (impl_->applier.joinable()) impl_->applier.join();
  if (impl_->reporter.joinable()) impl_->reporter.join();
  impl_->consumer.reset();
}

core::Status KafkaKeyTopic::Publish(const std::vector<KeyRecord>& records) {
  if (records.empty()) return core::Status::Ok();
  Impl& im = *impl_;
  auto ticket = std::make_shared<Ticket>();
  ticket->left = records.size();
  for (size_t i = 0; i < records.size(); ++i) {
    if (auto st = im.Produce(records[i], ticket); !st.ok()) {
      std::lock_guard lock(ticket->mu);
      ticket->left -= records.size() - i;  // the ones not handed to librdkafka
      if (ticket->error.empty()) ticket->error = st.message();
      break;
    }
  }
  int64_t last = -1;
  {
    std::unique_lock lock(ticket->mu);
    if (!ticket->cv.wait_for(lock, im.o.timeout + std::chrono::seconds(5), [&] { return ticket->left == 0; })) {
      return core::Unavailable("the cluster's keys topic did not acknowledge in time", "SERVICE_UNAVAILABLE");
    }
    if (!ticket->error.empty()) {
      return core::Unavailable("the cluster's keys topic refused a key: " + ticket->error, "SERVICE_UNAVAILABLE");
    }
    last = ticket->last_offset;
  }
  return im.WaitApplied(last + 1);
}

core::Status KafkaKeyTopic::CatchUp() {
  Impl& im = *impl_;
  int64_t low = 0, high = 0;
  if (auto st = kafka::Watermarks(im.producer, im.topic, 0, im.o.timeout, &low, &high); !st.ok()) {
    return core::Unavailable("the cluster's keys topic: " + st.message(), "SERVICE_UNAVAILABLE");
  }
  return im.WaitApplied(high);
}

}  // namespace svc::eventstore
