#include "tests/support/child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace svc::testing {

ChildProcess::ChildProcess(std::vector<std::string> argv) {
  int in_pipe[2], out_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    close(in_pipe[1]);
    close(out_pipe[0]);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  to_child_ = fdopen(in_pipe[1], "w");
  from_child_ = fdopen(out_pipe[0], "r");
}

ChildProcess::~ChildProcess() {
  if (to_child_ != nullptr) fclose(to_child_);
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status;
    waitpid(pid_, &status, 0);
  }
  if (from_child_ != nullptr) fclose(from_child_);
}

std::string ChildProcess::ReadLine() {
  // A whole line, however long (a browser script's report can be tens of kilobytes).
  std::string s;
  char buf[4096];
  while (s.empty() || s.back() != '\n') {
    if (fgets(buf, sizeof buf, from_child_) == nullptr) {
      if (s.empty()) throw std::runtime_error("the child closed its output");
      break;
    }
    s += buf;
  }
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

void ChildProcess::WriteLine(const std::string& line) {
  fprintf(to_child_, "%s\n", line.c_str());
  fflush(to_child_);
}

}  // namespace svc::testing
