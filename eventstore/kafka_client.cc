#include "eventstore/kafka_client.h"

#include <algorithm>
#include <cstdlib>

#include "core/log.h"

namespace svc::eventstore::kafka {

core::Status KafkaError(const std::string& what, rd_kafka_resp_err_t err) {
  return core::Unavailable(what + ": " + rd_kafka_err2str(err));
}

core::Status Watermarks(rd_kafka_t* rk, const std::string& topic, int32_t partition, std::chrono::milliseconds timeout,
                        int64_t* low, int64_t* high) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int64_t found[2] = {0, 0};
  const int64_t asked[2] = {RD_KAFKA_OFFSET_BEGINNING, RD_KAFKA_OFFSET_END};
  for (int i = 0; i < 2; ++i) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return KafkaError("watermarks of " + topic, RD_KAFKA_RESP_ERR__TIMED_OUT);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), partition)->offset = asked[i];
    rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(rk, list, static_cast<int>(left));
    if (!err) err = list->elems[0].err;
    found[i] = list->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(list);
    if (err) return KafkaError("watermarks of " + topic, err);
  }
  *low = found[0];
  *high = found[1];
  if (*low < 0 && *high >= 0) *low = *high;  // an empty partition may answer only its end
  return core::Status::Ok();
}

bool Set(rd_kafka_conf_t* conf, const char* key, const std::string& value, std::string* error) {
  char err[512];
  if (rd_kafka_conf_set(conf, key, value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
    *error = std::string(key) + ": " + err;
    return false;
  }
  return true;
}

const char* DebugContexts() {
  // Read once: every log line of librdkafka asks, and the environment does not change.
  static const char* const contexts = [] {
    const char* d = std::getenv("SVC_KAFKA_DEBUG");
    return d != nullptr && *d != '\0' ? d : nullptr;
  }();
  return contexts;
}

void LogLine(const rd_kafka_t*, int level, const char* facility, const char* buf) {
  // syslog levels 0-7; librdkafka's debug lines (SVC_KAFKA_DEBUG) are logged at info: they were asked for
  core::LogLevel l = level <= 3 ? core::LogLevel::kError
                     : level == 4 ? core::LogLevel::kWarn
                     : level <= 6 || DebugContexts() != nullptr ? core::LogLevel::kInfo
                                                                : core::LogLevel::kDebug;
  core::Log(l, "librdkafka", {{"facility", facility}, {"detail", buf}});
}

std::string Header(rd_kafka_headers_t* headers, const char* name) {
  const void* v = nullptr;
  size_t n = 0;
  if (headers == nullptr || rd_kafka_header_get_last(headers, name, &v, &n) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return "";
  }
  return std::string(static_cast<const char*>(v), n);
}

namespace {

// A producer handle from `conf` (consumed either way) once its settings took (`ok`, else `error`
// says which failed), with our log lines; `what` names it in errors. (Extracted at its third
// copy: the metadata client, the idempotent and the transactional producers.)
core::Result<rd_kafka_t*> MakeProducer(rd_kafka_conf_t* conf, bool ok, const std::string& error, const std::string& what) {
  if (!ok) {
    rd_kafka_conf_destroy(conf);
    return core::InvalidArgument(what + " config: " + error);
  }
  rd_kafka_conf_set_log_cb(conf, LogLine);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return core::Unavailable(what + ": " + err);
  }
  return rk;
}

}  // namespace

core::Result<rd_kafka_t*> NewMetadataClient(const std::string& brokers) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::string error;
  const bool ok = Set(conf, "bootstrap.servers", brokers, &error) && Set(conf, "socket.nagle.disable", "true", &error);
  return MakeProducer(conf, ok, error, "kafka client");
}

core::Result<rd_kafka_t*> NewTransactionalProducer(const std::string& brokers, const std::string& id,
                                                   std::chrono::milliseconds timeout) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::string error;
  // No topic made by asking for its metadata (a producer's default): the topics are created with
  // their settings and partition count (EnsureTopic), or refused.
  const bool ok = Set(conf, "bootstrap.servers", brokers, &error) && Set(conf, "socket.nagle.disable", "true", &error) &&
                  Set(conf, "allow.auto.create.topics", "false", &error) &&
                  Set(conf, "transactional.id", id, &error) && Set(conf, "enable.idempotence", "true", &error) &&
                  Set(conf, "acks", "all", &error) &&
                  Set(conf, "message.timeout.ms", std::to_string(timeout.count()), &error) &&
                  Set(conf, "transaction.timeout.ms", std::to_string(std::max<int64_t>(60000, timeout.count() * 2)),
                      &error);
  return MakeProducer(conf, ok, error, "kafka producer");
}

std::string TakeErrorText(rd_kafka_error_t* e) {
  std::string text = rd_kafka_error_string(e);
  if (rd_kafka_error_is_fatal(e)) text += " (fatal)";
  rd_kafka_error_destroy(e);
  return text;
}

core::Result<ConsumerPtr> NewConsumer(const std::string& brokers, const std::string& group) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::string error;
  bool ok = Set(conf, "bootstrap.servers", brokers, &error) &&
            Set(conf, "group.id", group, &error) &&
            Set(conf, "enable.auto.commit", "false", &error) &&
            Set(conf, "enable.auto.offset.store", "false", &error) &&
            Set(conf, "isolation.level", "read_committed", &error) &&
            Set(conf, "enable.partition.eof", "true", &error) &&
            Set(conf, "auto.offset.reset", "earliest", &error) &&
            Set(conf, "fetch.wait.max.ms", "10", &error) &&
            Set(conf, "socket.nagle.disable", "true", &error);
  if (ok && DebugContexts() != nullptr) ok = Set(conf, "debug", DebugContexts(), &error);
  // allow.auto.create.topics is left at its default (false for consumers): setting it explicitly
  // makes librdkafka warn on every metadata request to a broker older than Kafka 0.11 (the mock
  // cluster), eleven warnings at each start for nothing. Topics are created (or checked) once,
  // by the writer, before any consumer opens.
  if (!ok) {
    rd_kafka_conf_destroy(conf);
    return core::InvalidArgument("kafka consumer config: " + error);
  }
  rd_kafka_conf_set_log_cb(conf, LogLine);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return core::Unavailable(std::string("kafka consumer: ") + err);
  }
  rd_kafka_poll_set_consumer(rk);
  return ConsumerPtr(rk);
}

void WarmTopicMetadata(rd_kafka_t* rk, const std::string& topic, std::chrono::milliseconds timeout) {
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  if (rkt == nullptr) return;
  if (rd_kafka_metadata(rk, 0, rkt, &md, static_cast<int>(timeout.count())) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    rd_kafka_metadata_destroy(md);
  }
  rd_kafka_topic_destroy(rkt);
}

bool IsMockCluster(rd_kafka_t* rk, std::chrono::milliseconds timeout) {
  char* id = rd_kafka_clusterid(rk, static_cast<int>(timeout.count()));
  const bool mock = id != nullptr && std::string_view(id).rfind("mockCluster", 0) == 0;
  if (id != nullptr) rd_kafka_mem_free(rk, id);
  return mock;
}

core::Result<int> ReplicationFactor(rd_kafka_t* rk, const std::string& topic, std::chrono::milliseconds timeout) {
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  rd_kafka_resp_err_t merr = rd_kafka_metadata(rk, 0, rkt, &md, static_cast<int>(timeout.count()));
  rd_kafka_topic_destroy(rkt);
  if (merr) return KafkaError("metadata of " + topic, merr);
  int fewest = -1;
  for (int i = 0; i < md->topic_cnt; ++i) {
    if (topic != md->topics[i].topic) continue;
    for (int j = 0; j < md->topics[i].partition_cnt; ++j) {
      const int n = md->topics[i].partitions[j].replica_cnt;
      fewest = fewest < 0 ? n : std::min(fewest, n);
    }
  }
  rd_kafka_metadata_destroy(md);
  if (fewest < 0) return core::NotFound("topic " + topic + " has no partitions in the brokers' metadata");
  return fewest;
}

core::Status EnsureTopic(rd_kafka_t* rk, const std::string& topic, uint32_t partitions,
                         const std::map<std::string, std::string>& config, bool create,
                         std::chrono::milliseconds timeout, const std::string& flag) {
  const int ms = static_cast<int>(timeout.count());
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  rd_kafka_resp_err_t merr = rd_kafka_metadata(rk, 0, rkt, &md, ms);
  rd_kafka_topic_destroy(rkt);
  if (merr) return KafkaError("metadata of " + topic, merr);
  int found = -1;
  rd_kafka_resp_err_t topic_err = RD_KAFKA_RESP_ERR_NO_ERROR;
  for (int i = 0; i < md->topic_cnt; ++i) {
    if (topic == md->topics[i].topic) {
      found = md->topics[i].partition_cnt;
      topic_err = md->topics[i].err;
    }
  }
  const int brokers = md->broker_cnt;
  rd_kafka_metadata_destroy(md);
  if (found > 0 && topic_err != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
    if (static_cast<uint32_t>(found) != partitions) {
      return core::FailedPrecondition("topic " + topic + " has " + std::to_string(found) +
                                      " partitions; " + flag + " must be " + std::to_string(found));
    }
    return core::Status::Ok();
  }
  if (!create) return core::FailedPrecondition("topic " + topic + " does not exist");
  char err[512];
  rd_kafka_NewTopic_t* nt =
      rd_kafka_NewTopic_new(topic.c_str(), static_cast<int>(partitions), brokers >= 3 ? 3 : 1, err, sizeof err);
  if (nt == nullptr) return core::InvalidArgument("topic " + topic + ": " + err);
  for (const auto& [k, v] : config) rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str());
  // With three replicas an append is acknowledged once two hold it (acks=all).
  if (brokers >= 3 && config.count("min.insync.replicas") == 0) {
    rd_kafka_NewTopic_set_config(nt, "min.insync.replicas", "2");
  }
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &nt, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, ms);
  std::string create_error;
  if (ev == nullptr) {
    create_error = "timed out";
  } else if (rd_kafka_event_error(ev)) {
    create_error = rd_kafka_event_error_string(ev);
  } else {
    size_t n = 0;
    const rd_kafka_topic_result_t** res =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    if (n == 1 && rd_kafka_topic_result_error(res[0]) &&
        rd_kafka_topic_result_error(res[0]) != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      create_error = rd_kafka_topic_result_error_string(res[0]);
    }
  }
  if (ev != nullptr) rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(nt);
  if (!create_error.empty()) return core::Unavailable("cannot create topic " + topic + ": " + create_error);
  core::LogInfo("created kafka topic", {{"topic", topic}, {"partitions", partitions}});
  return core::Status::Ok();
}

core::Result<rd_kafka_t*> NewIdempotentProducer(const std::string& brokers, std::chrono::milliseconds timeout,
                                                int linger_ms,
                                                void (*delivered)(rd_kafka_t*, const rd_kafka_message_t*, void*),
                                                const std::string& what) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::string error;
  bool ok = Set(conf, "bootstrap.servers", brokers, &error) && Set(conf, "enable.idempotence", "true", &error) &&
            Set(conf, "acks", "all", &error) && Set(conf, "linger.ms", std::to_string(linger_ms), &error) &&
            Set(conf, "socket.nagle.disable", "true", &error) &&
            Set(conf, "message.timeout.ms", std::to_string(timeout.count()), &error);
  rd_kafka_conf_set_dr_msg_cb(conf, delivered);
  return MakeProducer(conf, ok, error, what);
}

core::Result<rd_kafka_t*> JoinGroup(const GroupMember& g) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::string error;
  const auto heartbeat = std::max<int64_t>(100, g.session.count() / 10);
  bool ok = Set(conf, "bootstrap.servers", g.brokers, &error) && Set(conf, "group.id", g.group, &error) &&
            Set(conf, "client.id", g.member.empty() ? g.group : g.member, &error) &&
            Set(conf, "partition.assignment.strategy", "cooperative-sticky", &error) &&
            Set(conf, "session.timeout.ms", std::to_string(g.session.count()), &error) &&
            Set(conf, "heartbeat.interval.ms", std::to_string(heartbeat), &error) &&
            Set(conf, "enable.auto.commit", "false", &error) &&
            Set(conf, "enable.auto.offset.store", "false", &error) &&
            Set(conf, "isolation.level", "read_committed", &error) &&
            Set(conf, "auto.offset.reset", "earliest", &error) &&
            Set(conf, "fetch.wait.max.ms", std::to_string(g.fetch_wait_ms), &error) &&
            Set(conf, "socket.nagle.disable", "true", &error);
  if (ok && DebugContexts() != nullptr) ok = Set(conf, "debug", DebugContexts(), &error);
  if (!ok) {
    rd_kafka_conf_destroy(conf);
    return core::InvalidArgument("kafka group " + g.group + " config: " + error);
  }
  rd_kafka_conf_set_log_cb(conf, LogLine);
  rd_kafka_conf_set_opaque(conf, g.opaque);
  if (g.rebalance != nullptr) rd_kafka_conf_set_rebalance_cb(conf, g.rebalance);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return core::Unavailable("kafka group " + g.group + ": " + err);
  }
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, g.topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t serr = rd_kafka_subscribe(rk, list);
  rd_kafka_topic_partition_list_destroy(list);
  if (serr) {
    rd_kafka_destroy(rk);
    return KafkaError("subscribing to " + g.topic, serr);
  }
  return rk;
}

core::Result<std::map<std::string, std::string>> DescribeTopicConfig(rd_kafka_t* rk, const std::string& topic,
                                                                     std::chrono::milliseconds timeout) {
  rd_kafka_ConfigResource_t* res = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_DescribeConfigs(rk, &res, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, static_cast<int>(timeout.count()));
  std::map<std::string, std::string> config;
  std::string error;
  if (ev == nullptr) {
    error = "timed out";
  } else if (rd_kafka_event_error(ev)) {
    error = rd_kafka_event_error_string(ev);
  } else {
    size_t n = 0;
    const rd_kafka_ConfigResource_t** rres =
        rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev), &n);
    if (n != 1 || rd_kafka_ConfigResource_error(rres[0])) {
      error = n == 1 ? rd_kafka_ConfigResource_error_string(rres[0]) : "no answer for the topic";
    } else {
      size_t entries = 0;
      const rd_kafka_ConfigEntry_t** e = rd_kafka_ConfigResource_configs(rres[0], &entries);
      for (size_t i = 0; i < entries; ++i) {
        const char* v = rd_kafka_ConfigEntry_value(e[i]);
        config[rd_kafka_ConfigEntry_name(e[i])] = v == nullptr ? "" : v;
      }
    }
  }
  if (ev != nullptr) rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_ConfigResource_destroy(res);
  if (!error.empty()) return core::Unavailable(error);
  return config;
}

}  // namespace svc::eventstore::kafka
