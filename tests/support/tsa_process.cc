#include "tests/support/tsa_process.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace svc::testing {

TsaProcess::TsaProcess(const std::string& dir) : dir_(dir) {
  child_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{"python3", std::string(SVC_TEST_SOURCE_DIR) + "/tsa/server.py", dir});
  std::string s = child_->ReadLine();
  if (s.rfind("port ", 0) != 0) throw std::runtime_error("unexpected TSA output: " + s);
  port_ = std::stoi(s.substr(5));
}

std::string TsaProcess::roots_pem() const {
  std::ifstream in(roots_file());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void TsaProcess::SetMode(const std::string& mode) {
  child_->WriteLine("mode " + mode);
  if (child_->ReadLine() != "ok") throw std::runtime_error("the TSA took no mode " + mode);
}

void TsaProcess::RequireAuth(const std::string& user_password) {
  child_->WriteLine("auth " + user_password);
  if (child_->ReadLine() != "ok") throw std::runtime_error("the TSA took no credentials");
}

int TsaProcess::Granted() {
  child_->WriteLine("count");
  return std::stoi(child_->ReadLine());
}

}  // namespace svc::testing
