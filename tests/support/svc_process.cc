#include "tests/support/svc_process.h"

#include <algorithm>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/temp_dir.h"

namespace svc::testing {

namespace {

pid_t Spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err,
            const std::string& program = SVC_BINARY, const EnvChanges& env = {}) {
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    for (const auto& [k, v] : env) {
      if (v.empty()) unsetenv(k.c_str());
      else setenv(k.c_str(), v.c_str(), 1);
    }
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv;
    std::string bin = program;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string TempPath(const std::string& tag) {
  static int n = 0;
  return std::filesystem::temp_directory_path().string() + "/svc-test-" +
         std::to_string(getpid()) + "-" + std::to_string(n++) + "-" + tag;
}

}  // namespace

CommandResult RunSvc(const std::vector<std::string>& args, const EnvChanges& env) {
  return RunProgram(SVC_BINARY, args, env);
}

CommandResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                         const EnvChanges& env) {
  std::string out = TempPath("out"), err = TempPath("err");
  pid_t pid = Spawn(args, out, err, program, env);
  CommandResult r;
  r.exit_code = Wait(pid);
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

SvcServer::SvcServer(std::string data_dir, std::vector<std::string> extra_args)
    : data_dir_(std::move(data_dir)), extra_(std::move(extra_args)) {
  out_path_ = TempPath("server-out");
  err_path_ = TempPath("server-err");
}

SvcServer::~SvcServer() {
  if (pid_ > 0) Kill();
  if (std::getenv("SVC_TEST_KEEP_LOGS") != nullptr) return;  // debugging a failed test
  std::filesystem::remove(out_path_);
  std::filesystem::remove(err_path_);
}

int SvcServer::starts_ = 0;

void SvcServer::Start() {
  StartListening();
  // Then for readiness: the read models have caught up with the log (a condition, bounded).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    auto r = api::HttpCall(target(), "GET", "/readyz");
    if (r.ok() && r->status == 200) break;
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("svc never ready");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void SvcServer::StartListening() {
  ++starts_;
  std::string port_file = data_dir_ + ".port";
  std::filesystem::remove(port_file);
  std::vector<std::string> args = {"serve", "--data-dir", data_dir_, "--listen", "127.0.0.1:0",
                                   "--port-file", port_file};
  for (const auto& a : extra_) args.push_back(a);
  // Most tests do not need the face models (slow to load under the sanitizers): they run the
  // model-free engine unless they ask for another.
  if (std::find(extra_.begin(), extra_.end(), "--face-engine") == extra_.end()) {
    args.push_back("--face-engine");
    args.push_back("model-free");
  }
  // Periodic work that would otherwise fire on the wall clock while a shared server lives: tests
  // run it through the admin socket (or --fake-clock) when they mean to.
  for (const char* timer : {"--audit-checkpoint-interval-seconds"}) {
    if (std::find(extra_.begin(), extra_.end(), timer) == extra_.end()) {
      args.push_back(timer);
      args.push_back("3600");
    }
  }
  pid_ = Spawn(args, out_path_, err_path_, SVC_BINARY, env_);
  // Wait for the condition "port file written" (or the child exiting), bounded.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(port_file)) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      std::string how = WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                            : "exit code " + std::to_string(WEXITSTATUS(status));
      throw std::runtime_error("svc exited at start (" + how + "): " + ReadFile(err_path_) +
                               " | stdout: " + ReadFile(out_path_));
    }
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("svc did not start");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  port_ = static_cast<uint16_t>(std::stoi(ReadFile(port_file)));
}

void SvcServer::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  Wait(pid_);
  pid_ = -1;
}

int SvcServer::WaitExit() {
  if (pid_ <= 0) return -1;
  int code = Wait(pid_);
  pid_ = -1;
  return code;
}

void SvcServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  Wait(pid_);
  pid_ = -1;
}

api::ClientTarget SvcServer::target() const {
  api::ClientTarget t;
  t.port = port_;
  return t;
}

api::ClientTarget SvcServer::admin_target() const {
  api::ClientTarget t;
  t.unix_socket = data_dir_ + "/admin.sock";
  return t;
}

std::string SvcServer::stdout_text() const { return ReadFile(out_path_); }

}  // namespace svc::testing
