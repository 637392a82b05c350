#include "tests/support/sat_ca_process.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace svc::testing {

SatCaProcess::SatCaProcess(const std::string& dir) : dir_(dir) {
  child_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{"python3", std::string(SVC_TEST_SOURCE_DIR) + "/efirma/sat_ca.py", dir, "serve"});
  std::string s = child_->ReadLine();
  if (s.rfind("port ", 0) != 0) throw std::runtime_error("unexpected SAT CA output: " + s);
  port_ = std::stoi(s.substr(5));
}

std::string SatCaProcess::read(const std::string& name) const {
  std::ifstream in(file(name), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void SatCaProcess::SetMode(const std::string& mode) {
  child_->WriteLine("mode " + mode);
  if (child_->ReadLine() != "ok") throw std::runtime_error("the SAT CA took no mode " + mode);
}

int SatCaProcess::Answered() {
  child_->WriteLine("count");
  return std::stoi(child_->ReadLine());
}

}  // namespace svc::testing
