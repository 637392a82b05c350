#pragma once
// Runs `svc dev-broker` as a child process (a real Kafka-protocol broker on loopback), reads its
// bootstrap servers, and sends it fault-injection commands over its stdin.

#include <sys/types.h>

#include <cstdio>
#include <string>

namespace svc::testing {

class DevBrokerProcess {
 public:
  explicit DevBrokerProcess(int partitions = 4, std::string topic_prefix = "svc");
  ~DevBrokerProcess();
  const std::string& bootstraps() const { return bootstraps_; }
  // Sends one control line and returns the broker's answer ("ok" or "error: ...").
  std::string Control(const std::string& line);

 private:
  pid_t pid_ = -1;
  FILE* to_child_ = nullptr;
  FILE* from_child_ = nullptr;
  std::string bootstraps_;
};

}  // namespace svc::testing
