#include "tests/support/receiver_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <vector>

#include "tests/support/svc_process.h"

namespace svc::testing {

ReceiverProcess::ReceiverProcess(const std::string& tls_dir) {
  if (!tls_dir.empty()) {
    cert_ = tls_dir + "/receiver.crt";
    key_ = tls_dir + "/receiver.key";
    auto r = RunProgram("openssl", {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                    "-nodes", "-keyout", key_, "-out", cert_, "-days", "2", "-subj",
                                    "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"});
    if (r.exit_code != 0) throw std::runtime_error("openssl req failed: " + r.err);
  }
  int in_pipe[2], out_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    close(in_pipe[1]);
    close(out_pipe[0]);
    std::vector<std::string> args = {"node", std::string(SVC_TEST_SOURCE_DIR) + "/support/webhook_receiver.mjs"};
    if (!cert_.empty()) args.insert(args.end(), {"--tls", cert_, key_});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp("node", argv.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  to_child_ = fdopen(in_pipe[1], "w");
  from_child_ = fdopen(out_pipe[0], "r");
  char line[256];
  if (fgets(line, sizeof line, from_child_) == nullptr) throw std::runtime_error("the receiver died");
  std::string s(line);
  if (s.rfind("port=", 0) != 0) throw std::runtime_error("unexpected receiver output: " + s);
  port_ = std::stoi(s.substr(5));
}

ReceiverProcess::~ReceiverProcess() {
  if (to_child_ != nullptr) fclose(to_child_);  // stdin closes: the receiver exits
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status;
    waitpid(pid_, &status, 0);
  }
  if (from_child_ != nullptr) fclose(from_child_);
}

}  // namespace svc::testing
