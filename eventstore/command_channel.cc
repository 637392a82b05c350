#include "eventstore/command_channel.h"

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "core/clock.h"
#include "core/crypto.h"
#include "core/executor.h"
#include "core/ids.h"
#include "core/log.h"
#include "eventstore/envelope.h"
#include "eventstore/kafka_client.h"

namespace svc::eventstore {

namespace kafka {

bool ReadCommandRecord(rd_kafka_message_t* msg, CommandRecord* out) {
  rd_kafka_headers_t* h = nullptr;
  rd_kafka_message_headers(msg, &h);
  out->partition = static_cast<uint32_t>(msg->partition);
  out->offset = msg->offset;
  out->from = Header(h, "svc_from");
  out->request_id = Header(h, "svc_request");
  const std::string reply = Header(h, "svc_reply"), wait = Header(h, "svc_wait_us"),
                    deadline = Header(h, "svc_deadline");
  if (out->from.empty() || out->request_id.empty() || reply.empty() || (wait.empty() && deadline.empty())) {
    return false;
  }
  try {
    out->reply_partition = static_cast<uint32_t>(std::stoul(reply));
    if (!wait.empty()) {
      // The asker's wait, counted on this node's clock from now: no two clocks are compared (a node
      // whose clock ran ahead used to drop every command sent to it). The margin is the time the
      // record took to get here, when that is short; a writer that read it late (paused, or taking
      // the partition over) may decide it after its asker answered 503: that answer says the
      // outcome is unknown (issue 67).
      out->deadline_micros = core::SystemClock().Now().micros + std::stoll(wait) - kCommandTransitMarginMicros;
    } else {
      out->deadline_micros = std::stoll(deadline);  // a node of an older version: its clock's deadline
    }
  } catch (...) {
    return false;
  }
  out->payload.assign(static_cast<const char*>(msg->payload), msg->len);
  return true;
}

}  // namespace kafka

namespace {
void CommandDelivered(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque);
}  // namespace

struct CommandChannel::Impl {
  Options o;
  std::string commands_topic, replies_topic;
  uint32_t reply_partition = 0;
  rd_kafka_t* producer = nullptr;
  kafka::ConsumerPtr replies;
  std::thread reader;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> next_id{0};
  std::string id_prefix;  // random per process: ids never repeat across restarts
  struct Waiting {
    ReplyCallback reply;
    std::chrono::steady_clock::time_point deadline;
  };
  std::mutex mu;
  std::map<std::string, Waiting> waiting;
  bool closed = false;
  core::Counter* sent = nullptr;
  core::Counter* answered = nullptr;
  core::Counter* timed_out = nullptr;
  core::Counter* late = nullptr;

  // Takes the waiting send with `id` (empty when none).
  ReplyCallback Take(const std::string& id) {
    std::lock_guard lock(mu);
    auto it = waiting.find(id);
    if (it == waiting.end()) return nullptr;
    ReplyCallback r = std::move(it->second.reply);
    waiting.erase(it);
    return r;
  }

  void Loop() {
    while (!stop.load()) {
      if (rd_kafka_message_t* msg = rd_kafka_consumer_poll(replies.get(), 50)) {
        if (!msg->err) {
          rd_kafka_headers_t* h = nullptr;
          rd_kafka_message_headers(msg, &h);
          if (kafka::Header(h, "svc_to") == o.member) {
            if (ReplyCallback r = Take(kafka::Header(h, "svc_request"))) {
              if (answered != nullptr) answered->Add();
              r(std::string(static_cast<const char*>(msg->payload), msg->len));
            } else if (late != nullptr) {
              late->Add();  // decided after this node answered 503 (its writer read it late)
            }
          }
        }
        rd_kafka_message_destroy(msg);
      }
      rd_kafka_poll(producer, 0);  // delivery reports
      // Sends whose writer did not answer in time.
      std::vector<ReplyCallback> expired;
      {
        const auto now = std::chrono::steady_clock::now();
        std::lock_guard lock(mu);
        for (auto it = waiting.begin(); it != waiting.end();) {
          if (it->second.deadline <= now) {
            expired.push_back(std::move(it->second.reply));
            it = waiting.erase(it);
          } else {
            ++it;
          }
        }
      }
      for (auto& r : expired) {
        if (timed_out != nullptr) timed_out->Add();
        r(core::Unavailable("the writer of the command's partition did not answer in time (a partition moving "
                            "between nodes, or none writing it); its outcome is unknown: retry with the same "
                            "Idempotency-Key",
                            "SERVICE_UNAVAILABLE"));
      }
    }
  }
};

namespace {
struct DeliveryTicket {
  CommandChannel::Impl* im;
  std::string id;  // empty: a reply (nobody waits on its delivery)
};

void CommandDelivered(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
  auto* t = static_cast<DeliveryTicket*>(msg->_private);
  if (t == nullptr) return;
  if (msg->err && !t->id.empty()) {
    if (CommandChannel::ReplyCallback r = t->im->Take(t->id)) {
      r(core::Unavailable(std::string("the command could not be sent to its writer: ") + rd_kafka_err2str(msg->err),
                          "SERVICE_UNAVAILABLE"));
    }
  }
  delete t;
}
}  // namespace

core::Result<std::unique_ptr<CommandChannel>> CommandChannel::Open(const Options& options) {
  std::unique_ptr<CommandChannel> c(new CommandChannel());
  c->impl_ = std::make_unique<Impl>();
  Impl& im = *c->impl_;
  im.o = options;
  im.commands_topic = options.topic_prefix + ".commands";
  im.replies_topic = options.topic_prefix + ".replies";
  im.reply_partition = PartitionForTenant(options.member, options.partitions);
  im.id_prefix = options.member + "-" + core::HexEncode(core::RandomBytes(6)) + "-";
  SVC_ASSIGN_OR_RETURN(im.producer, kafka::NewIdempotentProducer(options.brokers, options.timeout, 0, CommandDelivered,
                                                                 "kafka command channel"));
  SVC_RETURN_IF_ERROR(kafka::EnsureTopic(im.producer, im.commands_topic, options.partitions,
                                         {{"cleanup.policy", "delete"}, {"retention.ms", "604800000"}}, true,
                                         options.timeout));
  SVC_RETURN_IF_ERROR(kafka::EnsureTopic(im.producer, im.replies_topic, options.partitions,
                                         {{"cleanup.policy", "delete"}, {"retention.ms", "3600000"}}, true,
                                         options.timeout));
  // Replies to this node, from the end as it is now: answers to an earlier run are no one's.
  SVC_ASSIGN_OR_RETURN(im.replies, kafka::NewConsumer(options.brokers, "svc-replies-" + options.member));
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, im.replies_topic.c_str(), static_cast<int32_t>(im.reply_partition))->offset =
      RD_KAFKA_OFFSET_END;
  rd_kafka_resp_err_t aerr = rd_kafka_assign(im.replies.get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  if (aerr) return kafka::KafkaError("assigning " + im.replies_topic, aerr);
  if (options.metrics != nullptr) {
    im.sent = &options.metrics->GetCounter("svc_cluster_commands_forwarded_total",
                                           "Commands sent to the writer of their partition on another node");
    im.answered = &options.metrics->GetCounter("svc_cluster_command_replies_total",
                                               "Answers received for commands sent to another node");
    im.timed_out = &options.metrics->GetCounter("svc_cluster_command_timeouts_total",
                                                "Commands sent to another node that got no answer in time");
    im.late = &options.metrics->GetCounter("svc_cluster_command_late_replies_total",
                                           "Answers that came after their command's asker had answered 503 (its "
                                           "writer read the command late: paused, or taking its partition over)");
  }
  im.reader = std::thread([&im] {
    core::SetThreadName("svc-cmd-replies");
    im.Loop();
  });
  return c;
}

CommandChannel::~CommandChannel() {
  Close();
  if (impl_ && impl_->producer != nullptr) rd_kafka_destroy(impl_->producer);
}

void CommandChannel::Send(uint32_t partition, std::string payload, std::chrono::milliseconds wait,
                          ReplyCallback reply) {
  Impl& im = *impl_;
  const std::string id = im.id_prefix + std::to_string(im.next_id.fetch_add(1));
  {
    std::lock_guard lock(im.mu);
    if (im.closed) {
      reply(core::Unavailable("the command channel is closed", "SERVICE_UNAVAILABLE"));
      return;
    }
    im.waiting[id] = Impl::Waiting{std::move(reply), std::chrono::steady_clock::now() + wait};
  }
  // The writer decides nothing once the wait (on its own clock, from when it reads the record) is
  // spent. svc_deadline (this clock's) is for the writers of an older version during an upgrade.
  const int64_t wait_us = std::chrono::duration_cast<std::chrono::microseconds>(wait).count();
  const int64_t deadline = core::SystemClock().Now().micros + wait_us - kCommandTransitMarginMicros;
  const std::string reply_to = std::to_string(im.reply_partition), deadline_text = std::to_string(deadline),
                    wait_text = std::to_string(wait_us);
  rd_kafka_headers_t* h = rd_kafka_headers_new(6);
  rd_kafka_header_add(h, "svc_wait_us", -1, wait_text.data(), static_cast<ssize_t>(wait_text.size()));
  rd_kafka_header_add(h, "svc_from", -1, im.o.member.data(), static_cast<ssize_t>(im.o.member.size()));
  rd_kafka_header_add(h, "svc_reply", -1, reply_to.data(), static_cast<ssize_t>(reply_to.size()));
  rd_kafka_header_add(h, "svc_request", -1, id.data(), static_cast<ssize_t>(id.size()));
  rd_kafka_header_add(h, "svc_deadline", -1, deadline_text.data(), static_cast<ssize_t>(deadline_text.size()));
  rd_kafka_header_add(h, "content-type", -1, "application/json", 16);
  auto* ticket = new DeliveryTicket{&im, id};
  rd_kafka_resp_err_t e = rd_kafka_producev(
      im.producer, RD_KAFKA_V_TOPIC(im.commands_topic.c_str()), RD_KAFKA_V_PARTITION(static_cast<int32_t>(partition)),
      RD_KAFKA_V_KEY(id.data(), id.size()), RD_KAFKA_V_VALUE(payload.data(), payload.size()),
      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_OPAQUE(ticket), RD_KAFKA_V_END);
  if (e) {
    rd_kafka_headers_destroy(h);
    delete ticket;
    if (ReplyCallback r = im.Take(id)) {
      r(core::Unavailable(std::string("the command could not be sent to its writer: ") + rd_kafka_err2str(e),
                          "SERVICE_UNAVAILABLE"));
    }
    return;
  }
  if (im.sent != nullptr) im.sent->Add();
}

void CommandChannel::Reply(const CommandRecord& to, std::string payload) {
  Impl& im = *impl_;
  rd_kafka_headers_t* h = rd_kafka_headers_new(3);
  rd_kafka_header_add(h, "svc_to", -1, to.from.data(), static_cast<ssize_t>(to.from.size()));
  rd_kafka_header_add(h, "svc_request", -1, to.request_id.data(), static_cast<ssize_t>(to.request_id.size()));
  rd_kafka_header_add(h, "content-type", -1, "application/json", 16);
  rd_kafka_resp_err_t e = rd_kafka_producev(
      im.producer, RD_KAFKA_V_TOPIC(im.replies_topic.c_str()), RD_KAFKA_V_PARTITION(static_cast<int32_t>(to.reply_partition)),
      RD_KAFKA_V_KEY(to.request_id.data(), to.request_id.size()), RD_KAFKA_V_VALUE(payload.data(), payload.size()),
      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_OPAQUE(nullptr), RD_KAFKA_V_END);
  if (e) {
    rd_kafka_headers_destroy(h);
    // The asker times out and answers 503; the command's effect (if any) is in the log, and a
    // retry with the same Idempotency-Key gets it.
    core::LogWarn("a command's answer could not be sent", {{"error", rd_kafka_err2str(e)}});
  }
}

void CommandChannel::Close() {
  if (!impl_) return;
  Impl& im = *impl_;
  std::map<std::string, Impl::Waiting> left;
  {
    std::lock_guard lock(im.mu);
    if (im.closed) return;
    im.closed = true;
    left.swap(im.waiting);
  }
  im.stop.store(true);
  if (im.reader.joinable()) im.reader.join();
  for (auto& [id, w] : left) w.reply(core::Unavailable("the node is stopping", "SERVICE_UNAVAILABLE"));
  if (im.producer != nullptr) rd_kafka_flush(im.producer, 2000);
  im.replies.reset();
}

}  // namespace svc::eventstore
