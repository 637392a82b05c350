#pragma once
// Starts the real `svc` binary as a child process (port 0, its own data directory), finds its
// port from --port-file, and stops it with SIGTERM or kills it with SIGKILL.

#include <sys/types.h>

#include <string>
#include <vector>

#include "api/http/http_client.h"

namespace svc::testing {

// Environment changes for a child: name -> value; an empty value unsets the variable.
using EnvChanges = std::vector<std::pair<std::string, std::string>>;

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `svc args...` to completion.
CommandResult RunSvc(const std::vector<std::string>& args, const EnvChanges& env = {});
// Runs any program (found on PATH) to completion.
CommandResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                         const EnvChanges& env = {});

class SvcServer {
 public:
  explicit SvcServer(std::string data_dir, std::vector<std::string> extra_args = {});
  ~SvcServer();
  // Changes the environment the server starts with (before Start).
  void SetEnv(EnvChanges env) { env_ = std::move(env); }
  void Start();          // returns when the server listens and /readyz answers 200
  // Returns as soon as the server listens (its port file is written), ready or not: what a
  // client retrying right after a restart meets.
  void StartListening();
  // How many times this test process started a server (printed by tests/main.cc at the end).
  static int Starts() { return starts_; }
  void Stop();           // SIGTERM and wait (graceful)
  void Kill();           // SIGKILL and wait (crash)
  int WaitExit();        // waits for the process to end by itself; its exit code (128 + signal)
  uint16_t port() const { return port_; }
  int pid() const { return pid_; }  // for signals a test sends itself (SIGSTOP: a paused node)
  api::ClientTarget target() const;
  api::ClientTarget admin_target() const;
  std::string stdout_text() const;
  const std::string& stderr_path() const { return err_path_; }
  const std::string& data_dir() const { return data_dir_; }

 private:
  std::string data_dir_;
  std::vector<std::string> extra_;
  EnvChanges env_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string out_path_, err_path_;
  static int starts_;
};

}  // namespace svc::testing
