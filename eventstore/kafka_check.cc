#include "eventstore/kafka_check.h"

#include <memory>

#include "core/crypto.h"
#include "core/ids.h"
#include "eventstore/kafka_client.h"

namespace svc::eventstore {

namespace {

using Ms = std::chrono::milliseconds;

struct Destroy {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using Handle = std::unique_ptr<rd_kafka_t, Destroy>;

std::string Text(rd_kafka_error_t* e) { return kafka::TakeErrorText(e); }

// A transactional, idempotent producer (acks=all) with transactional.id `id`.
core::Result<Handle> NewTransactionalProducer(const KafkaCheckOptions& o, const std::string& id) {
  SVC_ASSIGN_OR_RETURN(rd_kafka_t * rk, kafka::NewTransactionalProducer(o.brokers, id, o.timeout));
  return Handle(rk);
}

// A transactional producer, initialised (which fences an earlier one with the same id).
core::Result<Handle> Transactional(const KafkaCheckOptions& o, const std::string& id) {
  SVC_ASSIGN_OR_RETURN(Handle p, NewTransactionalProducer(o, id));
  if (rd_kafka_error_t* e = rd_kafka_init_transactions(p.get(), static_cast<int>(o.timeout.count()))) {
    return core::Unavailable("init_transactions: " + Text(e));
  }
  return p;
}

core::Status Produce(rd_kafka_t* p, const std::string& topic, const std::string& value, Ms timeout) {
  rd_kafka_resp_err_t err = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                              RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
  if (err) return kafka::KafkaError("produce", err);
  rd_kafka_flush(p, static_cast<int>(timeout.count()));
  return core::Status::Ok();
}

std::string Scratch(const KafkaCheckOptions& o) { return o.topic_prefix + ".kafka-check"; }
std::string NewTransactionalId(const KafkaCheckOptions& o) {
  return o.topic_prefix + "-kafka-check-" + core::HexEncode(core::RandomBytes(6));
}

KafkaCheck EventsTopic(rd_kafka_t* meta, const KafkaCheckOptions& o, bool mock) {
  const std::string topic = o.topic_prefix + ".events";
  KafkaCheck c{"events_topic", "", ""};
  if (mock) {
    c.outcome = "not_answerable";
    c.detail = "the development broker (librdkafka's mock cluster) answers no DescribeConfigs; it keeps every record "
               "in memory";
    return c;
  }
  auto replicas = kafka::ReplicationFactor(meta, topic, o.timeout);
  if (!replicas.ok()) {
    c.outcome = "fail";
    c.detail = replicas.status().message() + " (svc serve creates " + topic + " at its first start)";
    return c;
  }
  core::Status st = kafka::CheckTopicKeepsEverything(meta, topic, o.timeout);
  c.outcome = st.ok() ? "pass" : "fail";
  c.detail = st.ok() ? topic + " keeps every event it acknowledges (" + std::to_string(*replicas) + " replicas)"
                     : st.message();
  return c;
}

KafkaCheck ProducerFencing(const KafkaCheckOptions& o, bool mock) {
  KafkaCheck c{"producer_fencing", "fail", ""};
  const std::string id = NewTransactionalId(o), topic = Scratch(o);
  auto first = Transactional(o, id);
  if (!first.ok()) {
    c.detail = "the first producer: " + first.status().message();
    return c;
  }
  if (rd_kafka_error_t* e = rd_kafka_begin_transaction(first->get())) {
    c.detail = "begin_transaction: " + Text(e);
    return c;
  }
  if (auto st = Produce(first->get(), topic, "fencing-first-" + id, o.timeout); !st.ok()) {
    c.detail = st.message();
    return c;
  }
  // The second producer with the same transactional.id: Kafka bumps the id's producer epoch and
  // aborts the first one's open transaction.
  auto second = Transactional(o, id);
  if (!second.ok()) {
    c.detail = "the second producer: " + second.status().message();
    return c;
  }
  if (rd_kafka_error_t* e = rd_kafka_commit_transaction(first->get(), static_cast<int>(o.timeout.count()))) {
    c.outcome = "pass";
    c.detail = "the first producer's commit after the second's init_transactions failed: " + Text(e);
    return c;
  }
  c.outcome = mock ? "not_answerable" : "fail";
  c.detail = mock ? "the first producer committed after a second one with its transactional.id initialised: the "
                    "development broker fences no producer (svc's own writer fence covers it there)"
                  : "the first producer committed after a second one with its transactional.id initialised: this "
                    "broker does not fence zombie producers";
  return c;
}

KafkaCheck ReadCommitted(const KafkaCheckOptions& o, bool mock) {
  KafkaCheck c{"read_committed", "fail", ""};
  const std::string id = NewTransactionalId(o), topic = Scratch(o);
  const std::string aborted = "aborted-" + id, committed = "committed-" + id;
  auto p = Transactional(o, id);
  if (!p.ok()) {
    c.detail = p.status().message();
    return c;
  }
  const int ms = static_cast<int>(o.timeout.count());
  rd_kafka_error_t* e = rd_kafka_begin_transaction(p->get());
  core::Status st = e == nullptr ? Produce(p->get(), topic, aborted, o.timeout) : core::Unavailable("begin: " + Text(e));
  if (st.ok() && (e = rd_kafka_abort_transaction(p->get(), ms)) != nullptr) st = core::Unavailable("abort: " + Text(e));
  if (st.ok() && (e = rd_kafka_begin_transaction(p->get())) != nullptr) st = core::Unavailable("begin: " + Text(e));
  if (st.ok()) st = Produce(p->get(), topic, committed, o.timeout);
  if (st.ok() && (e = rd_kafka_commit_transaction(p->get(), ms)) != nullptr) st = core::Unavailable("commit: " + Text(e));
  if (!st.ok()) {
    c.detail = st.message();
    return c;
  }
  auto consumer = kafka::NewConsumer(o.brokers, o.topic_prefix + "-kafka-check");
  if (!consumer.ok()) {
    c.detail = consumer.status().message();
    return c;
  }
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_resp_err_t err = rd_kafka_assign(consumer->get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  if (err) {
    c.detail = kafka::KafkaError("assign", err).message();
    return c;
  }
  bool saw_aborted = false, saw_committed = false;
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;
  while (!saw_committed && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(consumer->get(), 100);
    if (msg == nullptr) continue;
    if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      const std::string value(static_cast<const char*>(msg->payload), msg->len);
      saw_aborted |= value == aborted;
      saw_committed |= value == committed;
    }
    rd_kafka_message_destroy(msg);
  }
  if (!saw_committed) {
    c.detail = "the committed record was not read within " + std::to_string(o.timeout.count()) + " ms";
  } else if (!saw_aborted) {
    c.outcome = "pass";
    c.detail = "a read_committed consumer read the committed record and not the aborted one before it";
  } else {
    c.outcome = mock ? "not_answerable" : "fail";
    c.detail = mock ? "a read_committed consumer read a record of an aborted transaction: the development broker "
                      "does not filter aborted transactions (svc's readers drop what a fenced writer wrote by epoch)"
                    : "a read_committed consumer read a record of an aborted transaction";
  }
  return c;
}

}  // namespace

core::Result<std::vector<KafkaCheck>> RunKafkaChecks(const KafkaCheckOptions& o) {
  if (o.brokers.empty()) return core::InvalidArgument("--kafka-brokers is required");
  SVC_ASSIGN_OR_RETURN(rd_kafka_t* client, kafka::NewMetadataClient(o.brokers));
  Handle meta(client);
  // The scratch topic first: it also shows the brokers answer at all. Its partition 0 is used; a
  // broker that made it with more (one that creates topics on first use) is as good.
  core::Status scratch = kafka::EnsureTopic(meta.get(), Scratch(o), 1,
                                            {{"retention.ms", "3600000"}, {"cleanup.policy", "delete"}},
                                            /*create=*/true, o.timeout);
  if (!scratch.ok() && !(scratch.code() == core::StatusCode::kFailedPrecondition &&
                         scratch.message().find(" partitions; ") != std::string::npos)) {
    return scratch;
  }
  const bool mock = kafka::IsMockCluster(meta.get(), o.timeout);
  std::vector<KafkaCheck> out;
  out.push_back(EventsTopic(meta.get(), o, mock));
  out.push_back(ProducerFencing(o, mock));
  out.push_back(ReadCommitted(o, mock));
  return out;
}

}  // namespace svc::eventstore
