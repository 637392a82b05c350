#include "tests/support/dev_broker_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <vector>

namespace svc::testing {

DevBrokerProcess::DevBrokerProcess(int partitions, std::string topic_prefix) {
  int in_pipe[2], out_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    close(in_pipe[1]);
    close(out_pipe[0]);
    std::string bin = SVC_BINARY, parts = std::to_string(partitions);
    std::vector<std::string> args = {bin, "dev-broker", "--partitions", parts, "--topic-prefix",
                                     topic_prefix};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  to_child_ = fdopen(in_pipe[1], "w");
  from_child_ = fdopen(out_pipe[0], "r");
  char line[4096];
  if (fgets(line, sizeof line, from_child_) == nullptr) throw std::runtime_error("dev-broker died");
  std::string s(line);
  const std::string prefix = "bootstrap.servers=";
  if (s.rfind(prefix, 0) != 0) throw std::runtime_error("unexpected dev-broker output: " + s);
  bootstraps_ = s.substr(prefix.size());
  while (!bootstraps_.empty() && (bootstraps_.back() == '\n' || bootstraps_.back() == '\r')) {
    bootstraps_.pop_back();
  }
}

DevBrokerProcess::~DevBrokerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status;
    waitpid(pid_, &status, 0);
  }
  if (to_child_ != nullptr) fclose(to_child_);
  if (from_child_ != nullptr) fclose(from_child_);
}

std::string DevBrokerProcess::Control(const std::string& line) {
  fprintf(to_child_, "%s\n", line.c_str());
  fflush(to_child_);
  char buf[4096];
  if (fgets(buf, sizeof buf, from_child_) == nullptr) return "error: dev-broker closed";
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace svc::testing
