#include "tests/support/receiver_process.h"

#include <stdexcept>
#include <vector>

#include "api/http/http_client.h"
#include "tests/support/loopback.h"
#include "tests/support/svc_process.h"

namespace svc::testing {

ReceiverProcess::ReceiverProcess(const std::string& tls_dir) {
  std::vector<std::string> args = {"node", std::string(SVC_TEST_SOURCE_DIR) + "/receiver/receiver.mjs"};
  if (!tls_dir.empty()) {
    cert_ = tls_dir + "/receiver.crt";
    key_ = tls_dir + "/receiver.key";
    auto r = RunProgram("openssl", {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                    "-nodes", "-keyout", key_, "-out", cert_, "-days", "2", "-subj",
                                    "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"});
    if (r.exit_code != 0) throw std::runtime_error("openssl req failed: " + r.err);
    args.insert(args.end(), {"--tls", cert_, key_});
  }
  child_ = std::make_unique<ChildProcess>(args);
  std::string s = child_->ReadLine();
  if (s.rfind("port=", 0) != 0) throw std::runtime_error("unexpected receiver output: " + s);
  port_ = std::stoi(s.substr(5));
}

void ReceiverProcess::AddSecret(const std::string& secret) {
  child_->WriteLine("secret " + secret);
  if (child_->ReadLine() != "ok") throw std::runtime_error("the receiver did not take the secret");
}

bool ReceiverProcess::WaitFor(const std::string& path, int n, std::chrono::milliseconds timeout) {
  child_->WriteLine("wait " + path + " " + std::to_string(n) + " " + std::to_string(timeout.count()));
  return child_->ReadLine() == "ok";
}

void ReceiverProcess::Release() {
  child_->WriteLine("release");
  if (child_->ReadLine() != "ok") throw std::runtime_error("the receiver did not release");
}

std::string ReceiverProcess::LogJson() const { return LoopbackGet(port_, "/log"); }

}  // namespace svc::testing
