#include "eventstore/kafka_log.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <cstring>
#include <map>
#include <optional>

#include "core/crypto.h"
#include "core/executor.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/log.h"
#include "eventstore/kafka_client.h"

namespace svc::eventstore {

namespace {

using Ms = std::chrono::milliseconds;
using kafka::ConsumerPtr;
using kafka::Header;
using kafka::KafkaError;
using kafka::NewConsumer;
using kafka::Set;

constexpr const char* kEpochHeader = "ce_svcepoch";
constexpr const char* kWriterHeader = "ce_svcwriter";
// "group" on every record of a writer group's unit (none on a single writer's): a single writer
// starting against the topic finds that a group writes it (issue 67).
constexpr const char* kWritersHeader = "ce_svcwriters";
constexpr const char* kFenceType = "svc.writer_fence";

}  // namespace

// Named, not anonymous: KafkaLog::Unit (declared in the header) holds them.
namespace kafka_log_internal {

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

}  // namespace kafka_log_internal

namespace {

using kafka_log_internal::Pending;
using kafka_log_internal::Record;

void DeliveryReport(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
  auto* r = static_cast<Record*>(msg->_private);
  if (r == nullptr) return;
  r->err = msg->err;
  r->kafka_offset = msg->offset;
}

// A read_committed consumer over the partitions it is given, de-duplicating by sequence.
class KafkaReader final : public LogReader {
 public:
  // Reads `only` (every partition when empty).
  KafkaReader(ConsumerPtr rk, std::string topic, std::vector<PartitionCheckpoint> start,
              uint32_t partitions, const std::vector<uint32_t>& only,
              std::shared_ptr<std::atomic<uint64_t>[]> seen_epochs)
      : rk_(std::move(rk)), topic_(std::move(topic)), seen_epochs_(std::move(seen_epochs)) {
    next_seq_.assign(partitions, 0);
    epoch_.assign(partitions, 0);
    at_end_.assign(partitions, false);
    for (uint32_t p = 0; p < partitions && p < start.size(); ++p) {
      next_seq_[p] = start[p].next_offset;
      epoch_[p] = start[p].backend_epoch;
    }
    starts_ = std::move(start);
    starts_.resize(partitions);
    read_.assign(partitions, only.empty());
    for (uint32_t p : only) {
      if (p < partitions) read_[p] = true;
    }
    for (uint32_t p = 0; p < partitions; ++p) at_end_[p] = !read_[p];
  }

  core::Status Assign() {
    rd_kafka_topic_partition_list_t* list =
        rd_kafka_topic_partition_list_new(static_cast<int>(next_seq_.size()));
    for (uint32_t p = 0; p < next_seq_.size(); ++p) {
      if (!read_[p]) continue;
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
      if (p >= next_seq_.size() || !read_[p]) {
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
        Saw(p);
        rd_kafka_message_destroy(msg);
        continue;
      }
      if (epoch < epoch_[p]) {  // written by a fenced writer after its successor's fence
        rd_kafka_message_destroy(msg);
        continue;
      }
      epoch_[p] = epoch;
      Saw(p);
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
  // The process's highest epoch seen in partition p goes up to this reader's (KafkaLog::TakeOver
  // starts above it).
  void Saw(uint32_t p) {
    if (!seen_epochs_) return;
    std::atomic<uint64_t>& seen = seen_epochs_[p];
    uint64_t was = seen.load();
    while (was < epoch_[p] && !seen.compare_exchange_weak(was, epoch_[p])) {
    }
  }

  ConsumerPtr rk_;
  std::string topic_;
  std::shared_ptr<std::atomic<uint64_t>[]> seen_epochs_;
  std::vector<uint64_t> next_seq_;
  std::vector<uint64_t> epoch_;
  std::vector<bool> at_end_;
  std::vector<bool> read_;
  std::vector<PartitionCheckpoint> starts_;
  std::atomic<bool> woken_{false};
};

}  // namespace

// A writer of some partitions: one transactional producer, the epoch of the fence it wrote in
// each of them, and the appender thread that writes their queued appends in group transactions.
struct KafkaLog::Unit {
  std::vector<uint32_t> partitions;
  std::string transactional_id;
  rd_kafka_t* producer = nullptr;
  std::string writer_id;        // random, per unit
  bool group = false;           // a writer group's unit (its records carry ce_svcwriters: group)
  uint64_t epoch = 0;           // this unit's epoch (its fence)
  std::vector<uint64_t> next_seq;   // appender-only; indexed by partition
  std::vector<int64_t> last_end;    // appender-only: offset after our last record, by partition
  ConsumerPtr verifier;             // reads gaps between our transactions
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Pending> pending;
  bool closing = false;
  core::Status failed;  // sticky once set
  std::thread appender;
  std::atomic<bool> exited{false};  // the appender returned: joining it does not wait

  ~Unit() {
    if (producer != nullptr) rd_kafka_destroy(producer);
  }
};

struct KafkaLog::Impl {
  rd_kafka_t* meta = nullptr;  // a plain producer: metadata and watermarks, never sends
  ConsumerPtr tails;           // reads partition tails (EndOffsets of partitions written elsewhere)
  std::timed_mutex tails_mu;   // EndOffset waits for it at most its limit
  mutable std::mutex units_mu;
  std::vector<std::shared_ptr<Unit>> unit_of;  // by partition; null: not written here
  bool closed = false;
  std::unique_ptr<std::atomic<uint64_t>[]> end;  // committed next sequence per partition written here
  // The highest writer epoch any reader of this process has seen, per partition: a take-over's
  // epoch is above it whatever the tail scan finds (issue 67), so readers here never see the new
  // writer's events as a fenced writer's.
  std::shared_ptr<std::atomic<uint64_t>[]> seen_epochs;
  // Units of partitions lost (not handed over) whose appender may still be inside a call to a
  // broker it cannot reach: joined once it returned, or at Close (under units_mu).
  std::vector<std::shared_ptr<Unit>> retired;
  core::Counter* appends = nullptr;
  core::Counter* events = nullptr;
  core::Counter* transactions = nullptr;
  core::Counter* aborts = nullptr;
  core::Histogram* group_size = nullptr;
};

KafkaLog::KafkaLog(const Options& options) : options_(options), impl_(std::make_unique<Impl>()) {}

KafkaLog::~KafkaLog() {
  Close();
  impl_->tails.reset();
  if (impl_->meta != nullptr) rd_kafka_destroy(impl_->meta);
}

namespace {

struct Tails {
  std::vector<uint64_t> next_seq;  // by partition (0 for partitions not scanned)
  uint64_t max_epoch = 0;          // over the partitions scanned
  std::vector<uint32_t> group_written;  // the partitions scanned whose current writer is a group's unit
};

}  // namespace

TailVerdict JudgeTail(const std::vector<TailRecord>& records, uint64_t max_epoch, int64_t low, int64_t high,
                      int64_t window) {
  TailVerdict v;
  uint64_t running = 0;
  bool has_max = false, has_event = false;
  for (const auto& r : records) {
    has_max |= r.epoch == max_epoch;
    if (r.fence) {
      if (r.epoch >= running) v.group = r.group;
      running = std::max(running, r.epoch);
    } else if (r.has_seq && r.epoch >= running) {
      running = r.epoch;
      v.next_seq = r.seq + 1;
      v.found_seq = true;
      v.group = r.group;
      has_event = true;
    }
  }
  // A window that shows nothing (every record in it aborted, or transaction markers) tells
  // nothing of the epochs and sequences before it: it widens like any other until it reaches the
  // partition's start (issue 67: it used to stop, and the new epoch came out as 1).
  const bool at_start = high - window <= low;
  v.widen = (!has_max || !has_event) && !at_start;
  return v;
}

namespace {

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
    TailRecord r{msg->offset, Header(hdrs, "ce_type") == kFenceType, 0, false, 0, Header(hdrs, kWritersHeader) == "group"};
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

// Finds, for each of `partitions`, the next sequence to assign and, over them, the highest writer
// epoch. Reads each partition's tail, widening the window until it holds a record of the highest
// epoch and an accepted event (or reaches the start): records of a lower epoch after a fence are
// a fenced writer's and do not count.
// Each call to the broker waits at most `timeout`.
core::Result<Tails> ScanTails(const KafkaLog::Options& o, rd_kafka_t* meta, rd_kafka_t* rk,
                              const std::string& topic, const std::vector<uint32_t>& partitions, Ms timeout) {
  struct Part {
    int64_t low = 0, high = 0, window = 64;
    std::vector<TailRecord> records;
  };
  std::map<uint32_t, Part> parts;
  for (uint32_t p : partitions) {
    Part& pt = parts[p];
    SVC_RETURN_IF_ERROR(kafka::Watermarks(meta, topic, static_cast<int32_t>(p), timeout, &pt.low, &pt.high));
  }
  auto read = [&](uint32_t p) -> core::Status {
    Part& pt = parts[p];
    int64_t start = std::max(pt.low, pt.high - pt.window);
    if (start >= pt.high) {
      pt.records.clear();
      return core::Status::Ok();
    }
    SVC_ASSIGN_OR_RETURN(pt.records, ReadRange(rk, topic, p, start, timeout));
    return core::Status::Ok();
  };
  for (uint32_t p : partitions) SVC_RETURN_IF_ERROR(read(p));
  Tails t;
  t.next_seq.assign(o.partitions, 0);
  for (;;) {
    t.max_epoch = 0;
    for (const auto& [p, pt] : parts) {
      for (const auto& r : pt.records) t.max_epoch = std::max(t.max_epoch, r.epoch);
    }
    bool widened = false;
    t.group_written.clear();
    for (auto& [p, pt] : parts) {
      const TailVerdict v = JudgeTail(pt.records, t.max_epoch, pt.low, pt.high, pt.window);
      if (v.found_seq) t.next_seq[p] = v.next_seq;
      if (v.group) t.group_written.push_back(p);  // the last pass's verdicts are the answer
      if (v.widen) {
        pt.window *= 4;
        SVC_RETURN_IF_ERROR(read(p));
        widened = true;
      }
    }
    if (!widened) break;
  }
  return t;
}


core::Status WriteFence(KafkaLog::Unit& u, const KafkaLog::Options& o, const std::string& topic);
core::Status VerifyGaps(KafkaLog::Unit& u, const KafkaLog::Options& o, const std::string& topic,
                        std::vector<Pending>& group);

}  // namespace

namespace kafka {
// The events topic must keep every event (docs/operations.md#kafka): retention.ms=-1,
// retention.bytes=-1, cleanup.policy=delete (never compact: every event of a tenant has the same
// key). A topic whose settings would delete events is refused with the setting to change. A broker
// that cannot describe topic configurations is refused too, except librdkafka's mock cluster (the
// development broker, `svc dev-broker`, which keeps every record in memory).
core::Status CheckTopicKeepsEverything(rd_kafka_t* rk, const std::string& topic, Ms timeout) {
  // The mock cluster answers no DescribeConfigs (librdkafka would wait out the timeout for it):
  // it is recognised by its cluster id first.
  if (kafka::IsMockCluster(rk, timeout)) return core::Status::Ok();  // svc dev-broker: keeps every record
  auto config = kafka::DescribeTopicConfig(rk, topic, timeout);
  if (!config.ok()) {
    return core::FailedPrecondition(
        "cannot read the configuration of topic " + topic + " (" + config.status().message() +
        "): the events topic must be known to keep every event (retention.ms=-1, retention.bytes=-1, "
        "cleanup.policy=delete); grant DescribeConfigs on it (docs/operations.md#kafka)");
  }
  SVC_ASSIGN_OR_RETURN(int replicas, kafka::ReplicationFactor(rk, topic, timeout));
  return CheckEventTopicConfig(topic, *config, replicas);
}
}  // namespace kafka

core::Result<std::unique_ptr<KafkaLog>> KafkaLog::Open(const Options& options) {
  if (options.brokers.empty()) return core::InvalidArgument("--kafka-brokers is required");
  if (options.partitions == 0) return core::InvalidArgument("partitions must be > 0");
  std::unique_ptr<KafkaLog> log(new KafkaLog(options));
  auto& im = *log->impl_;
  const std::string topic = log->Topic();

  SVC_ASSIGN_OR_RETURN(im.meta, kafka::NewMetadataClient(options.brokers));
  // The events topic is the source of truth: nothing may delete or compact it.
  SVC_RETURN_IF_ERROR(kafka::EnsureTopic(im.meta, topic, options.partitions,
                                         {{"retention.ms", "-1"}, {"retention.bytes", "-1"}, {"cleanup.policy", "delete"}},
                                         options.create_topic, options.timeout));
  SVC_RETURN_IF_ERROR(kafka::CheckTopicKeepsEverything(im.meta, topic, options.timeout));
  SVC_ASSIGN_OR_RETURN(im.tails, NewConsumer(options.brokers, "svc-log-tails"));
  im.unit_of.resize(options.partitions);
  im.end = std::make_unique<std::atomic<uint64_t>[]>(options.partitions);
  for (uint32_t p = 0; p < options.partitions; ++p) im.end[p].store(0);
  im.seen_epochs = std::shared_ptr<std::atomic<uint64_t>[]>(new std::atomic<uint64_t>[options.partitions]());
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
  if (options.write_all) {
    std::vector<uint32_t> all(options.partitions);
    for (uint32_t p = 0; p < options.partitions; ++p) all[p] = p;
    SVC_RETURN_IF_ERROR(log->TakeOver(all, options.transactional_id, /*group=*/false));
  }
  return log;
}

core::Status KafkaLog::TakeOver(const std::vector<uint32_t>& partitions, const std::string& transactional_id,
                                bool group) {
  auto& im = *impl_;
  const std::string topic = Topic();
  {
    std::lock_guard lock(im.units_mu);
    if (im.closed) return core::Unavailable("event log is closed");
    for (uint32_t p : partitions) {
      if (p >= options_.partitions) return core::InvalidArgument("no partition " + std::to_string(p));
      if (im.unit_of[p] != nullptr) return core::FailedPrecondition("partition " + std::to_string(p) + " is written here already");
    }
  }
  auto unit = std::make_shared<Unit>();
  unit->partitions = partitions;
  unit->transactional_id = transactional_id;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::string error;
  bool ok = Set(conf, "bootstrap.servers", options_.brokers, &error) &&
            Set(conf, "transactional.id", transactional_id, &error) &&
            Set(conf, "enable.idempotence", "true", &error) &&
            Set(conf, "acks", "all", &error) &&
            Set(conf, "linger.ms", "1", &error) &&
            Set(conf, "socket.nagle.disable", "true", &error) &&
            Set(conf, "queue.buffering.max.messages", "1000000", &error) &&
            Set(conf, "message.timeout.ms", std::to_string(options_.timeout.count()), &error) &&
            Set(conf, "transaction.timeout.ms",
                std::to_string(std::max<int64_t>(60000, options_.timeout.count() * 2)), &error);
  if (!ok) {
    rd_kafka_conf_destroy(conf);
    return core::InvalidArgument("kafka producer config: " + error);
  }
  rd_kafka_conf_set_dr_msg_cb(conf, DeliveryReport);
  rd_kafka_conf_set_log_cb(conf, kafka::LogLine);
  char err[512];
  unit->producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (unit->producer == nullptr) {
    rd_kafka_conf_destroy(conf);
    return core::Unavailable(std::string("kafka producer: ") + err);
  }
  // Fences any earlier producer with the same transactional.id and completes its open transaction.
  if (rd_kafka_error_t* e = rd_kafka_init_transactions(unit->producer, static_cast<int>(options_.timeout.count()))) {
    std::string msg = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    return core::Unavailable("kafka init_transactions: " + msg);
  }
  // Fence: a record of a new, higher writer epoch in every partition of the unit. From it on,
  // readers drop whatever an older writer of these partitions still manages to write, and the
  // older writer finds the fence in the gap before its next records and stops (see VerifyGaps).
  // Kafka fences a zombie with the same transactional.id itself; this makes the guarantee hold on
  // any broker, the development mock included, and whatever id the older writer had.
  // Its own consumer for the tails: partitions given at once are taken over side by side.
  SVC_ASSIGN_OR_RETURN(ConsumerPtr tails, NewConsumer(options_.brokers, "svc-log-tails"));
  SVC_ASSIGN_OR_RETURN(Tails before, ScanTails(options_, im.meta, tails.get(), topic, partitions, options_.timeout));
  if (!group && !options_.take_over_group && !before.group_written.empty()) {
    // A single writer fences every partition: started by mistake beside a cluster (no
    // --kafka-writers group), it would stop every node's writes.
    std::string which;
    for (uint32_t p : before.group_written) which += (which.empty() ? "" : ",") + std::to_string(p);
    return core::FailedPrecondition("partitions " + which + " of " + topic +
                                    " are written by a writer group (--kafka-writers group): a single writer would "
                                    "fence its nodes. Start this node with --kafka-writers group, or stop every node of "
                                    "the group and start with --kafka-take-over-group (docs/operations.md#kafka)");
  }
  unit->writer_id = core::HexEncode(core::RandomBytes(8));
  unit->group = group;
  // Monotonic whatever the tail holds: above every epoch the scan found and every epoch this
  // process's readers have seen in these partitions (docs/decisions.md, "Writer epochs").
  uint64_t floor = before.max_epoch;
  for (uint32_t p : partitions) floor = std::max(floor, im.seen_epochs[p].load());
  unit->epoch = floor + 1;
  unit->last_end.assign(options_.partitions, -1);
  SVC_RETURN_IF_ERROR(WriteFence(*unit, options_, topic));
  SVC_ASSIGN_OR_RETURN(Tails after, ScanTails(options_, im.meta, tails.get(), topic, partitions, options_.timeout));
  unit->next_seq = after.next_seq;
  SVC_ASSIGN_OR_RETURN(unit->verifier, NewConsumer(options_.brokers, "svc-writer-verify"));
  for (uint32_t p : partitions) im.end[p].store(unit->next_seq[p]);
  {
    std::lock_guard lock(im.units_mu);
    if (im.closed) return core::Unavailable("event log is closed");
    for (uint32_t p : partitions) im.unit_of[p] = unit;
  }
  unit->appender = std::thread([this, u = unit.get()] {
    core::SetThreadName("svc-log-append");
    AppenderLoop(*u);
    u->exited.store(true);
  });
  return core::Status::Ok();
}

namespace {
// Tells a unit to stop: its appender finishes the group it writes; what is still queued fails.
// False when it was told already.
bool SignalStop(KafkaLog::Unit& u, const core::Status& why) {
  {
    std::lock_guard lock(u.mu);
    if (u.closing) return false;
    u.closing = true;
    if (u.failed.ok()) u.failed = why;
  }
  u.cv.notify_all();
  return true;
}

// Stops a unit and waits for its appender.
void StopUnit(KafkaLog::Unit& u, const core::Status& why) {
  if (SignalStop(u, why) && u.appender.joinable()) u.appender.join();
}
}  // namespace

void KafkaLog::Release(const std::vector<uint32_t>& partitions, bool drain) {
  auto& im = *impl_;
  std::vector<std::shared_ptr<Unit>> stopping;
  {
    std::lock_guard lock(im.units_mu);
    for (uint32_t p : partitions) {
      if (p >= im.unit_of.size() || im.unit_of[p] == nullptr) continue;
      auto u = im.unit_of[p];
      if (std::find(stopping.begin(), stopping.end(), u) == stopping.end()) stopping.push_back(u);
    }
    for (const auto& u : stopping) {
      for (uint32_t q : u->partitions) im.unit_of[q] = nullptr;
    }
  }
  if (drain) {
    for (const auto& u : stopping) StopUnit(*u, core::Status::Ok());
    return;
  }
  // Lost: another node writes them already (and fenced these producers). The appender may be
  // inside a commit to a broker it cannot reach (a node cut from Kafka) for up to the log's
  // timeout, twice (commit, then abort); the group's callback, and with it GET /node and this
  // node's next join, must not wait for that. It is joined once it returned, or at Close.
  std::vector<std::shared_ptr<Unit>> finished;
  {
    std::lock_guard lock(im.units_mu);
    for (const auto& u : stopping) {
      SignalStop(*u, core::Unavailable("this node no longer writes the partition"));
      im.retired.push_back(u);
    }
    auto done = std::stable_partition(im.retired.begin(), im.retired.end(),
                                      [](const std::shared_ptr<Unit>& u) { return !u->exited.load(); });
    finished.assign(std::make_move_iterator(done), std::make_move_iterator(im.retired.end()));
    im.retired.erase(done, im.retired.end());
  }
  for (const auto& u : finished) {
    if (u->appender.joinable()) u->appender.join();
  }
}

std::shared_ptr<KafkaLog::Unit> KafkaLog::UnitOf(uint32_t partition) const {
  std::lock_guard lock(impl_->units_mu);
  return partition < impl_->unit_of.size() ? impl_->unit_of[partition] : nullptr;
}

std::vector<uint32_t> KafkaLog::OwnedPartitions() const {
  std::vector<uint32_t> out;
  std::lock_guard lock(impl_->units_mu);
  for (uint32_t p = 0; p < impl_->unit_of.size(); ++p) {
    if (impl_->unit_of[p] != nullptr) out.push_back(p);
  }
  return out;
}

bool KafkaLog::Owns(uint32_t partition) const { return UnitOf(partition) != nullptr; }

void KafkaLog::Append(uint32_t partition, std::vector<EventEnvelope> events, AppendCallback done) {
  if (AnswerTrivialAppend(partition, events, done)) return;
  std::shared_ptr<Unit> unit = UnitOf(partition);
  if (unit == nullptr) {
    done(core::Unavailable("partition " + std::to_string(partition) + " is not written by this node"));
    return;
  }
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
  {
    std::lock_guard lock(unit->mu);
    if (unit->closing) {
      p.done(unit->failed.ok() ? core::Unavailable("event log is closed") : unit->failed);
      return;
    }
    if (!unit->failed.ok()) {
      p.done(unit->failed);
      return;
    }
    unit->pending.push_back(std::move(p));
  }
  unit->cv.notify_one();
}

void KafkaLog::AppenderLoop(Unit& u) {
  auto& im = *impl_;
  const std::string topic = Topic();
  const int timeout = static_cast<int>(options_.timeout.count());
  const std::string epoch = std::to_string(u.epoch);
  std::vector<Pending> group;
  for (;;) {
    group.clear();
    {
      std::unique_lock lock(u.mu);
      u.cv.wait(lock, [&] { return u.closing || !u.pending.empty(); });
      if (u.pending.empty()) break;
      size_t n = 0;
      while (!u.pending.empty() && (group.empty() || n < 2000)) {
        n += u.pending.front().records.size();
        group.push_back(std::move(u.pending.front()));
        u.pending.pop_front();
      }
      if (!u.failed.ok()) {
        core::Status st = u.failed;
        lock.unlock();
        for (auto& g : group) g.done(st);
        continue;
      }
    }
    // Sequences are fixed for the group: a retry after an abort re-sends the same bytes with the
    // same sequences, so readers drop any copy they see twice.
    for (auto& g : group) {
      for (auto& r : g.records) r.seq = u.next_seq[g.partition]++;
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
      rd_kafka_error_t* e = rd_kafka_begin_transaction(u.producer);
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
            rd_kafka_header_add(h, kWriterHeader, -1, u.writer_id.data(),
                                static_cast<ssize_t>(u.writer_id.size()));
            if (u.group) rd_kafka_header_add(h, kWritersHeader, -1, "group", 5);
            rd_kafka_resp_err_t perr = rd_kafka_producev(
                u.producer, RD_KAFKA_V_TOPIC(topic.c_str()),
                RD_KAFKA_V_PARTITION(static_cast<int32_t>(g.partition)),
                RD_KAFKA_V_KEY(r.tenant.data(), r.tenant.size()),
                RD_KAFKA_V_VALUE(r.value.data(), r.value.size()), RD_KAFKA_V_HEADERS(h),
                RD_KAFKA_V_OPAQUE(&r), RD_KAFKA_V_END);
            if (perr == RD_KAFKA_RESP_ERR_NO_ERROR) break;
            rd_kafka_headers_destroy(h);
            if (perr == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
              rd_kafka_poll(u.producer, 10);
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
        rd_kafka_flush(u.producer, timeout);  // serves delivery reports
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
          rd_kafka_error_t* ce = rd_kafka_commit_transaction(u.producer, timeout);
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
      if (rd_kafka_error_t* ae = rd_kafka_abort_transaction(u.producer, timeout)) {
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
    if (!outcome.ok()) {
      // A transactional producer fenced by a newer one with its id (another node took the
      // partition over) has that as its fatal error.
      char reason[256];
      const rd_kafka_resp_err_t fe = rd_kafka_fatal_error(u.producer, reason, sizeof reason);
      if (fe == RD_KAFKA_RESP_ERR__FENCED || fe == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
          fe == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH) {
        outcome = core::Unavailable(outcome.message(), kWriterFenced);
      }
    }
    if (outcome.ok()) outcome = VerifyGaps(u, options_, topic, group);
    if (!outcome.ok()) {
      if (outcome.api_code() == kWriterFenced) {
        // Not a halt: the node's writers' group lets the fenced partitions go (Writer::OnFenced).
        core::LogWarn("kafka writer fenced: its appends are refused, another node writes its partitions",
                      {{"error", outcome.ToString()}});
      } else {
        core::LogError("kafka log halted", {{"error", outcome.ToString()}});
      }
      {
        std::lock_guard lock(u.mu);
        u.failed = outcome;
      }
      for (auto& g : group) g.done(outcome);
      continue;
    }
    size_t n_events = 0;
    for (uint32_t p : u.partitions) im.end[p].store(u.next_seq[p]);
    for (auto& g : group) {
      AppendResult res;
      for (const auto& r : g.records) res.positions.push_back(LogPosition{g.partition, r.seq});
      res.backend_cursor = g.records.back().kafka_offset + 1;
      res.backend_epoch = u.epoch;
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

core::Status CheckEventTopicConfig(const std::string& topic, const std::map<std::string, std::string>& config,
                                   int replication_factor) {
  auto value = [&config](const std::string& k) {
    auto it = config.find(k);
    return it == config.end() ? std::optional<std::string>() : std::optional<std::string>(it->second);
  };
  auto refuse = [&](const std::string& setting, const std::string& want,
                    const std::string& why = "Kafka would delete events, the log's source of truth") {
    return core::FailedPrecondition(
        "topic " + topic + " has " + setting + "=" + value(setting).value_or("(unset)") + ": " + why + ". Set " +
        setting + "=" + want + " (kafka-configs --alter --entity-type topics --entity-name " + topic +
        " --add-config " + setting + "=" + want + "; docs/operations.md#kafka)");
  };
  if (value("retention.ms") != "-1") return refuse("retention.ms", "-1");
  if (value("retention.bytes").value_or("-1") != "-1") return refuse("retention.bytes", "-1");
  if (value("cleanup.policy").value_or("delete").find("compact") != std::string::npos) {
    return refuse("cleanup.policy", "delete");
  }
  if (value("unclean.leader.election.enable") == "true") {
    return refuse("unclean.leader.election.enable", "false",
                  "a replica that missed acknowledged events could become leader and drop them");
  }
  int64_t insync = 1;
  try {
    insync = std::stoll(value("min.insync.replicas").value_or("1"));
  } catch (...) {
  }
  if (replication_factor >= 2 && insync < 2) {
    return refuse("min.insync.replicas", "2",
                  "an append is acknowledged once one replica has it, and lost with that replica although the topic "
                  "has " + std::to_string(replication_factor) + " replicas");
  }
  if (replication_factor == 1) {
    core::LogWarn("kafka topic: one replica: every event is lost with that broker's disk (a development broker; "
                  "three replicas and min.insync.replicas=2 in production)",
                  {{"topic", topic}});
  }
  return core::Status::Ok();
}

core::Result<std::unique_ptr<LogReader>> KafkaLog::OpenReader(std::string consumer_name,
                                                             std::vector<PartitionCheckpoint> start) {
  return OpenPartitionReader(std::move(consumer_name), std::move(start), {});
}

core::Result<std::unique_ptr<LogReader>> KafkaLog::OpenPartitionReader(std::string consumer_name,
                                                                      std::vector<PartitionCheckpoint> start,
                                                                      const std::vector<uint32_t>& partitions) {
  SVC_ASSIGN_OR_RETURN(ConsumerPtr rk, NewConsumer(options_.brokers, "svc-" + consumer_name));
  kafka::WarmTopicMetadata(rk.get(), Topic(), options_.timeout);
  auto reader = std::make_unique<KafkaReader>(std::move(rk), Topic(), std::move(start), options_.partitions,
                                              partitions, impl_->seen_epochs);
  SVC_RETURN_IF_ERROR(reader->Assign());
  return std::unique_ptr<LogReader>(std::move(reader));
}

core::Result<std::vector<uint64_t>> KafkaLog::EndOffsets() {
  auto& im = *impl_;
  std::vector<uint64_t> out(options_.partitions);
  std::vector<uint32_t> elsewhere;  // written by another process (or a newer writer fenced ours): read from the topic
  for (uint32_t p = 0; p < options_.partitions; ++p) {
    std::shared_ptr<Unit> unit = UnitOf(p);
    bool writing = false;
    if (unit != nullptr) {
      std::lock_guard lock(unit->mu);
      writing = unit->failed.ok();
    }
    if (writing) {
      out[p] = im.end[p].load();
    } else {
      elsewhere.push_back(p);
    }
  }
  if (!elsewhere.empty()) {
    std::lock_guard lock(im.tails_mu);
    SVC_ASSIGN_OR_RETURN(Tails now, ScanTails(options_, im.meta, im.tails.get(), Topic(), elsewhere, options_.timeout));
    for (uint32_t p : elsewhere) out[p] = now.next_seq[p];
  }
  return out;
}

core::Result<uint64_t> KafkaLog::EndOffset(uint32_t partition, Ms limit) {
  auto& im = *impl_;
  if (partition >= options_.partitions) return core::InvalidArgument("no partition " + std::to_string(partition));
  if (std::shared_ptr<Unit> unit = UnitOf(partition)) {
    std::lock_guard lock(unit->mu);
    if (unit->failed.ok()) return im.end[partition].load();
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::unique_lock lock(im.tails_mu, std::defer_lock);
  if (!lock.try_lock_for(limit)) return core::Unavailable("the event log's end could not be read in time");
  const Ms left = std::chrono::duration_cast<Ms>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return core::Unavailable("the event log's end could not be read in time");
  auto now = ScanTails(options_, im.meta, im.tails.get(), Topic(), {partition}, left);
  if (!now.ok()) return core::Unavailable("the event log's end could not be read: " + now.status().message());
  return now->next_seq[partition];
}

void KafkaLog::Close() {
  auto& im = *impl_;
  std::vector<std::shared_ptr<Unit>> units;
  {
    std::lock_guard lock(im.units_mu);
    if (im.closed) return;
    im.closed = true;
    for (auto& u : im.unit_of) {
      if (u != nullptr && std::find(units.begin(), units.end(), u) == units.end()) units.push_back(u);
    }
  }
  // Pending appends complete (a shutdown writes what was accepted), then the appenders stop. The
  // units stay mapped: a late Append is answered "closed" by its unit.
  for (const auto& u : units) StopUnit(*u, core::Status::Ok());
  std::vector<std::shared_ptr<Unit>> retired;
  {
    std::lock_guard lock(im.units_mu);
    retired.swap(im.retired);
  }
  for (const auto& u : retired) {
    if (u->appender.joinable()) u->appender.join();
  }
}

namespace {

core::Status WriteFence(KafkaLog::Unit& u, const KafkaLog::Options& o, const std::string& topic) {
  const int timeout = static_cast<int>(o.timeout.count());
  std::vector<Record> fences(u.partitions.size());
  if (rd_kafka_error_t* e = rd_kafka_begin_transaction(u.producer)) {
    std::string what = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    return core::Unavailable("kafka begin_transaction: " + what);
  }
  std::string epoch = std::to_string(u.epoch);
  std::string source = "/svc/writers/" + u.writer_id;
  std::string time = core::FormatRfc3339Micros(core::SystemClock().Now());
  for (size_t i = 0; i < u.partitions.size(); ++i) {
    const uint32_t p = u.partitions[i];
    Record& r = fences[i];
    r.id = "fence-" + u.writer_id + "-" + std::to_string(p);
    core::Json v;
    v["writer"] = u.writer_id;
    v["epoch"] = u.epoch;
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
    rd_kafka_header_add(h, kWriterHeader, -1, u.writer_id.data(),
                        static_cast<ssize_t>(u.writer_id.size()));
    if (u.group) rd_kafka_header_add(h, kWritersHeader, -1, "group", 5);
    rd_kafka_resp_err_t err = rd_kafka_producev(
        u.producer, RD_KAFKA_V_TOPIC(topic.c_str()),
        RD_KAFKA_V_PARTITION(static_cast<int32_t>(p)), RD_KAFKA_V_KEY("svc-writer-fence", 16),
        RD_KAFKA_V_VALUE(r.value.data(), r.value.size()), RD_KAFKA_V_HEADERS(h),
        RD_KAFKA_V_OPAQUE(&r), RD_KAFKA_V_END);
    if (err) {
      rd_kafka_headers_destroy(h);
      return KafkaError("writing the writer fence", err);
    }
  }
  rd_kafka_flush(u.producer, timeout);
  if (rd_kafka_error_t* e = rd_kafka_commit_transaction(u.producer, timeout)) {
    std::string what = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    return core::Unavailable("kafka commit of the writer fence: " + what);
  }
  for (size_t i = 0; i < u.partitions.size(); ++i) {
    if (fences[i].err || fences[i].kafka_offset < 0) {
      return KafkaError("writer fence delivery", fences[i].err);
    }
    u.last_end[u.partitions[i]] = fences[i].kafka_offset + 1;
  }
  core::Json fenced = core::Json::array();
  for (uint32_t p : u.partitions) fenced.push_back(p);
  core::LogInfo("kafka writer fenced earlier writers",
                {{"writer", u.writer_id}, {"epoch", u.epoch}, {"partitions", std::move(fenced)}});
  return core::Status::Ok();
}

// Before a group is acknowledged: in each partition it wrote, anything between our previous
// record and this group's first record must be ours (or invisible: transaction markers). A
// record of another writer there, typically its fence, means we were fenced: readers drop our
// records, so we must not acknowledge them, and we stop.
core::Status VerifyGaps(KafkaLog::Unit& im, const KafkaLog::Options& o, const std::string& topic,
                        std::vector<Pending>& group) {
  std::map<uint32_t, std::pair<int64_t, int64_t>> touched;  // partition -> [first, last] offset
  std::map<uint32_t, int64_t> ours;                          // partition -> records of this group
  for (const auto& g : group) {
    for (const auto& r : g.records) {
      ++ours[g.partition];
      auto [it, inserted] = touched.emplace(g.partition, std::make_pair(r.kafka_offset, r.kafka_offset));
      if (!inserted) {
        it->second.first = std::min(it->second.first, r.kafka_offset);
        it->second.second = std::max(it->second.second, r.kafka_offset);
      }
    }
  }
  for (const auto& [p, range] : touched) {
    int64_t from = im.last_end[p], first = range.first;
    // A transaction's records in a partition are contiguous unless another producer wrote between
    // them: then a newer writer's fence may stand inside the group, readers would take the
    // group's records before it and drop those after it, and the group must not be acknowledged
    // (issue 67). So the group's own range is read too when it has a hole.
    const bool holed = range.second - range.first + 1 != ours[p];
    // Records at offsets below `check_to` are checked; the read ends at `stop_at`, a record that
    // is there (the group's first, or, holed, its last: nothing visible need follow it).
    int64_t check_to = first, stop_at = first;
    if (holed) {
      from = from >= 0 ? std::min(from, first) : first;
      check_to = range.second + 1;
      stop_at = range.second;
    }
    if (from >= 0 && from < check_to) {
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
        if (off < check_to) {
          rd_kafka_headers_t* hdrs = nullptr;
          rd_kafka_message_headers(msg, &hdrs);
          std::string writer = Header(hdrs, kWriterHeader);
          std::string e = Header(hdrs, kEpochHeader);
          uint64_t epoch = e.empty() ? 0 : std::stoull(e);
          // A lower epoch is a fenced writer's late write (readers drop it); only a newer epoch
          // (its fence or its records) fences us. Our own records (a holed group) pass.
          if (writer != im.writer_id && epoch >= im.epoch) foreign = writer.empty() ? "?" : writer;
        }
        rd_kafka_message_destroy(msg);
        if (!foreign.empty() || off >= stop_at) break;
      }
      rd_kafka_assign(im.verifier.get(), nullptr);
      if (!foreign.empty()) {
        return core::Unavailable("this writer was fenced by writer " + foreign +
                                     " (another node took the partition over, or the same role started elsewhere)",
                                 kWriterFenced);
      }
    }
    im.last_end[p] = range.second + 1;
  }
  return core::Status::Ok();
}

}  // namespace

}  // namespace svc::eventstore
