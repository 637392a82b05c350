#include "tests/support/dev_broker_process.h"

#include <stdexcept>

namespace svc::testing {

DevBrokerProcess::DevBrokerProcess(int partitions, std::string topic_prefix) {
  child_ = std::make_unique<ChildProcess>(std::vector<std::string>{
      SVC_BINARY, "dev-broker", "--partitions", std::to_string(partitions), "--topic-prefix", topic_prefix});
  std::string s = child_->ReadLine();
  const std::string prefix = "bootstrap.servers=";
  if (s.rfind(prefix, 0) != 0) throw std::runtime_error("unexpected dev-broker output: " + s);
  bootstraps_ = s.substr(prefix.size());
}

std::string DevBrokerProcess::Control(const std::string& line) {
  child_->WriteLine(line);
  try {
    return child_->ReadLine();
  } catch (const std::exception&) {
    return "error: dev-broker closed";
  }
}

}  // namespace svc::testing
