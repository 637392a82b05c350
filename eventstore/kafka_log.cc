#include "eventstore/kafka_log.h"
#include "core/executor.h"

#include <librdkafka/rdkafka.h>

#include <cstring>
#include <map>
#include <optional>

#include "core/crypto.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/log.h"

namespace svc::eventstore {

namespace {

using Ms = std::chrono::milliseconds;

constexpr const char* kEpochHeader = "ce_svcepoch";
constexpr const char* kWriterHeader = "ce_svcwriter";
constexpr const char* kFenceType = "svc.writer_fence";

struct Record {
  std::string value;  // JSON envelope
  std::string id, type, tenant, time;
  uint64_t seq = 0;
  // Filled by the delivery report.
  int64_t kafka_offset = -1;
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
};

struct Pending {
  uint32_t partition;
  std::vector<Record> records;
  AppendCallback done;
};

core::Status KafkaError(const std::string& what, rd_kafka_resp_err_t err) {
  return core::Unavailable(what + ": " + rd_kafka_err2str(err));
}

void DeliveryReport(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
  auto* r = static_cast<Record*>(msg->_private);
  if (r == nullptr) return;
  r->err = msg->err;
  r->kafka_offset = msg->offset;
}

// librdkafka's own log lines go through our JSON-lines logger (syslog levels 0-7).
void KafkaLogLine(const rd_kafka_t*, int level, const char* fac, const char* buf) {
  core::LogLevel l = level <= 3 ? core::LogLevel::kError
                     : level == 4 ? core::LogLevel::kWarn
                     : level <= 6 ? core::LogLevel::kInfo
                                  : core::LogLevel::kDebug;
  core::Log(l, "librdkafka", {{"facility", fac}, {"detail", buf}});
}

bool Set(rd_kafka_conf_t* conf, const char* k, const std::string& v, std::string* error) {
  char err[512];
  if (rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
    *error = std::string(k) + ": " + err;
    return false;
  }
  return true;
}

// Reads a header value as a string; empty when absent.
std::string Header(rd_kafka_headers_t* hdrs, const char* name) {
  const void* v = nullptr;
  size_t n = 0;
  if (hdrs == nullptr || rd_kafka_header_get_last(hdrs, name, &v, &n) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return "";
  }
  return std::string(static_cast<const char*>(v), n);
}

struct ConsumerDeleter {
  void operator()(rd_kafka_t* rk) const {
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }
};
using ConsumerPtr = std::unique_ptr<rd_kafka_t, ConsumerDeleter>;

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
  // allow.auto.create.topics is left at its default (false for consumers): setting it explicitly
  // makes librdkafka warn on every metadata request to a broker older than Kafka 0.11 (the mock
  // cluster), eleven warnings at each start for nothing. The topic is created (or checked) once,
  // by the writer, before any consumer opens.
  if (!ok) {
    rd_kafka_conf_destroy(conf);
    return core::InvalidArgument("kafka consumer config: " + error);
  }
  rd_kafka_conf_set_log_cb(conf, KafkaLogLine);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return core::Unavailable(std::string("kafka consumer: ") + err);
  }
  rd_kafka_poll_set_consumer(rk);
  return ConsumerPtr(rk);
}

// A read_committed consumer over all partitions, de-duplicating by sequence.
class KafkaReader final : public LogReader {
 public:
  KafkaReader(ConsumerPtr rk, std::string topic, std::vector<PartitionCheckpoint> start,
              uint32_t partitions)
      : rk_(std::move(rk)), topic_(std::move(topic)) {
    next_seq_.assign(partitions, 0);
    epoch_.assign(partitions, 0);
    at_end_.assign(partitions, false);
    for (uint32_t p = 0; p < partitions && p < start.size(); ++p) {
      next_seq_[p] = start[p].next_offset;
      epoch_[p] = start[p].backend_epoch;
    }
    starts_ = std::move(start);
    starts_.resize(partitions);
  }

  core::Status Assign() {
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(next_seq_.size()));
    for (uint32_t p = 0; p < next_seq_.size(); ++p) {
      auto* tp = rd_kafka_topic_partition_list_add(list, topic_.c_str(), static_cast<int32_t>(p));
      tp->offset = starts_[p].backend_cursor >= 0 ? starts_[p].backend_cursor
                                                  : RD_KAFKA_OFFSET_BEGINNING;
    }
    rd_kafka_resp_err_t err = rd_kafka_assign(rk_.get(), list);
    rd_kafka_topic_partition_list_destroy(list);
    if (err) return KafkaError("assign", err);
    return core::Status::Ok();
  }

  core::Result<std::vector<RecordedEvent>> Poll(size_t max, Ms wait) override {
    std::vector<RecordedEvent> out;
    auto deadline = std::chrono::steady_clock::now() + wait;
    while (out.size() < max) {
      int timeout = 0;
      if (out.empty()) {
        auto left = std::chrono::duration_cast<Ms>(deadline - std::chrono::steady_clock::now());
        timeout = static_cast<int>(std::max<int64_t>(0, left.count()));
      }
      rd_kafka_message_t* msg = rd_kafka_consumer_poll(rk_.get(), timeout);
      if (msg == nullptr) {
        if (!out.empty() || woken_.exchange(false) ||
            std::chrono::steady_clock::now() >= deadline) {
          break;
        }
        continue;
      }
      auto p = static_cast<uint32_t>(msg->partition);
      if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        if (p < at_end_.size()) at_end_[p] = true;
        rd_kafka_message_destroy(msg);
        if (out.empty() && CaughtUp()) break;  // nothing more to give now
        continue;
      }
      if (msg->err) {
        std::string what = rd_kafka_message_errstr(msg);
        rd_kafka_resp_err_t err = msg->err;
        rd_kafka_message_destroy(msg);
        if (err == RD_KAFKA_RESP_ERR__TRANSPORT || err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
          continue;  // transient: librdkafka reconnects
        }
        return core::Unavailable("kafka consume: " + what);
      }
      if (p >= next_seq_.size()) {
        rd_kafka_message_destroy(msg);
        continue;
      }
      at_end_[p] = false;
      rd_kafka_headers_t* hdrs = nullptr;
      rd_kafka_message_headers(msg, &hdrs);
      std::string epoch_text = Header(hdrs, kEpochHeader);
      uint64_t epoch = epoch_text.empty() ? 0 : std::stoull(epoch_text);
      if (Header(hdrs, "ce_type") == kFenceType) {  // a new writer took over from here on
        epoch_[p] = std::max(epoch_[p], epoch);
        rd_kafka_message_destroy(msg);
        continue;
      }
      if (epoch < epoch_[p]) {  // written by a fenced writer after its successor's fence
        rd_kafka_message_destroy(msg);
        continue;
      }
      epoch_[p] = epoch;
      std::string seq_text = Header(hdrs, kSeqHeader);
      if (seq_text.empty()) {
        rd_kafka_message_destroy(msg);
        return core::DataLoss("record without " + std::string(kSeqHeader) + " in " + topic_);
      }
      uint64_t seq = std::stoull(seq_text);
      int64_t kafka_offset = msg->offset;
      if (seq < next_seq_[p]) {  // already seen (a retried transaction shown twice)
        rd_kafka_message_destroy(msg);
        continue;
      }
      if (seq > next_seq_[p]) {
        rd_kafka_message_destroy(msg);
        return core::DataLoss("gap in partition " + std::to_string(p) + ": expected sequence " +
                              std::to_string(next_seq_[p]) + ", found " + std::to_string(seq));
      }
      RecordedEvent& re = out.emplace_back();
      re.position = LogPosition{p, seq};
      re.backend_cursor = kafka_offset + 1;
      re.backend_epoch = epoch_[p];
      core::Status st = DecodeEnvelopeInto(
          std::string_view(static_cast<const char*>(msg->payload), msg->len), re.event);
      rd_kafka_message_destroy(msg);
      if (!st.ok()) return st;
      next_seq_[p] = seq + 1;
    }
    return out;
  }

  bool CaughtUp() const override {
    for (bool e : at_end_) {
      if (!e) return false;
    }
    return true;
  }

  void Wake() override {
    woken_.store(true);
    rd_kafka_yield(rk_.get());
  }

 private:
  ConsumerPtr rk_;
  std::string topic_;
  std::vector<uint64_t> next_seq_;
  std::vector<uint64_t> epoch_;
  std::vector<bool> at_end_;
  std::vector<PartitionCheckpoint> starts_;
  std::atomic<bool> woken_{false};
};

}  // namespace

struct KafkaLog::Impl {
  rd_kafka_t* producer = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Pending> pending;
  bool closing = false;
  core::Status failed;  // sticky once set
  std::vector<uint64_t> next_seq;                 // appender-only
  std::string writer_id;                          // random, per process
  uint64_t epoch = 0;                             // this writer's epoch (fence at open)
  std::vector<int64_t> last_end;                  // appender-only: offset after our last record
  ConsumerPtr verifier;                           // reads gaps between our transactions
  std::unique_ptr<std::atomic<uint64_t>[]> end;   // committed next sequence per partition
  std::thread appender;
  core::Counter* appends = nullptr;
  core::Counter* events = nullptr;
  core::Counter* transactions = nullptr;
  core::Counter* aborts = nullptr;
  core::Histogram* group_size = nullptr;
};

KafkaLog::KafkaLog(const Options& options) : options_(options), impl_(std::make_unique<Impl>()) {}

KafkaLog::~KafkaLog() {
  Close();
  if (impl_->producer != nullptr) rd_kafka_destroy(impl_->producer);
}

namespace {

struct TailRecord {
  int64_t offset;
  bool fence;
  uint64_t epoch;
  bool has_seq;
  uint64_t seq;
};

struct Tails {
  std::vector<uint64_t> next_seq;
  uint64_t max_epoch = 0;
};

// Reads partition `p` of `topic` from `start` to its end (read_committed).
core::Result<std::vector<TailRecord>> ReadRange(rd_kafka_t* rk, const std::string& topic,
                                                uint32_t p, int64_t start, Ms timeout) {
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic.c_str(), static_cast<int32_t>(p))->offset = start;
  rd_kafka_resp_err_t err = rd_kafka_assign(rk, list);
  rd_kafka_topic_partition_list_destroy(list);
  if (err) return KafkaError("assign", err);
  std::vector<TailRecord> out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (std::chrono::steady_clock::now() > deadline) {
      return core::Unavailable("timed out reading the tail of " + topic);
    }
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(rk, 100);
    if (msg == nullptr) continue;
    if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      rd_kafka_message_destroy(msg);
      break;
    }
    if (msg->err) {
      rd_kafka_message_destroy(msg);
      continue;
    }
    rd_kafka_headers_t* hdrs = nullptr;
    rd_kafka_message_headers(msg, &hdrs);
    TailRecord r{msg->offset, Header(hdrs, "ce_type") == kFenceType, 0, false, 0};
    std::string e = Header(hdrs, kEpochHeader), s = Header(hdrs, kSeqHeader);
    if (!e.empty()) r.epoch = std::stoull(e);
    if (!s.empty()) {
      r.has_seq = true;
      r.seq = std::stoull(s);
    }
    out.push_back(r);
    rd_kafka_message_destroy(msg);
  }
  rd_kafka_assign(rk, nullptr);
  return out;
}

// Finds, per partition, the next sequence to assign and, overall, the highest writer epoch.
// Reads each partition's tail, widening the window until it holds a record of the highest epoch
// and an accepted event (or reaches the start): records of a lower epoch after a fence are a
// fenced writer's and do not count.
core::Result<Tails> ScanTails(const KafkaLog::Options& o, rd_kafka_t* producer,
                              const std::string& topic) {
  SVC_ASSIGN_OR_RETURN(ConsumerPtr rk, NewConsumer(o.brokers, "svc-writer-recovery"));
  struct Part {
    int64_t low = 0, high = 0, window = 64;
    std::vector<TailRecord> records;
  };
  std::vector<Part> parts(o.partitions);
  for (uint32_t p = 0; p < o.partitions; ++p) {
    rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(
        producer, topic.c_str(), static_cast<int32_t>(p), &parts[p].low, &parts[p].high,
        static_cast<int>(o.timeout.count()));
    if (err) return KafkaError("watermarks of " + topic, err);
  }
  auto read = [&](uint32_t p) -> core::Status {
    Part& pt = parts[p];
    int64_t start = std::max(pt.low, pt.high - pt.window);
    if (start >= pt.high) {
      pt.records.clear();
      return core::Status::Ok();
    }
    SVC_ASSIGN_OR_RETURN(pt.records, ReadRange(rk.get(), topic, p, start, o.timeout));
    return core::Status::Ok();
  };
  for (uint32_t p = 0; p < o.partitions; ++p) SVC_RETURN_IF_ERROR(read(p));
  Tails t;
  t.next_seq.assign(o.partitions, 0);
  for (;;) {
    t.max_epoch = 0;
    for (const auto& pt : parts) {
      for (const auto& r : pt.records) t.max_epoch = std::max(t.max_epoch, r.epoch);
    }
    bool widened = false;
    for (uint32_t p = 0; p < o.partitions; ++p) {
      Part& pt = parts[p];
      uint64_t running = 0;
      bool has_max = false, has_event = false;
      for (const auto& r : pt.records) {
        has_max |= r.epoch == t.max_epoch;
        if (r.fence) {
          running = std::max(running, r.epoch);
        } else if (r.has_seq && r.epoch >= running) {
          running = r.epoch;
          t.next_seq[p] = r.seq + 1;
          has_event = true;
        }
      }
      bool at_start = pt.high - pt.window <= pt.low;
      if ((!has_max || !has_event) && !at_start && !pt.records.empty()) {
        pt.window *= 4;
        SVC_RETURN_IF_ERROR(read(p));
        widened = true;
      }
    }
    if (!widened) break;
  }
  return t;
}

// The events topic must keep every event (docs/operations.md#kafka): retention.ms=-1,
// retention.bytes=-1, cleanup.policy=delete (never compact: every event of a tenant has the same
// key). A topic whose settings would delete events is refused with the setting to change. A broker
// that cannot describe topic configurations is refused too, except librdkafka's mock cluster (the
// development broker, `svc dev-broker`, which keeps every record in memory).
core::Status CheckTopicKeepsEverything(rd_kafka_t* rk, const std::string& topic, Ms timeout) {
  // The mock cluster answers no DescribeConfigs (librdkafka would wait out the timeout for it):
  // it is recognised by its cluster id first.
  char* id = rd_kafka_clusterid(rk, static_cast<int>(timeout.count()));
  const bool mock = id != nullptr && std::string_view(id).rfind("mockCluster", 0) == 0;
  if (id != nullptr) rd_kafka_mem_free(rk, id);
  if (mock) return core::Status::Ok();  // svc dev-broker: keeps every record
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
  if (!error.empty()) {
    return core::FailedPrecondition(
        "cannot read the configuration of topic " + topic + " (" + error +
        "): the events topic must be known to keep every event (retention.ms=-1, retention.bytes=-1, "
        "cleanup.policy=delete); grant DescribeConfigs on it (docs/operations.md#kafka)");
  }
  return CheckEventTopicConfig(topic, config);
}

core::Status WriteFence(KafkaLog::Impl& im, const KafkaLog::Options& o, const std::string& topic);
core::Status VerifyGaps(KafkaLog::Impl& im, const KafkaLog::Options& o, const std::string& topic,
                        std::vector<Pending>& group);

}  // namespace

core::Result<std::unique_ptr<KafkaLog>> KafkaLog::Open(const Options& options) {
  if (options.brokers.empty()) return core::InvalidArgument("--kafka-brokers is required");
  if (options.partitions == 0) return core::InvalidArgument("partitions must be > 0");
  std::unique_ptr<KafkaLog> log(new KafkaLog(options));
  auto& im = *log->impl_;
  const std::string topic = log->Topic();

  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::string error;
  bool ok = Set(conf, "bootstrap.servers", options.brokers, &error) &&
            Set(conf, "transactional.id", options.transactional_id, &error) &&
            Set(conf, "enable.idempotence", "true", &error) &&
            Set(conf, "acks", "all", &error) &&
            Set(conf, "linger.ms", "1", &error) &&
            Set(conf, "socket.nagle.disable", "true", &error) &&
            Set(conf, "queue.buffering.max.messages", "1000000", &error) &&
            Set(conf, "message.timeout.ms", std::to_string(options.timeout.count()), &error) &&
            Set(conf, "transaction.timeout.ms",
                std::to_string(std::max<int64_t>(60000, options.timeout.count() * 2)), &error);
  if (!ok) {
    rd_kafka_conf_destroy(conf);
    return core::InvalidArgument("kafka producer config: " + error);
  }
  rd_kafka_conf_set_dr_msg_cb(conf, DeliveryReport);
  rd_kafka_conf_set_log_cb(conf, KafkaLogLine);
  char err[512];
  im.producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (im.producer == nullptr) {
    rd_kafka_conf_destroy(conf);
    return core::Unavailable(std::string("kafka producer: ") + err);
  }

  // The topic must exist with the configured partition count.
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(im.producer, topic.c_str(), nullptr);
  rd_kafka_resp_err_t merr = rd_kafka_metadata(im.producer, 0, rkt, &md,
                                               static_cast<int>(options.timeout.count()));
  rd_kafka_topic_destroy(rkt);
  if (merr) return KafkaError("metadata of " + topic, merr);
  int partitions = -1;
  rd_kafka_resp_err_t topic_err = RD_KAFKA_RESP_ERR_NO_ERROR;
  for (int i = 0; i < md->topic_cnt; ++i) {
    if (topic == md->topics[i].topic) {
      partitions = md->topics[i].partition_cnt;
      topic_err = md->topics[i].err;
    }
  }
  int brokers = md->broker_cnt;
  rd_kafka_metadata_destroy(md);
  if (partitions <= 0 || topic_err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
    if (!options.create_topic) return core::FailedPrecondition("topic " + topic + " does not exist");
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(
        topic.c_str(), static_cast<int>(options.partitions), brokers >= 3 ? 3 : 1, err, sizeof err);
    // The events topic is the source of truth: nothing may delete or compact it. With three
    // replicas an append is acknowledged once two hold it (acks=all).
    rd_kafka_NewTopic_set_config(nt, "retention.ms", "-1");
    rd_kafka_NewTopic_set_config(nt, "retention.bytes", "-1");
    rd_kafka_NewTopic_set_config(nt, "cleanup.policy", "delete");
    if (brokers >= 3) rd_kafka_NewTopic_set_config(nt, "min.insync.replicas", "2");
    rd_kafka_queue_t* q = rd_kafka_queue_new(im.producer);
    rd_kafka_CreateTopics(im.producer, &nt, 1, nullptr, q);
    rd_kafka_event_t* ev = rd_kafka_queue_poll(q, static_cast<int>(options.timeout.count()));
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
    if (!create_error.empty()) {
      return core::Unavailable("cannot create topic " + topic + ": " + create_error);
    }
    core::LogInfo("created kafka topic", {{"topic", topic}, {"partitions", options.partitions}});
  } else if (static_cast<uint32_t>(partitions) != options.partitions) {
    return core::FailedPrecondition("topic " + topic + " has " + std::to_string(partitions) +
                                    " partitions; --partitions must be " +
                                    std::to_string(partitions));
  }

  SVC_RETURN_IF_ERROR(CheckTopicKeepsEverything(im.producer, topic, options.timeout));

  // Fences any earlier writer with the same transactional.id and completes its open transaction.
  if (rd_kafka_error_t* e = rd_kafka_init_transactions(im.producer,
                                                       static_cast<int>(options.timeout.count()))) {
    std::string msg = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    return core::Unavailable("kafka init_transactions: " + msg);
  }
  // Fence: a record of a new, higher writer epoch in every partition. From it on, readers drop
  // whatever an older writer with the same role still manages to write, and the older writer
  // finds the fence in the gap before its next records and stops (see VerifyGaps). Kafka brokers
  // fence a zombie with the same transactional.id themselves; this makes the guarantee hold on
  // any broker, the development mock included.
  SVC_ASSIGN_OR_RETURN(Tails before, ScanTails(options, im.producer, topic));
  im.writer_id = core::HexEncode(core::RandomBytes(8));
  im.epoch = before.max_epoch + 1;
  SVC_RETURN_IF_ERROR(WriteFence(im, options, topic));
  SVC_ASSIGN_OR_RETURN(Tails after, ScanTails(options, im.producer, topic));
  im.next_seq = after.next_seq;
  SVC_ASSIGN_OR_RETURN(im.verifier, NewConsumer(options.brokers, "svc-writer-verify"));
  im.end = std::make_unique<std::atomic<uint64_t>[]>(options.partitions);
  for (uint32_t p = 0; p < options.partitions; ++p) im.end[p].store(im.next_seq[p]);

  if (options.metrics != nullptr) {
    auto& m = *options.metrics;
    im.appends = &m.GetCounter("svc_log_appends_total", "Append calls completed", "backend=\"kafka\"");
    im.events = &m.GetCounter("svc_log_events_appended_total", "Events appended", "backend=\"kafka\"");
    im.transactions = &m.GetCounter("svc_log_transactions_total", "Kafka transactions committed",
                                    "backend=\"kafka\"");
    im.aborts = &m.GetCounter("svc_log_transaction_aborts_total",
                              "Kafka transactions aborted and retried", "backend=\"kafka\"");
    im.group_size = &m.GetHistogram("svc_log_group_commit_events", "Events per group commit",
                                    {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096},
                                    "backend=\"kafka\"");
  }
  im.appender = std::thread([l = log.get()] {
    core::SetThreadName("svc-log-append");
    l->AppenderLoop();
  });
  return log;
}

void KafkaLog::Append(uint32_t partition, std::vector<EventEnvelope> events, AppendCallback done) {
  if (AnswerTrivialAppend(partition, events, done)) return;
  Pending p;
  p.partition = partition;
  p.records.reserve(events.size());
  for (const auto& e : events) {
    Record r;
    r.value = EncodeEnvelope(e);  // on the caller's thread
    r.id = e.id;
    r.type = e.type;
    r.tenant = e.tenant_id;
    r.time = core::FormatRfc3339Micros(e.occurred_at);
    p.records.push_back(std::move(r));
  }
  p.done = std::move(done);
  auto& im = *impl_;
  {
    std::lock_guard lock(im.mu);
    if (im.closing) {
      p.done(core::Unavailable("event log is closed"));
      return;
    }
    if (!im.failed.ok()) {
      p.done(im.failed);
      return;
    }
    im.pending.push_back(std::move(p));
  }
  im.cv.notify_one();
}

void KafkaLog::AppenderLoop() {
  auto& im = *impl_;
  const std::string topic = Topic();
  const int timeout = static_cast<int>(options_.timeout.count());
  const std::string epoch = std::to_string(im.epoch);
  std::vector<Pending> group;
  for (;;) {
    group.clear();
    {
      std::unique_lock lock(im.mu);
      im.cv.wait(lock, [&] { return im.closing || !im.pending.empty(); });
      if (im.pending.empty()) break;
      size_t n = 0;
      while (!im.pending.empty() && (group.empty() || n < 2000)) {
        n += im.pending.front().records.size();
        group.push_back(std::move(im.pending.front()));
        im.pending.pop_front();
      }
      if (!im.failed.ok()) {
        core::Status st = im.failed;
        lock.unlock();
        for (auto& g : group) g.done(st);
        continue;
      }
    }
    // Sequences are fixed for the group: a retry after an abort re-sends the same bytes with the
    // same sequences, so readers drop any copy they see twice.
    for (auto& g : group) {
      for (auto& r : g.records) r.seq = im.next_seq[g.partition]++;
    }
    core::Status outcome;
    int attempts = 0;
    for (;;) {
      for (auto& g : group) {
        for (auto& r : g.records) {
          r.err = RD_KAFKA_RESP_ERR_NO_ERROR;
          r.kafka_offset = -1;
        }
      }
      rd_kafka_error_t* e = rd_kafka_begin_transaction(im.producer);
      bool abort_needed = false;
      bool fatal = false;
      std::string what;
      if (e != nullptr) {
        what = rd_kafka_error_string(e);
        fatal = true;
        rd_kafka_error_destroy(e);
      }
      for (size_t gi = 0; !fatal && gi < group.size(); ++gi) {
        auto& g = group[gi];
        for (auto& r : g.records) {
          for (;;) {
            rd_kafka_headers_t* h = rd_kafka_headers_new(8);
            std::string seq = std::to_string(r.seq);
            std::string source = "/svc/tenants/" + r.tenant;
            rd_kafka_header_add(h, "ce_specversion", -1, "1.0", 3);
            rd_kafka_header_add(h, "ce_id", -1, r.id.data(), static_cast<ssize_t>(r.id.size()));
            rd_kafka_header_add(h, "ce_type", -1, r.type.data(), static_cast<ssize_t>(r.type.size()));
            rd_kafka_header_add(h, "ce_source", -1, source.data(), static_cast<ssize_t>(source.size()));
            rd_kafka_header_add(h, "ce_time", -1, r.time.data(), static_cast<ssize_t>(r.time.size()));
            rd_kafka_header_add(h, "content-type", -1, "application/json", 16);
            rd_kafka_header_add(h, kSeqHeader, -1, seq.data(), static_cast<ssize_t>(seq.size()));
            rd_kafka_header_add(h, kEpochHeader, -1, epoch.data(),
                                static_cast<ssize_t>(epoch.size()));
            rd_kafka_header_add(h, kWriterHeader, -1, im.writer_id.data(),
                                static_cast<ssize_t>(im.writer_id.size()));
            rd_kafka_resp_err_t perr = rd_kafka_producev(
                im.producer, RD_KAFKA_V_TOPIC(topic.c_str()),
                RD_KAFKA_V_PARTITION(static_cast<int32_t>(g.partition)),
                RD_KAFKA_V_KEY(r.tenant.data(), r.tenant.size()),
                RD_KAFKA_V_VALUE(r.value.data(), r.value.size()), RD_KAFKA_V_HEADERS(h),
                RD_KAFKA_V_OPAQUE(&r), RD_KAFKA_V_END);
            if (perr == RD_KAFKA_RESP_ERR_NO_ERROR) break;
            rd_kafka_headers_destroy(h);
            if (perr == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
              rd_kafka_poll(im.producer, 10);
              continue;
            }
            what = rd_kafka_err2str(perr);
            abort_needed = true;
            break;
          }
          if (abort_needed) break;
        }
        if (abort_needed) break;
      }
      if (!fatal && !abort_needed) {
        rd_kafka_flush(im.producer, timeout);  // serves delivery reports
        for (auto& g : group) {
          for (auto& r : g.records) {
            if (r.err != RD_KAFKA_RESP_ERR_NO_ERROR || r.kafka_offset < 0) {
              abort_needed = true;
              what = r.err ? rd_kafka_err2str(r.err) : "no delivery report";
            }
          }
        }
      }
      if (!fatal && !abort_needed) {
        // Retriable commit errors are retried here; abortable ones abort and re-send the group.
        bool committed = false;
        for (int c = 0; c < 10; ++c) {
          rd_kafka_error_t* ce = rd_kafka_commit_transaction(im.producer, timeout);
          if (ce == nullptr) {
            committed = true;
            break;
          }
          what = rd_kafka_error_string(ce);
          bool retriable = rd_kafka_error_is_retriable(ce);
          abort_needed = rd_kafka_error_txn_requires_abort(ce);
          fatal = rd_kafka_error_is_fatal(ce) || (!retriable && !abort_needed);
          rd_kafka_error_destroy(ce);
          if (!retriable) break;
        }
        if (committed) {
          outcome = core::Status::Ok();
          break;
        }
        if (!abort_needed && !fatal) fatal = true;  // retries exhausted
      }
      if (fatal) {
        outcome = core::Unavailable("kafka transaction failed: " + what);
        break;
      }
      // Abortable: abort, then retry the whole group with the same sequences.
      if (im.aborts != nullptr) im.aborts->Add();
      core::LogWarn("kafka transaction aborted; retrying", {{"error", what}, {"attempt", attempts}});
      if (rd_kafka_error_t* ae = rd_kafka_abort_transaction(im.producer, timeout)) {
        what = rd_kafka_error_string(ae);
        rd_kafka_error_destroy(ae);
        outcome = core::Unavailable("kafka abort failed: " + what);
        break;
      }
      if (++attempts > options_.transaction_retries) {
        outcome = core::Unavailable("kafka transaction kept failing: " + what);
        break;
      }
    }
    if (outcome.ok()) outcome = VerifyGaps(im, options_, topic, group);
    if (!outcome.ok()) {
      core::LogError("kafka log halted", {{"error", outcome.ToString()}});
      {
        std::lock_guard lock(im.mu);
        im.failed = outcome;
      }
      for (auto& g : group) g.done(outcome);
      continue;
    }
    size_t n_events = 0;
    for (uint32_t p = 0; p < options_.partitions; ++p) im.end[p].store(im.next_seq[p]);
    for (auto& g : group) {
      AppendResult res;
      for (const auto& r : g.records) res.positions.push_back(LogPosition{g.partition, r.seq});
      res.backend_cursor = g.records.back().kafka_offset + 1;
      res.backend_epoch = im.epoch;
      n_events += g.records.size();
      g.done(std::move(res));
    }
    if (im.transactions != nullptr) {
      im.transactions->Add();
      im.appends->Add(group.size());
      im.events->Add(n_events);
      im.group_size->Observe(static_cast<double>(n_events));
    }
  }
}

core::Status CheckEventTopicConfig(const std::string& topic, const std::map<std::string, std::string>& config) {
  auto value = [&config](const std::string& k) {
    auto it = config.find(k);
    return it == config.end() ? std::optional<std::string>() : std::optional<std::string>(it->second);
  };
  auto refuse = [&](const std::string& setting, const std::string& want) {
    return core::FailedPrecondition(
        "topic " + topic + " has " + setting + "=" + value(setting).value_or("(unset)") +
        ": Kafka would delete events, the log's source of truth. Set " + setting + "=" + want +
        " (kafka-configs --alter --entity-type topics --entity-name " + topic + " --add-config " + setting + "=" + want +
        "; docs/operations.md#kafka)");
  };
  if (value("retention.ms") != "-1") return refuse("retention.ms", "-1");
  if (value("retention.bytes").value_or("-1") != "-1") return refuse("retention.bytes", "-1");
  if (value("cleanup.policy").value_or("delete").find("compact") != std::string::npos) {
    return refuse("cleanup.policy", "delete");
  }
  if (value("min.insync.replicas") == "1") {
    core::LogWarn("kafka topic: min.insync.replicas=1: an append acknowledged by one replica is lost with it; 2 is "
                  "advised with three replicas",
                  {{"topic", topic}});
  }
  return core::Status::Ok();
}

core::Result<std::unique_ptr<LogReader>> KafkaLog::OpenReader(std::string consumer_name,
                                                             std::vector<PartitionCheckpoint> start) {
  SVC_ASSIGN_OR_RETURN(ConsumerPtr rk, NewConsumer(options_.brokers, "svc-" + consumer_name));
  auto reader = std::make_unique<KafkaReader>(std::move(rk), Topic(), std::move(start),
                                              options_.partitions);
  SVC_RETURN_IF_ERROR(reader->Assign());
  return std::unique_ptr<LogReader>(std::move(reader));
}

core::Result<std::vector<uint64_t>> KafkaLog::EndOffsets() {
  std::vector<uint64_t> out(options_.partitions);
  for (uint32_t p = 0; p < options_.partitions; ++p) out[p] = impl_->end[p].load();
  return out;
}

void KafkaLog::Close() {
  auto& im = *impl_;
  {
    std::lock_guard lock(im.mu);
    if (im.closing) return;
    im.closing = true;
  }
  im.cv.notify_all();
  if (im.appender.joinable()) im.appender.join();
}

namespace {

core::Status WriteFence(KafkaLog::Impl& im, const KafkaLog::Options& o, const std::string& topic) {
  const int timeout = static_cast<int>(o.timeout.count());
  std::vector<Record> fences(o.partitions);
  if (rd_kafka_error_t* e = rd_kafka_begin_transaction(im.producer)) {
    std::string what = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    return core::Unavailable("kafka begin_transaction: " + what);
  }
  std::string epoch = std::to_string(im.epoch);
  std::string source = "/svc/writers/" + im.writer_id;
  std::string time = core::FormatRfc3339Micros(core::SystemClock().Now());
  for (uint32_t p = 0; p < o.partitions; ++p) {
    Record& r = fences[p];
    r.id = "fence-" + im.writer_id + "-" + std::to_string(p);
    core::Json v;
    v["writer"] = im.writer_id;
    v["epoch"] = im.epoch;
    v["partition"] = p;
    r.value = core::DumpJson(v);
    rd_kafka_headers_t* h = rd_kafka_headers_new(8);
    rd_kafka_header_add(h, "ce_specversion", -1, "1.0", 3);
    rd_kafka_header_add(h, "ce_id", -1, r.id.data(), static_cast<ssize_t>(r.id.size()));
    rd_kafka_header_add(h, "ce_type", -1, kFenceType, -1);
    rd_kafka_header_add(h, "ce_source", -1, source.data(), static_cast<ssize_t>(source.size()));
    rd_kafka_header_add(h, "ce_time", -1, time.data(), static_cast<ssize_t>(time.size()));
    rd_kafka_header_add(h, "content-type", -1, "application/json", 16);
    rd_kafka_header_add(h, kEpochHeader, -1, epoch.data(), static_cast<ssize_t>(epoch.size()));
    rd_kafka_header_add(h, kWriterHeader, -1, im.writer_id.data(),
                        static_cast<ssize_t>(im.writer_id.size()));
    rd_kafka_resp_err_t err = rd_kafka_producev(
        im.producer, RD_KAFKA_V_TOPIC(topic.c_str()),
        RD_KAFKA_V_PARTITION(static_cast<int32_t>(p)), RD_KAFKA_V_KEY("svc-writer-fence", 16),
        RD_KAFKA_V_VALUE(r.value.data(), r.value.size()), RD_KAFKA_V_HEADERS(h),
        RD_KAFKA_V_OPAQUE(&r), RD_KAFKA_V_END);
    if (err) {
      rd_kafka_headers_destroy(h);
      return KafkaError("writing the writer fence", err);
    }
  }
  rd_kafka_flush(im.producer, timeout);
  if (rd_kafka_error_t* e = rd_kafka_commit_transaction(im.producer, timeout)) {
    std::string what = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    return core::Unavailable("kafka commit of the writer fence: " + what);
  }
  im.last_end.assign(o.partitions, -1);
  for (uint32_t p = 0; p < o.partitions; ++p) {
    if (fences[p].err || fences[p].kafka_offset < 0) {
      return KafkaError("writer fence delivery", fences[p].err);
    }
    im.last_end[p] = fences[p].kafka_offset + 1;
  }
  core::LogInfo("kafka writer fenced earlier writers",
                {{"writer", im.writer_id}, {"epoch", im.epoch}});
  return core::Status::Ok();
}

// Before a group is acknowledged: in each partition it wrote, anything between our previous
// record and this group's first record must be ours (or invisible: transaction markers). A
// record of another writer there, typically its fence, means we were fenced: readers drop our
// records, so we must not acknowledge them, and we stop.
core::Status VerifyGaps(KafkaLog::Impl& im, const KafkaLog::Options& o, const std::string& topic,
                        std::vector<Pending>& group) {
  std::map<uint32_t, std::pair<int64_t, int64_t>> touched;  // partition -> [first, last] offset
  for (const auto& g : group) {
    for (const auto& r : g.records) {
      auto [it, inserted] = touched.emplace(g.partition, std::make_pair(r.kafka_offset, r.kafka_offset));
      if (!inserted) {
        it->second.first = std::min(it->second.first, r.kafka_offset);
        it->second.second = std::max(it->second.second, r.kafka_offset);
      }
    }
  }
  for (const auto& [p, range] : touched) {
    int64_t from = im.last_end[p], first = range.first;
    if (from >= 0 && from < first) {
      rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
      rd_kafka_topic_partition_list_add(list, topic.c_str(), static_cast<int32_t>(p))->offset = from;
      rd_kafka_resp_err_t err = rd_kafka_assign(im.verifier.get(), list);
      rd_kafka_topic_partition_list_destroy(list);
      if (err) return KafkaError("assign", err);
      auto deadline = std::chrono::steady_clock::now() + o.timeout;
      std::string foreign;
      for (;;) {
        if (std::chrono::steady_clock::now() > deadline) {
          return core::Unavailable("could not verify partition " + std::to_string(p) +
                                   " after commit");
        }
        rd_kafka_message_t* msg = rd_kafka_consumer_poll(im.verifier.get(), 50);
        if (msg == nullptr) continue;
        if (msg->err) {
          rd_kafka_message_destroy(msg);
          continue;
        }
        int64_t off = msg->offset;
        if (off < first) {
          rd_kafka_headers_t* hdrs = nullptr;
          rd_kafka_message_headers(msg, &hdrs);
          std::string writer = Header(hdrs, kWriterHeader);
          std::string e = Header(hdrs, kEpochHeader);
          uint64_t epoch = e.empty() ? 0 : std::stoull(e);
          // A lower epoch is a fenced writer's late write (readers drop it); only a newer epoch
          // (its fence or its records) fences us.
          if (writer != im.writer_id && epoch >= im.epoch) foreign = writer.empty() ? "?" : writer;
        }
        rd_kafka_message_destroy(msg);
        if (!foreign.empty() || off >= first) break;
      }
      rd_kafka_assign(im.verifier.get(), nullptr);
      if (!foreign.empty()) {
        return core::Unavailable("this writer was fenced by writer " + foreign +
                                 " (same role started elsewhere); stopping");
      }
    }
    im.last_end[p] = range.second + 1;
  }
  return core::Status::Ok();
}

}  // namespace

}  // namespace svc::eventstore
