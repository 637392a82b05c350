#pragma once
// A child process with its stdin and stdout connected to pipes; stopped (stdin closed, SIGTERM,
// waited for) when the object dies.

#include <sys/types.h>

#include <cstdio>
#include <string>
#include <vector>

namespace svc::testing {

class ChildProcess {
 public:
  explicit ChildProcess(std::vector<std::string> argv);  // argv[0] is looked up on PATH
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // One line of the child's stdout without its line end; throws when the child closed it.
  std::string ReadLine();
  void WriteLine(const std::string& line);

 private:
  pid_t pid_ = -1;
  FILE* to_child_ = nullptr;
  FILE* from_child_ = nullptr;
};

}  // namespace svc::testing
