#include "eventstore/kafka_dev_broker.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <cstring>
#include <limits>
#include <sstream>

#include "core/log.h"
#include "eventstore/kafka_client.h"

namespace svc::eventstore {

namespace {
// Kafka protocol API keys (not exported by librdkafka's public headers).
constexpr int16_t kApiProduce = 0;
constexpr int16_t kApiEndTxn = 26;

core::Result<rd_kafka_resp_err_t> ErrorByName(const std::string& name) {
  const rd_kafka_err_desc* descs = nullptr;
  size_t n = 0;
  rd_kafka_get_err_descs(&descs, &n);
  for (size_t i = 0; i < n; ++i) {
    if (descs[i].name != nullptr && name == descs[i].name) return descs[i].code;
  }
  return core::InvalidArgument("unknown Kafka error name " + name);
}
// librdkafka's mock cluster keeps at most 5 MiB or 100,000 record batches per partition and
// silently drops the oldest beyond (rdkafka_mock.c, rd_kafka_mock_partition_init): an event log
// longer than that loses its beginning, and a restarted svc finds a gap. No public call changes
// the limits, so they are lifted in the partitions' own memory, at the field offsets of the
// librdkafka release Debian ships (2.0.2, x86-64: rdkafka_mock_int.h). Every step is checked
// against values known to be there (the cluster's rk handle, the topic's name and partition count,
// each partition's id, back-pointer and default limits); if any differs, nothing is written and
// the broker refuses to start, rather than run with a retention that deletes events.
core::Status KeepEverything(rd_kafka_mock_cluster_t* cluster, rd_kafka_t* rk, const std::string& topic,
                            int partitions) {
  // struct rd_kafka_mock_cluster_s: char id[32]; rd_kafka_t *rk; int32_t controller_id;
  // TAILQ_HEAD brokers; int broker_cnt; TAILQ_HEAD topics (tqh_first at 72); int topic_cnt;
  constexpr size_t kClusterRk = 32, kClusterTopics = 72, kClusterTopicCnt = 88;
  // struct rd_kafka_mock_topic_s: TAILQ_ENTRY link; char *name; rd_kafka_mock_partition_t
  // *partitions; int partition_cnt; rd_kafka_resp_err_t err; rd_kafka_mock_cluster_t *cluster;
  constexpr size_t kTopicNext = 0, kTopicName = 16, kTopicPartitions = 24, kTopicPartitionCnt = 32, kTopicCluster = 40;
  // struct rd_kafka_mock_partition_s (208 bytes): int32_t id at 16; size_t max_size at 96 and
  // max_cnt at 104; rd_kafka_mock_topic_s *topic at 200.
  constexpr size_t kPartitionSize = 208, kPartitionId = 16, kMaxSize = 96, kMaxCnt = 104, kPartitionTopic = 200;
  constexpr size_t kDefaultMaxSize = 5u << 20, kDefaultMaxCnt = 100000;
  const std::string refuse =
      "dev broker: cannot lift the mock cluster's retention (5 MiB per partition) on librdkafka " +
      std::string(rd_kafka_version_str()) + ": its memory layout is not 2.0.2's; the broker would drop events";
  auto at = [](const void* base, size_t offset) { return static_cast<const char*>(base) + offset; };
  auto ptr = [&](const void* base, size_t offset) {
    void* p = nullptr;
    std::memcpy(&p, at(base, offset), sizeof p);
    return p;
  };
  auto num = [&](const void* base, size_t offset, auto zero) {
    decltype(zero) v = zero;
    std::memcpy(&v, at(base, offset), sizeof v);
    return v;
  };
  if (ptr(cluster, kClusterRk) != rk || num(cluster, kClusterTopicCnt, int{0}) < 1) return core::Unavailable(refuse);
  void* found = nullptr;
  int seen = 0;
  for (void* t = ptr(cluster, kClusterTopics); t != nullptr && seen < 64; t = ptr(t, kTopicNext), ++seen) {
    const char* name = static_cast<const char*>(ptr(t, kTopicName));
    if (ptr(t, kTopicCluster) != cluster || name == nullptr) return core::Unavailable(refuse);
    if (topic == name) found = t;
  }
  if (found == nullptr || num(found, kTopicPartitionCnt, int{0}) != partitions) return core::Unavailable(refuse);
  char* parts = static_cast<char*>(ptr(found, kTopicPartitions));
  if (parts == nullptr) return core::Unavailable(refuse);
  for (int i = 0; i < partitions; ++i) {
    const char* p = parts + static_cast<size_t>(i) * kPartitionSize;
    if (num(p, kPartitionId, int32_t{0}) != i || ptr(p, kPartitionTopic) != found ||
        num(p, kMaxSize, size_t{0}) != kDefaultMaxSize || num(p, kMaxCnt, size_t{0}) != kDefaultMaxCnt) {
      return core::Unavailable(refuse);
    }
  }
  const size_t unlimited = std::numeric_limits<size_t>::max();
  for (int i = 0; i < partitions; ++i) {
    char* p = parts + static_cast<size_t>(i) * kPartitionSize;
    std::memcpy(p + kMaxSize, &unlimited, sizeof unlimited);
    std::memcpy(p + kMaxCnt, &unlimited, sizeof unlimited);
  }
  return core::Status::Ok();
}

}  // namespace

struct KafkaDevBroker::Impl {
  rd_kafka_t* rk = nullptr;
  rd_kafka_mock_cluster_t* cluster = nullptr;
  ~Impl() {
    if (cluster != nullptr) rd_kafka_mock_cluster_destroy(cluster);
    if (rk != nullptr) rd_kafka_destroy(rk);
  }
};

core::Result<std::unique_ptr<KafkaDevBroker>> KafkaDevBroker::Start(const Options& o) {
  std::unique_ptr<KafkaDevBroker> b(new KafkaDevBroker());
  b->impl_ = std::make_unique<Impl>();
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  rd_kafka_conf_set(conf, "socket.nagle.disable", "true", err, sizeof err);
  if (const char* debug = kafka::DebugContexts()) {
    rd_kafka_conf_set(conf, "debug", debug, err, sizeof err);  // the mock's group state machine: "mock,cgrp"
    rd_kafka_conf_set_log_cb(conf, kafka::LogLine);
  } else {
    rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
    rd_kafka_conf_set_log_cb(conf, [](const rd_kafka_t*, int level, const char* fac, const char* buf) {
      core::Log(level <= 3 ? core::LogLevel::kError : core::LogLevel::kWarn, "librdkafka",
                {{"facility", fac}, {"detail", buf}});
    });
  }
  b->impl_->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (b->impl_->rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return core::Unavailable(std::string("dev broker: ") + err);
  }
  b->impl_->cluster = rd_kafka_mock_cluster_new(b->impl_->rk, o.brokers);
  if (b->impl_->cluster == nullptr) return core::Unavailable("dev broker: cannot start the mock cluster");
  std::string topic = o.topic_prefix + ".events";
  if (rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(b->impl_->cluster, topic.c_str(),
                                                         o.partitions, std::min(3, o.brokers))) {
    return core::Unavailable(std::string("dev broker: topic: ") + rd_kafka_err2str(e));
  }
  // The events topic is the source of truth: it keeps every record, as a real cluster configured
  // with retention.ms=-1 and retention.bytes=-1 does (docs/operations.md#kafka).
  SVC_RETURN_IF_ERROR(KeepEverything(b->impl_->cluster, b->impl_->rk, topic, o.partitions));
  // A cluster's commands and replies (eventstore/writer_group.h): the mock cluster answers no
  // CreateTopics, so they are made here, with the same partition count.
  for (const char* suffix : {".commands", ".replies"}) {
    const std::string t = o.topic_prefix + suffix;
    if (rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(b->impl_->cluster, t.c_str(), o.partitions,
                                                           std::min(3, o.brokers))) {
      return core::Unavailable("dev broker: topic " + t + ": " + rd_kafka_err2str(e));
    }
  }
  // The cluster's keys (eventstore/key_topic.h): one partition, kept whole (the mock cluster does
  // not compact; a real cluster's topic is compacted).
  const std::string keys = o.topic_prefix + ".keys";
  if (rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(b->impl_->cluster, keys.c_str(), 1, std::min(3, o.brokers))) {
    return core::Unavailable("dev broker: topic " + keys + ": " + rd_kafka_err2str(e));
  }
  SVC_RETURN_IF_ERROR(KeepEverything(b->impl_->cluster, b->impl_->rk, keys, 1));
  // The verification jobs (eventstore/job_queue.h), shared by the workers' group.
  const std::string jobs = o.topic_prefix + ".jobs";
  if (rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(b->impl_->cluster, jobs.c_str(), o.job_partitions,
                                                         std::min(3, o.brokers))) {
    return core::Unavailable("dev broker: topic " + jobs + ": " + rd_kafka_err2str(e));
  }
  for (const auto& [name, partitions] : o.more_topics) {
    if (rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(b->impl_->cluster, name.c_str(), partitions,
                                                           std::min(3, o.brokers))) {
      return core::Unavailable("dev broker: topic " + name + ": " + rd_kafka_err2str(e));
    }
    SVC_RETURN_IF_ERROR(KeepEverything(b->impl_->cluster, b->impl_->rk, name, partitions));
  }
  return b;
}

KafkaDevBroker::~KafkaDevBroker() = default;

std::string KafkaDevBroker::Bootstraps() const {
  return rd_kafka_mock_cluster_bootstraps(impl_->cluster);
}

core::Status KafkaDevBroker::Control(const std::string& line) {
  std::istringstream in(line);
  std::string cmd;
  in >> cmd;
  if (cmd == "produce-errors" || cmd == "endtxn-errors") {
    size_t n = 0;
    std::string name;
    in >> n >> name;
    if (n == 0 || n > 1000) return core::InvalidArgument("count must be 1..1000");
    SVC_ASSIGN_OR_RETURN(rd_kafka_resp_err_t code, ErrorByName(name));
    std::vector<rd_kafka_resp_err_t> errs(n, code);
    rd_kafka_mock_push_request_errors_array(impl_->cluster,
                                            cmd == "produce-errors" ? kApiProduce : kApiEndTxn, n,
                                            errs.data());
    return core::Status::Ok();
  }
  if (cmd == "broker-down" || cmd == "broker-up") {
    int32_t id = -2;
    in >> id;
    if (id < -1) return core::InvalidArgument("broker id required (-1 = all)");
    rd_kafka_resp_err_t e = cmd == "broker-down" ? rd_kafka_mock_broker_set_down(impl_->cluster, id)
                                                 : rd_kafka_mock_broker_set_up(impl_->cluster, id);
    if (e) return core::InvalidArgument(rd_kafka_err2str(e));
    return core::Status::Ok();
  }
  return core::InvalidArgument("unknown command: " + cmd);
}

}  // namespace svc::eventstore
