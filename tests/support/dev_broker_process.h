#pragma once
// Runs `svc dev-broker` as a child process (a real Kafka-protocol broker on loopback), reads its
// bootstrap servers, and sends it fault-injection commands over its stdin.

#include <memory>
#include <string>

#include "tests/support/child_process.h"

namespace svc::testing {

class DevBrokerProcess {
 public:
  explicit DevBrokerProcess(int partitions = 4, std::string topic_prefix = "svc");
  const std::string& bootstraps() const { return bootstraps_; }
  // Sends one control line and returns the broker's answer ("ok" or "error: ...").
  std::string Control(const std::string& line);

 private:
  std::unique_ptr<ChildProcess> child_;
  std::string bootstraps_;
};

}  // namespace svc::testing
