#include "eventstore/kafka_dev_broker.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <sstream>

#include "core/log.h"

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
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  rd_kafka_conf_set(conf, "socket.nagle.disable", "true", err, sizeof err);
  rd_kafka_conf_set_log_cb(conf, [](const rd_kafka_t*, int level, const char* fac,
                                    const char* buf) {
    core::Log(level <= 3 ? core::LogLevel::kError : core::LogLevel::kWarn, "librdkafka",
              {{"facility", fac}, {"detail", buf}});
  });
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
